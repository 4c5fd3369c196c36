#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written (not generated): moves state records between backends (P42, docs/state.md).
# DOCUMENTATION, EXAMPLES and RETURN are in the sidecar file state_migrate.yml next to this file.
from __future__ import annotations

from typing import Any, Dict

from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import STATE_STORE_ARG_SPEC, compose
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_migration import migrate
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import default_state_path

# The state store options of the option contract (issue 26: the cloud modules' own, lock timeout included), plus
# these: `workspace` selects records (all of them when not set), so it is not the cloud modules' option.
ARGUMENT_SPEC = compose(
    STATE_STORE_ARG_SPEC,
    {
        "workspace": {"type": "str"},
        "overwrite": {"type": "bool", "default": False},
    },
)


def run(params: Dict[str, Any], check_mode: bool) -> Dict[str, Any]:
    """Copy the records; the result, with a warning per kept conflict. Raises NubesError."""
    source = FileBackend(params["state_path"] or default_state_path())
    destination = KubernetesBackend.from_params(params)
    report = migrate(
        source, destination, workspace=params["workspace"], overwrite=params["overwrite"], check_mode=check_mode
    )
    return {
        "changed": bool(report.copied),
        "copied": report.copied,
        "unchanged": report.unchanged,
        "conflicts": report.conflicts,
        "source_records": report.source_records,
        "warnings": [
            f"kept the destination's different record {key}; set overwrite=true to replace it"
            for key in report.conflicts
        ],
    }


def main() -> None:
    module = new_module(ARGUMENT_SPEC, supports_check_mode=True)
    finish(module, lambda: run(module.params, module.check_mode))


if __name__ == "__main__":
    main()
