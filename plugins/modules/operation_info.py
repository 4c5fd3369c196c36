#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written (not generated): reads or waits for the operations earlier tasks started (wait: false), issue 18.
# DOCUMENTATION, EXAMPLES and RETURN are in the sidecar file operation_info.yml next to this file.
from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import argument_spec
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operation_wait import run_operation_info

# The collection's common options (so module_defaults of group/nubes.cloud.nubes apply), plus these; `wait` reads
# by default, as kubernetes.core.k8s_info does: a group-wide `wait: false` must never turn the wait task into a read.
ARGUMENT_SPEC = {
    "operation_uid": {"type": "str"},
    "operations": {"type": "raw"},
    "wait": {"type": "bool", "default": False},
}


def main() -> None:
    module = new_module(
        argument_spec(ARGUMENT_SPEC),
        supports_check_mode=True,
        required_one_of=[["operation_uid", "operations"]],
        mutually_exclusive=[["operation_uid", "operations"]],
    )
    finish(module, lambda: run_operation_info(module.params))


if __name__ == "__main__":
    main()
