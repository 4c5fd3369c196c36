"""The Kubernetes state backend against the real kube-apiserver of the local control plane (P42, beyond the seed):
resourceVersion conflicts retried, not lost; shards past the object size limit; the documented RBAC is enough."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Dict, List, cast

import pytest
import yaml

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import LockTimeoutError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, StateStore
from tests.integration.state.pods import REPO

pytestmark = pytest.mark.cluster
RBAC_MANIFEST = REPO / "docs" / "awx" / "rbac-state-backend.yml"
# recorded uids are UUIDs: every read is validated (issue 24, state_format.py)
U1, U2, U3 = (f"9835EB50-9EF8-4C1A-8D55-3A021B21C00{n}" for n in (1, 2, 3))


def backend_for(kubeconfig: str, namespace: str, **params: Any) -> KubernetesBackend:
    return KubernetesBackend.from_params({"state_kubeconfig": kubeconfig, "state_namespace": namespace, **params})


def test_real_409_is_retried_and_both_records_survive(kubeconfig: str, kube_namespace: str) -> None:
    """P42: another writer replaces the workspace Secret between our read and our replace; the API server answers
    409 (stale resourceVersion); the backend re-reads, re-applies and retries: nothing is lost."""
    mine = backend_for(kubeconfig, kube_namespace)
    other = backend_for(kubeconfig, kube_namespace)
    mine.put(INSTANCES, ("ws", "dummy", "first"), {"instance_uid": U1})
    real_replace = mine.objects.replace_secret
    interleaved: List[str] = []

    def replace_after_another_write(name: str, body: Dict[str, Any]) -> Dict[str, Any]:
        if not interleaved:
            interleaved.append(name)
            other.put(INSTANCES, ("ws", "dummy", "second"), {"instance_uid": U2})
        return real_replace(name, body)

    mine.objects.replace_secret = replace_after_another_write
    mine.put(INSTANCES, ("ws", "dummy", "third"), {"instance_uid": U3})
    assert interleaved and mine.conflicts == 1
    fresh = backend_for(kubeconfig, kube_namespace)
    assert sorted(key[2] for key, _record in fresh.items(INSTANCES)) == ["first", "second", "third"]


def test_parallel_writers_lose_nothing(kubeconfig: str, kube_namespace: str) -> None:
    """P42: 6 threads, each with its own client, write 8 records each into one workspace: all 48 are stored."""
    backends = [backend_for(kubeconfig, kube_namespace) for _index in range(6)]

    def write(index: int) -> None:
        for number in range(8):
            StateStore(backends[index], "shared").put_instance("dummy", f"t{index}-{number}", {"n": number})

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(backends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(backend_for(kubeconfig, kube_namespace).items(INSTANCES)) == 48


def test_workspace_past_one_mib_is_sharded(kubeconfig: str, kube_namespace: str, kubectl: Any) -> None:
    """P42: 1.5 MiB of records in one workspace (over the ~1 MiB object limit) go to several Secrets, each under
    the limit; every record reads back."""
    backend = backend_for(kubeconfig, kube_namespace)
    store = StateStore(backend, "big")
    for number in range(24):
        store.put_instance("dummy", f"r{number}", {"payload": "x" * 48 * 1024, "n": number})
    secrets = kubectl.json("-n", kube_namespace, "get", "secrets", "-l", "state.nubes.cloud/kind=records")["items"]
    assert len(secrets) >= 2
    assert all(sum(len(v) for v in (s.get("data") or {}).values()) < 1024 * 1024 for s in secrets)
    assert [store.get_instance("dummy", f"r{n}")["n"] for n in range(24)] == list(range(24))  # type: ignore[index]


def test_documented_rbac_is_enough(kubeconfig: str, kube_namespace: str, kubectl: Any, tmp_path: Path) -> None:
    """P42, docs/awx/rbac-state-backend.yml: the job's service account with exactly that Role can read, write and
    delete records and take and release locks; without the binding the error names the rights it needs."""
    manifest = yaml.safe_load(RBAC_MANIFEST.read_text(encoding="utf-8"))
    assert manifest["kind"] == "List"
    docs = manifest["items"]
    for doc in docs:
        doc["metadata"]["namespace"] = kube_namespace
        for subject in doc.get("subjects") or []:
            subject["namespace"] = kube_namespace
    kubectl.apply(yaml.safe_dump_all(docs))
    token = kubectl("-n", kube_namespace, "create", "token", "awx-job").stdout.strip()
    admin = yaml.safe_load(Path(kubeconfig).read_text(encoding="utf-8"))
    cluster = admin["clusters"][0]
    job_config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [cluster],
        "users": [{"name": "awx-job", "user": {"token": token}}],
        "contexts": [{"name": "job", "context": {"cluster": cluster["name"], "user": "awx-job"}}],
        "current-context": "job",
    }
    path = tmp_path / "job.kubeconfig"
    path.write_text(yaml.safe_dump(job_config), encoding="utf-8")
    path.chmod(0o600)

    store = StateStore(backend_for(str(path), kube_namespace, state_lock_timeout=1), "rbac")
    with store.instance_lock("dummy", "web"):
        store.put_instance("dummy", "web", {"instance_uid": U1})
        store.put_instance("dummy", "web", {"instance_uid": U1, "status": "present"})
    assert store.get_instance("dummy", "web")["status"] == "present"  # type: ignore[index]
    assert store.delete_instance("dummy", "web") is True
    assert kubectl.json("-n", kube_namespace, "get", "leases")["items"] == []

    elsewhere = StateStore(backend_for(str(path), "default"), "rbac")
    with pytest.raises(NubesError, match=r"HTTP 403.*secrets get/list/create/update/patch") as caught:
        elsewhere.get_instance("dummy", "web")
    assert token not in caught.value.msg


def test_lock_wait_times_out_naming_the_holder(kubeconfig: str, kube_namespace: str) -> None:
    """P42: a second holder waits at most state_lock_timeout and the error names the current holder."""
    first = StateStore(backend_for(kubeconfig, kube_namespace, state_lease_duration=30), "ws")
    second = StateStore(backend_for(kubeconfig, kube_namespace, state_lock_timeout=1), "ws")
    with cast(Any, first.instance_lock("dummy", "web")) as held:
        with pytest.raises(LockTimeoutError) as caught, second.instance_lock("dummy", "web"):
            pass
        assert held.holder in caught.value.msg and "dummy/web" in caught.value.msg
    with second.instance_lock("dummy", "web"):
        pass
