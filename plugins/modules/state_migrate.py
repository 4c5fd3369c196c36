#!/usr/bin/python
# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Hand-written (not generated): moves state records between backends (P42, docs/state.md).
# DOCUMENTATION, EXAMPLES and RETURN are in the sidecar file state_migrate.yml next to this file.
from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import env_fallback  # "" is unset
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_migration import migrate
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import default_state_path

ARGUMENT_SPEC = {
    "state_path": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_PATH"])},
    "workspace": {"type": "str"},
    "state_namespace": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_NAMESPACE"])},
    "state_kubeconfig": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_KUBECONFIG"])},
    "state_context": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_CONTEXT"])},
    "state_lock_timeout": {"type": "int", "default": 300},
    "overwrite": {"type": "bool", "default": False},
}


def main() -> None:
    module = new_module(ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    try:
        source = FileBackend(params["state_path"] or default_state_path())
        destination = KubernetesBackend.from_params(params)
        report = migrate(
            source,
            destination,
            workspace=params["workspace"],
            overwrite=params["overwrite"],
            check_mode=module.check_mode,
        )
    except NubesError as exc:
        module.fail_json(msg=exc.msg)
        return
    for key in report.conflicts:
        module.warn(f"kept the destination's different record {key}; set overwrite=true to replace it")
    module.exit_json(
        changed=bool(report.copied),
        copied=report.copied,
        unchanged=report.unchanged,
        conflicts=report.conflicts,
        source_records=report.source_records,
    )


if __name__ == "__main__":
    main()
