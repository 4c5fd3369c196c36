"""The Kubernetes state backend against the real kube-apiserver of the local control plane (P42, beyond the seed):
resourceVersion conflicts retried, not lost; shards past the object size limit; the documented RBAC is enough;
writes whose answer is lost read back, never applied twice (issue 24)."""

from __future__ import annotations

import re
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, cast

import pytest
import urllib3
import yaml

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import LockTimeoutError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryBudget
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, StateStore
from tests.integration.state.pods import REPO

pytestmark = pytest.mark.cluster
RBAC_MANIFEST = REPO / "docs" / "awx" / "rbac-state-backend.yml"
# recorded uids are UUIDs: every read is validated (issue 24, state_format.py)
U1, U2, U3 = (f"9835EB50-9EF8-4C1A-8D55-3A021B21C00{n}" for n in (1, 2, 3))


def dummy(workspace: str, name: str) -> ResourceRef:
    """The identity of the dummy instance `name` (service 1) in `workspace`."""
    return ResourceRef("dummy", 1, workspace, name)


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
            record = Record(extra={"n": number})
            StateStore(backends[index], "shared").put(dummy("shared", f"t{index}-{number}"), record)

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
        store.put(dummy("big", f"r{number}"), Record(extra={"payload": "x" * 48 * 1024, "n": number}))
    secrets = kubectl.json("-n", kube_namespace, "get", "secrets", "-l", "state.nubes.cloud/kind=records")["items"]
    assert len(secrets) >= 2
    assert all(sum(len(v) for v in (s.get("data") or {}).values()) < 1024 * 1024 for s in secrets)
    read = [store.get(dummy("big", f"r{n}")) for n in range(24)]
    assert [record.extra["n"] if record is not None else None for record in read] == list(range(24))


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
    web = dummy("rbac", "web")
    with store.lock(web):
        store.put(web, Record(instance_uid=U1))
        store.put(web, Record(instance_uid=U1, status="present"))
    recorded = store.get(web)
    assert recorded is not None and recorded.status == "present"
    assert store.delete(web) is True
    assert kubectl.json("-n", kube_namespace, "get", "leases")["items"] == []

    elsewhere = StateStore(backend_for(str(path), "default"), "rbac")
    with pytest.raises(NubesError, match=r"HTTP 403.*secrets get/list/create/update/patch") as caught:
        elsewhere.get(web)
    assert token not in caught.value.msg


def test_lock_wait_times_out_naming_the_holder(kubeconfig: str, kube_namespace: str) -> None:
    """P42: a second holder waits at most state_lock_timeout and the error names the current holder."""
    first = StateStore(backend_for(kubeconfig, kube_namespace, state_lease_duration=30), "ws")
    second = StateStore(backend_for(kubeconfig, kube_namespace, state_lock_timeout=1), "ws")
    web = dummy("ws", "web")
    with cast(Any, first.lock(web)) as held:
        with pytest.raises(LockTimeoutError) as caught, second.lock(web):
            pass
        assert held.holder in caught.value.msg and "dummy/web" in caught.value.msg
    with second.lock(web):
        pass


class LoseAnswers:
    """Wraps a kube Connection's `_send`: the first request of each given method reaches the apiserver and is
    applied, then its answer is lost (the connection drops, as when the apiserver dies right after committing)."""

    def __init__(self, connection: Any, methods: List[str]) -> None:
        self.real: Callable[..., Any] = connection._send
        self.pending = list(methods)
        self.sent: List[str] = []
        connection._send = self

    def __call__(self, method: str, url: str, data: Any, headers: Any) -> Any:
        response = self.real(method, url, data, headers)
        self.sent.append(f"{method} {url.split('?')[0].split('/namespaces/')[1]}")
        if method in self.pending:
            self.pending.remove(method)
            raise urllib3.exceptions.ProtocolError("connection dropped after the request (the answer is lost)")
        return response


def test_writes_whose_answer_is_lost_are_read_back_not_sent_twice(
    kubeconfig: str, kube_namespace: str, kubectl: Any
) -> None:
    """Issue 24 (P42): the apiserver applies the Lease create, the record's Secret replace and the Lease delete, and
    each answer is lost. The backend reads each object back and compares its resourceVersion instead of sending the
    write again: one POST, one PUT and one DELETE reach the apiserver; the lock was held and released, the record is
    stored (before: the first lost answer failed the task with "cannot reach the Kubernetes API")."""
    backend = backend_for(kubeconfig, kube_namespace)
    store = StateStore(backend, "lost")
    web = dummy("lost", "web")
    store.put(web, Record(instance_uid=U1, status="creating"))
    lose = LoseAnswers(backend.objects.api.connection, ["POST", "PUT", "DELETE"])
    with store.lock(web):
        assert len(kubectl.json("-n", kube_namespace, "get", "leases")["items"]) == 1
        store.put(web, Record(instance_uid=U1, status="present"))
    writes = [call for call in lose.sent if not call.startswith("GET")]
    assert [call.split(" ")[0] for call in writes] == ["POST", "PUT", "DELETE"], lose.sent
    assert lose.pending == []
    assert kubectl.json("-n", kube_namespace, "get", "leases")["items"] == []
    fresh = StateStore(backend_for(kubeconfig, kube_namespace), "lost")
    recorded = fresh.get(web)
    assert recorded is not None and recorded.status == "present"


def test_a_dead_apiserver_fails_once_the_task_budget_is_used_up(kubeconfig: str, tmp_path: Path) -> None:
    """Issue 24 (P42): against an apiserver address where nothing listens, the backend retries with the component
    engine's backoff until the task's retry budget (here 3 s) no longer holds the next wait, then fails naming the
    call, the attempts and the real time they took, and the budget (before: at the first refused connection)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: connections to it are refused
    config = yaml.safe_load(Path(kubeconfig).read_text(encoding="utf-8"))
    for cluster in config["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{port}"
    dead = tmp_path / "dead.kubeconfig"
    dead.write_text(yaml.safe_dump(config), encoding="utf-8")
    dead.chmod(0o600)
    budget = RetryBudget(3.0)
    backend = KubernetesBackend.from_params({"state_kubeconfig": str(dead), "state_namespace": "default"}, budget)
    started = time.monotonic()
    with pytest.raises(NubesError) as caught:
        StateStore(backend, "dead").get(dummy("dead", "web"))
    took = time.monotonic() - started
    found = re.search(
        r"list secrets in namespace default failed after (\d+) attempts over (\d+) s, when the task's retry budget of "
        r"3 s \(NUBES_RETRY_BUDGET\) was used up: cannot reach the Kubernetes API at https://127.0.0.1:",
        caught.value.msg,
    )
    assert found, caught.value.msg
    assert int(found.group(1)) == backend.objects.retries + 1 >= 5
    assert 2 <= int(found.group(2)) <= 3 and 2.0 <= took < 4.0
