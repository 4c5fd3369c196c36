# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a component source (a directory of templates, a kustomize directory or one manifest file) into memory.

The action plugin calls this on the controller, so the module gets the file contents as its ``templates`` option and
can run on any host the task is delegated to.
"""

from __future__ import annotations

import os
from typing import Dict

MAX_SOURCE_BYTES = 8 * 1024 * 1024


class SourceError(Exception):
    """The source path cannot be read."""


def read_source(path: str) -> Dict[str, str]:
    """Return ``{relative path: text}`` of every file under ``path`` (or of the single file ``path``)."""
    if not os.path.exists(path):
        raise SourceError(f"source {path} does not exist; give a directory of templates or a manifest file")
    if os.path.isfile(path):
        return {os.path.basename(path): _read_text(path)}
    files: Dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in (".git",))
        for name in sorted(names):
            full = os.path.join(root, name)
            relative = os.path.relpath(full, path).replace(os.sep, "/")
            files[relative] = _read_text(full)
            total += len(files[relative])
            if total > MAX_SOURCE_BYTES:
                raise SourceError(f"source {path} is larger than {MAX_SOURCE_BYTES} bytes; split the component")
    if not files:
        raise SourceError(f"source directory {path} contains no files")
    return files


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SourceError(f"{path} is not UTF-8 text; component sources must be text files") from None
