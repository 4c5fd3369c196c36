# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Component sources: what a ``source`` path holds, how it is read where it lives, and how it becomes objects.

Kinds (``source_kind``), as component-operator-runtime keeps its generators apart:

| kind | read where the files are (the controller) | rendered in the module |
|---|---|---|
| ``manifests`` | every ``.yaml``/``.yml``/``.json`` file | parsed as they are: never templated |
| ``kustomize`` | built in place (``../base`` resolves) | the built YAML, parsed: never templated |
| ``templates`` | every file | Jinja2 (opt-in), then kustomize when a kustomization is among them |

``auto`` picks ``kustomize`` when the directory has a ``kustomization.yaml``, else ``manifests``; never
``templates``: a source with a ``.component-config.yaml`` or ``*.j2`` files fails and asks for
``source_kind: templates``.

A new kind (the Helm source) is one more :class:`SourceKind` in ``SOURCE_KINDS`` (with its ``detect`` for
``auto``) and one more choice of the module's ``source_kind`` option.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.kustomize import (
    CommandRunner,
    build_in_place,
    has_kustomization,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import parse_manifests
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import (
    CONFIG_FILE,
    MANIFEST_SUFFIXES,
    RenderInput,
    render_files,
)

MAX_SOURCE_BYTES = 64 * 1024 * 1024
KUSTOMIZE_OUTPUT = "kustomize-build.yaml"
AUTO = "auto"


@dataclass(frozen=True)
class SourceKind:
    """How one kind of source is read (where its files are) and rendered (in the module)."""

    name: str
    detect: Callable[[str], bool]
    read: Callable[[str, CommandRunner], Dict[str, str]]
    render: Callable[[Dict[str, str], RenderInput], List[Dict[str, Any]]]


def _read_files(path: str, keep: Callable[[str], bool]) -> Dict[str, str]:
    if os.path.isfile(path):
        return {os.path.basename(path): _read_text(path)}
    files: Dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in (".git",))
        for name in sorted(names):
            full = os.path.join(root, name)
            relative = os.path.relpath(full, path).replace(os.sep, "/")
            if not keep(relative):
                continue
            files[relative] = _read_text(full)
            total += len(files[relative])
            if total > MAX_SOURCE_BYTES:
                raise SourceError(f"source {path} is larger than {MAX_SOURCE_BYTES} bytes; split the component")
    if not files:
        raise SourceError(f"source directory {path} contains no files to read")
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


def _parse_files(files: Dict[str, str], render_input: RenderInput) -> List[Dict[str, Any]]:
    del render_input  # plain manifests: no parameters, never templated
    objects: List[Dict[str, Any]] = []
    for path in sorted(files):
        if path.endswith(MANIFEST_SUFFIXES):
            objects.extend(parse_manifests(files[path], f"file {path}"))
    return objects


def _read_kustomize(path: str, run_command: CommandRunner) -> Dict[str, str]:
    if not os.path.isdir(path) or not has_kustomization(path):
        raise SourceError(f"source {path} has no kustomization.yaml; source_kind kustomize needs one")
    return {KUSTOMIZE_OUTPUT: build_in_place(os.path.abspath(path), run_command)}


def _looks_templated(path: str) -> bool:
    if os.path.isfile(path):
        return path.endswith(".j2")
    for _root, _dirs, names in os.walk(path):
        if CONFIG_FILE in names or any(name.endswith(".j2") for name in names):
            return True
    return False


def _render_templates(files: Dict[str, str], render_input: RenderInput) -> List[Dict[str, Any]]:
    render_input.files = files
    return render_files(render_input)


# Auto-detection tries the kinds in this order; ``manifests`` takes what is left.
SOURCE_KINDS: Dict[str, SourceKind] = {
    "kustomize": SourceKind(
        "kustomize", lambda path: os.path.isdir(path) and has_kustomization(path), _read_kustomize, _parse_files
    ),
    "manifests": SourceKind(
        "manifests",
        lambda path: True,
        lambda path, run: _read_files(path, lambda name: name.endswith(MANIFEST_SUFFIXES)),
        _parse_files,
    ),
    "templates": SourceKind(
        "templates", lambda path: False, lambda path, run: _read_files(path, lambda name: True), _render_templates
    ),
}
KIND_CHOICES = [AUTO, *sorted(SOURCE_KINDS)]


def resolve_kind(path: str, kind: str = AUTO) -> str:
    """The kind of the source at ``path``: ``kind`` itself, or the detected one for ``auto`` (templating is never
    detected: it is opt-in per source)."""
    if not os.path.exists(path):
        raise SourceError(f"source {path} does not exist; give a directory or a manifest file")
    if kind != AUTO:
        if kind not in SOURCE_KINDS:
            raise SourceError(f"unknown source_kind {kind!r}; use one of {', '.join(KIND_CHOICES)}")
        return kind
    for name, candidate in SOURCE_KINDS.items():
        if candidate.detect(path):
            if name == "manifests" and _looks_templated(path):
                raise SourceError(
                    f"source {path} has Jinja2 templates (*.j2 or {CONFIG_FILE}); templating is opt-in: set "
                    "source_kind: templates to render them, or source_kind: manifests to apply the files as they are"
                )
            return name
    raise SourceError(f"cannot tell the kind of source {path}; set source_kind")  # pragma: no cover


def _no_commands(argv: List[str]) -> Any:
    raise SourceError(f"cannot run {argv[0]} here: reading this source needs a command runner")


def read_source(path: str, kind: str = AUTO, run_command: Optional[CommandRunner] = None) -> Dict[str, Any]:
    """Read (or build) a source where its files are: ``{"kind": resolved kind, "files": {relative path: text}}``.

    ``run_command`` runs kustomize (the action plugin's runs it on the controller, the module's on its host)."""
    resolved = resolve_kind(path, kind)
    files = SOURCE_KINDS[resolved].read(path, run_command or _no_commands)
    return {"kind": resolved, "files": files}


def render_source(kind: str, files: Dict[str, str], render_input: RenderInput) -> List[Dict[str, Any]]:
    """The desired objects of a source read by ``read_source`` (C2: the spec is passed read-only)."""
    if kind not in SOURCE_KINDS:
        raise SourceError(f"unknown source_kind {kind!r}; use one of {', '.join(KIND_CHOICES)}")
    return SOURCE_KINDS[kind].render(dict(files), render_input)
