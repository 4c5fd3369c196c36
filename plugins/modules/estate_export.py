#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written (not generated): writes a playbook that adopts an existing estate (issue 27, docs/using-modules.md).
# DOCUMENTATION, EXAMPLES and RETURN are in the sidecar file estate_export.yml next to this file.
from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import argument_spec
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.estate_task import run_estate_export

ARGUMENT_SPEC = {
    "services": {"type": "list", "elements": "str", "default": []},
    "dest": {"type": "path"},
}


def main() -> None:
    module = new_module(argument_spec(ARGUMENT_SPEC), supports_check_mode=True)
    finish(module, lambda: run_estate_export(module.params, module.check_mode, module._diff))


if __name__ == "__main__":
    main()
