#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written (not generated): writes a playbook that adopts an existing estate (issue 27, docs/export.md).
# DOCUMENTATION, EXAMPLES and RETURN are in the sidecar file estate_export.yml next to this file.
from __future__ import annotations

import os
from urllib.parse import urlsplit

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue
from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import argument_spec
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import (
    check_connection_options,
    check_duration_options,
    connect,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.estate import read_estate, render_playbook

ARGUMENT_SPEC = {
    "services": {"type": "list", "elements": "str", "default": []},
    "dest": {"type": "path"},
}


def main() -> None:
    module = new_module(argument_spec(ARGUMENT_SPEC), supports_check_mode=True)
    params = module.params
    try:
        check_connection_options(params)
        check_duration_options(params)
        entries = load_catalogue().select(params["services"])  # an unknown service fails before any call
        client, redactor = connect(params)
        try:
            estate = read_estate(DeckApi(client), entries)
        except NubesError as exc:
            exc.msg = redactor(exc.msg)
            raise
        finally:
            client.close()
    except NubesError as exc:
        module.fail_json(msg=exc.msg)
        return
    playbook = render_playbook(estate, urlsplit(params["api_endpoint"]).netloc or "the API")
    dest = params["dest"]
    before = _read(dest) if dest else None
    changed = bool(dest) and before != playbook
    if changed and not module.check_mode:
        _write(module, dest, playbook)
    result = dict(
        changed=changed,
        playbook=playbook,
        tasks=len(estate.tasks),
        secret_variables=estate.secret_variables,
        not_exported=[item.as_dict() for item in estate.not_exported],
    )
    if dest:
        result["dest"] = dest
    if module._diff and dest:
        result["diff"] = {"before": before or "", "after": playbook, "before_header": dest, "after_header": dest}
    for item in estate.not_exported:
        module.warn(f"not exported: {item.module} {item.resource_name!r} ({item.instance_uid}), status {item.status}")
    module.exit_json(**result)


def _read(path: str):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _write(module, path: str, text: str) -> None:
    """Write through a temporary file in the same directory, so a reader never sees half a playbook."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        module.fail_json(msg=f"dest: the directory {directory} does not exist; create it or choose another path")
    temporary = f"{path}.nubes-tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    module.atomic_move(temporary, path)


if __name__ == "__main__":
    main()
