# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The task of `nubes.cloud.estate_export` (issue 27): read the estate (estate.py), render the playbook, write it to
`dest` when its content differs. Returns the result dict or raises NubesError (token redacted); the module shell
(module_entry.finish) maps it."""

from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional
from urllib.parse import urlsplit

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.reader import InventoryApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import (
    check_connection_options,
    check_duration_options,
    connect,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.estate import read_estate, render_playbook


def run_estate_export(params: Mapping[str, Any], check_mode: bool = False, diff_mode: bool = False) -> Dict[str, Any]:
    check_connection_options(params)
    check_duration_options(params)
    wanted = params.get("services") or []
    entries = load_catalogue().select(wanted)  # an unknown service fails before any call
    dest: Optional[str] = params.get("dest")
    if dest and not os.path.isdir(os.path.dirname(os.path.abspath(dest))):
        raise InputError(f"dest: the directory of {dest} does not exist; create it or choose another path")
    client, redactor = connect(params)
    try:
        estate = read_estate(InventoryApi(client), entries, every_service=not wanted)
    except NubesError as exc:
        exc.msg = redactor(exc.msg)
        raise
    finally:
        client.close()
    playbook = render_playbook(estate, urlsplit(str(params["api_endpoint"])).netloc or "the API")
    before = _read(dest) if dest else None
    changed = bool(dest) and before != playbook
    if changed and not check_mode and dest:
        _write(dest, playbook)
    result: Dict[str, Any] = {
        "changed": changed,
        "playbook": playbook,
        "tasks": len(estate.tasks),
        "secret_variables": estate.secret_variables,
        "not_exported": [item.as_dict() for item in estate.not_exported],
        "warnings": [
            f"not exported: {item.resource_name!r} ({item.instance_uid}): {item.reason}" for item in estate.not_exported
        ],
    }
    if dest:
        result["dest"] = dest
        if diff_mode:
            result["diff"] = {"before": before or "", "after": playbook, "before_header": dest, "after_header": dest}
    return result


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"dest: cannot read {path[:200]!r} ({_why(exc)}); choose a path to a playbook file") from None


def _write(path: str, text: str) -> None:
    """Write through a temporary file in the same directory and rename it, so a reader never sees half a file."""
    temporary = f"{path}.nubes-tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise InputError(f"dest: cannot write {path[:200]!r} ({_why(exc)}); choose a writable path") from None


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__
