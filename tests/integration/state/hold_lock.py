"""Hold the state lock of one instance and never let go (the SIGKILL test's victim, P42):
`python -m tests.integration.state.hold_lock <kubeconfig> <namespace> <workspace> <service> <resource_name> <lease s>`.
Prints `HELD <holder identity>` once the Lease is held, then sleeps while the renewal thread keeps it alive."""

from __future__ import annotations

import sys
import time
from typing import Any, cast

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore


def main(argv: list[str]) -> int:
    kubeconfig, namespace, workspace, service, name, duration = argv[1:7]
    params = {"state_kubeconfig": kubeconfig, "state_namespace": namespace, "state_lease_duration": int(duration)}
    store = StateStore(KubernetesBackend.from_params(params), workspace)
    ref = ResourceRef(service, 0, workspace, name)  # a lock names the service and display name, not the service id
    with cast(Any, store.lock(ref)) as lock:
        print("HELD", lock.holder, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
