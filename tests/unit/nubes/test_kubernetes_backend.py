"""Unit tests of the Kubernetes state backend and the locks (P42) against an in-memory Secrets/Leases store that
behaves like the API server on resourceVersion preconditions (409 on a stale version, on create of an existing
name). The real API server is exercised by tests/integration/state."""

from __future__ import annotations

import copy
import re
import threading
from typing import Any, Callable, Dict, List, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_micro_time as micro_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Conflict, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import open_state_backend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import (
    KubernetesBackend,
    entry_name,
    workspace_id,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import FileLease, LockTimeoutError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_kubernetes import LeaseLock, lease_name
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, StateStore

DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
U1 = "9835EB50-9EF8-4C1A-8D55-3A021B21C001"  # recorded uids are UUIDs (issue 24: validated on read)
U2 = "9835EB50-9EF8-4C1A-8D55-3A021B21C002"
U3 = "9835EB50-9EF8-4C1A-8D55-3A021B21C003"


class MemoryObjects:
    """Secrets and Leases with resourceVersion semantics; `before_replace` runs just before a Secret replace."""

    namespace = "state-ns"

    def __init__(self) -> None:
        self.secrets: Dict[str, Dict[str, Any]] = {}
        self.leases: Dict[str, Dict[str, Any]] = {}
        self.version = 0
        self.replaces = 0
        self.before_replace: Optional[Callable[[], None]] = None
        self.guard = threading.Lock()

    def _stamp(self, obj: Dict[str, Any]) -> Dict[str, Any]:
        self.version += 1
        obj["metadata"]["resourceVersion"] = str(self.version)
        return copy.deepcopy(obj)

    def list_secrets(self, label_selector: str) -> List[Dict[str, Any]]:
        wanted = dict(part.split("=", 1) for part in label_selector.split(","))
        with self.guard:
            return [
                copy.deepcopy(s)
                for s in self.secrets.values()
                if all(s["metadata"]["labels"].get(k) == v for k, v in wanted.items())
            ]

    def create_secret(self, body: Dict[str, Any]) -> Dict[str, Any]:
        with self.guard:
            name = body["metadata"]["name"]
            if name in self.secrets:
                raise Conflict("PUT", name, 409)
            self.secrets[name] = copy.deepcopy(body)
            return self._stamp(self.secrets[name])

    def replace_secret(self, name: str, body: Dict[str, Any]) -> Dict[str, Any]:
        hook, self.before_replace = self.before_replace, None
        if hook is not None:
            hook()
        with self.guard:
            self.replaces += 1
            current = self.secrets.get(name)
            if current is None:
                raise NotFound("GET", name, 404)
            if body["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
                raise Conflict("PUT", name, 409)
            self.secrets[name] = copy.deepcopy(body)
            return self._stamp(self.secrets[name])

    def get_lease(self, name: str, retry: bool = True) -> Dict[str, Any]:
        with self.guard:
            if name not in self.leases:
                raise NotFound("GET", name, 404)
            return copy.deepcopy(self.leases[name])

    def create_lease(self, body: Dict[str, Any]) -> Dict[str, Any]:
        with self.guard:
            name = body["metadata"]["name"]
            if name in self.leases:
                raise Conflict("PUT", name, 409)
            self.leases[name] = copy.deepcopy(body)
            return self._stamp(self.leases[name])

    def replace_lease(self, name: str, body: Dict[str, Any], retry: bool = True) -> Dict[str, Any]:
        with self.guard:
            current = self.leases.get(name)
            if current is None:
                raise NotFound("GET", name, 404)
            if body["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
                raise Conflict("PUT", name, 409)
            self.leases[name] = copy.deepcopy(body)
            return self._stamp(self.leases[name])

    def delete_lease(self, name: str, resource_version: str) -> None:
        with self.guard:
            current = self.leases.get(name)
            if current is None:
                raise NotFound("GET", name, 404)
            if current["metadata"]["resourceVersion"] != resource_version:
                raise Conflict("PUT", name, 409)
            del self.leases[name]

    def close(self) -> None:
        pass


@pytest.fixture
def objects() -> MemoryObjects:
    return MemoryObjects()


@pytest.fixture
def backend(objects: MemoryObjects) -> KubernetesBackend:
    return KubernetesBackend(objects, lease_duration=2, lock_timeout=1, sleep=lambda _seconds: None)


def test_round_trip_get_put_delete_items(backend: KubernetesBackend) -> None:
    """P42, issue 23: the Kubernetes backend implements the StateBackend interface (records per workspace), and the
    typed store API works on it as on the file: records by identity, the sub-resources of a parent, an instance by
    its uid; the entry holds the record's JSON."""
    store = StateStore(backend, "prod")
    web = ResourceRef("dummy", 1, "prod", "web")
    store.put(web, Record(instance_uid=U1, status="present"))
    stored = store.get(web)
    assert stored is not None and stored.instance_uid == U1
    assert backend.get(INSTANCES, ("prod", "dummy", "web")) == stored.to_json()
    found = store.find_by_uid(web.named(""), U1.lower())
    assert found is not None and found == (web, stored)
    assert StateStore(backend, "dev").get(web) is None
    assert backend.items(INSTANCES)[0][0] == ("prod", "dummy", "web")
    store.put(web.subresource(U1, "user", "app"), Record(status="present"))
    StateStore(backend, "dev").put(web.subresource(U1, "user", "other"), Record(status="present"))
    assert [(ref.sub, ref.key) for ref, _record in store.subresources_of(web, U1.lower())] == [("user", "app")]
    assert store.delete(web.subresource(U1, "user", "app")) and store.subresources_of(web, U1) == []
    assert store.delete(web) is True
    assert store.delete(web) is False
    assert store.get(web) is None


def test_write_conflict_is_retried_not_lost(backend: KubernetesBackend, objects: MemoryObjects) -> None:
    """P42: a concurrent writer changes the Secret between our read and our replace: the replace gets 409, the
    backend re-reads, re-applies its change and retries, and both records survive."""
    backend.put(INSTANCES, ("ws", "dummy", "first"), {"instance_uid": U1})
    other = KubernetesBackend(objects, sleep=lambda _seconds: None)
    objects.before_replace = lambda: other.put(INSTANCES, ("ws", "dummy", "second"), {"instance_uid": U2})
    backend.put(INSTANCES, ("ws", "dummy", "third"), {"instance_uid": U3})
    assert backend.conflicts == 1
    names = sorted(key[2] for key, _record in backend.items(INSTANCES))
    assert names == ["first", "second", "third"]


def test_delete_conflict_is_retried(backend: KubernetesBackend, objects: MemoryObjects) -> None:
    """P42: a delete that meets a concurrent write is retried and keeps the other writer's record."""
    backend.put(INSTANCES, ("ws", "dummy", "gone"), {"instance_uid": U1})
    other = KubernetesBackend(objects, sleep=lambda _seconds: None)
    objects.before_replace = lambda: other.put(INSTANCES, ("ws", "dummy", "kept"), {"instance_uid": U2})
    assert backend.delete(INSTANCES, ("ws", "dummy", "gone")) is True
    assert backend.conflicts == 1
    assert [key[2] for key, _record in backend.items(INSTANCES)] == ["kept"]


def test_concurrent_threads_lose_nothing(objects: MemoryObjects) -> None:
    """P42: 8 writers x 25 records into one workspace Secret: every record is there afterwards."""
    backends = [KubernetesBackend(objects) for _index in range(8)]

    def write(index: int) -> None:
        for number in range(25):
            backends[index].put(INSTANCES, ("ws", "dummy", f"w{index}-{number}"), {"n": number})

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(backends[0].items(INSTANCES)) == 200


def test_unchanged_record_is_not_written(backend: KubernetesBackend, objects: MemoryObjects) -> None:
    """Writing the same record again makes no API write."""
    backend.put(INSTANCES, ("ws", "dummy", "a"), {"x": 1})
    before = objects.replaces
    backend.put(INSTANCES, ("ws", "dummy", "a"), {"x": 1})
    assert objects.replaces == before


def test_shards_when_a_workspace_outgrows_one_secret(objects: MemoryObjects) -> None:
    """P42: past max_shard_bytes new records go to further Secrets; reads, updates and deletes find them."""
    backend = KubernetesBackend(objects, max_shard_bytes=2000)
    for number in range(30):
        backend.put(INSTANCES, ("big", "dummy", f"r{number}"), {"payload": "x" * 100, "n": number})
    names = sorted(objects.secrets)
    assert len(names) > 2
    wid = workspace_id("big")
    assert names[0] == f"nubes-state-{wid}" and all(n.startswith(f"nubes-state-{wid}") for n in names)
    assert all(sum(len(k) + len(v) for k, v in s["data"].items()) <= 2000 for s in objects.secrets.values())
    assert backend.get(INSTANCES, ("big", "dummy", "r29"))["n"] == 29  # type: ignore[index]
    backend.put(INSTANCES, ("big", "dummy", "r0"), {"payload": "y", "n": 100})
    assert backend.get(INSTANCES, ("big", "dummy", "r0"))["n"] == 100  # type: ignore[index]
    holding = [s for s in objects.secrets.values() if entry_name(INSTANCES, ("big", "dummy", "r0")) in s["data"]]
    assert len(holding) == 1
    assert backend.delete(INSTANCES, ("big", "dummy", "r15")) is True
    assert len(backend.items(INSTANCES)) == 29


@pytest.mark.parametrize("workspace", ["default", "Prod/EU West", "a" * 200, "рабочее", "--"])
def test_workspace_ids_are_valid_label_values_and_names(workspace: str) -> None:
    """Any workspace name maps to a valid label value (<= 63) and DNS-1123 Secret name part."""
    wid = workspace_id(workspace)
    assert len(wid) <= 63 and LABEL_VALUE.match(wid) and DNS1123.match(wid)
    assert workspace_id(workspace + "x") != wid


@pytest.mark.parametrize("key", [("instance", "ws", "dummy", "My Name/with spaces"), ("parent", "w", "UID" * 40)])
def test_lease_names_are_dns1123(key: tuple) -> None:
    """P42: Lease names hash the key, so any resource_name gives a valid DNS-1123 name."""
    name = lease_name(key)
    assert DNS1123.match(name) and len(name) <= 63


def test_lease_lock_acquire_release(backend: KubernetesBackend, objects: MemoryObjects) -> None:
    """P42: the lock is a Lease held by hostname/pid/uuid, deleted on release."""
    with backend.lock(("instance", "ws", "dummy", "a")) as lock:
        lease = objects.leases[lock.name]
        assert lease["spec"]["holderIdentity"] == lock.holder
        assert lease["spec"]["leaseDurationSeconds"] == 2
        assert lock.holder.count("/") == 2
    assert objects.leases == {}


def test_lease_lock_timeout_names_the_holder(objects: MemoryObjects) -> None:
    """P42: a waiter gives up after state_lock_timeout with an error naming the holder."""
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    holder = LeaseLock(objects, ("instance", "ws", "dummy", "a"), duration=600, holder="pod-a/7/abc")
    holder.acquire()
    try:
        waiter = LeaseLock(objects, ("instance", "ws", "dummy", "a"), duration=600, timeout=3, clock=lambda: now[0])
        waiter.sleep = sleep
        with pytest.raises(LockTimeoutError, match="held by pod-a/7/abc") as caught:
            waiter.acquire()
        assert "state_lock_timeout" in caught.value.msg
    finally:
        holder.release()


def test_expired_lease_of_a_dead_holder_is_taken_over(objects: MemoryObjects) -> None:
    """P42: a Lease whose renewTime + duration is past (its holder died) is taken over, transitions counted."""
    name = lease_name(("instance", "ws", "dummy", "a"))
    objects.create_lease(
        {
            "metadata": {"name": name},
            "spec": {
                "holderIdentity": "dead/1/x",
                "leaseDurationSeconds": 1,
                "renewTime": "2020-01-01T00:00:00.000000Z",
                "leaseTransitions": 3,
            },
        }
    )
    with LeaseLock(objects, ("instance", "ws", "dummy", "a"), duration=5, timeout=1) as lock:
        assert objects.leases[name]["spec"]["holderIdentity"] == lock.holder
        assert objects.leases[name]["spec"]["leaseTransitions"] == 4


def test_unrenewed_lease_expires_by_observation_despite_clock_skew(objects: MemoryObjects) -> None:
    """P42: a Lease with a renewTime in the future (skewed clock) that nobody renews expires once this waiter
    has seen it unchanged for a lease duration."""
    now = [0.0]
    name = lease_name(("k",))
    objects.create_lease(
        {
            "metadata": {"name": name},
            "spec": {"holderIdentity": "skewed/1/x", "leaseDurationSeconds": 2, "renewTime": "2999-01-01T00:00:00Z"},
        }
    )
    lock = LeaseLock(objects, ("k",), duration=2, timeout=10, clock=lambda: now[0])
    lock.sleep = lambda seconds: now.__setitem__(0, now[0] + seconds)
    lock.acquire()
    try:
        assert objects.leases[name]["spec"]["holderIdentity"] == lock.holder
        assert now[0] > 2
    finally:
        lock.release()


def test_renewal_moves_renew_time_and_detects_takeover(objects: MemoryObjects) -> None:
    """P42: renew() updates renewTime while held; a Lease taken over by another holder is reported as lost."""
    lock = LeaseLock(objects, ("k",), duration=60)
    lock.acquire()
    objects.leases[lock.name]["spec"]["renewTime"] = "2020-01-01T00:00:00.000000Z"
    assert lock.renew() is True
    assert objects.leases[lock.name]["spec"]["renewTime"] > "2020"
    assert lock.renewals == 1
    objects.leases[lock.name]["spec"]["holderIdentity"] = "thief/2/y"
    assert lock.renew() is False
    with pytest.raises(Exception, match="was lost while this task held it"):
        lock.release()


def test_micro_time_format() -> None:
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", micro_time())


def test_file_lease_timeout_names_holder(tmp_path: Any) -> None:
    """P42: the file backend's per-resource lock waits a bounded time and names the holder."""
    path = str(tmp_path / "x.lock")
    with FileLease(path) as held, pytest.raises(LockTimeoutError, match=re.escape(held.holder)):
        FileLease(path, timeout=0.2, description="ws/dummy/a").acquire()
    with FileLease(path, timeout=0.2):
        pass


def test_file_backend_lock_uses_state_lock_timeout(tmp_path: Any) -> None:
    """P42: open_state_backend passes state_lock_timeout to the file backend's locks."""
    params = {"state_backend": "file", "state_path": str(tmp_path / "s.json"), "state_lock_timeout": 1}
    backend = open_state_backend(params)
    assert isinstance(backend, FileBackend)
    key = ("instance", "ws", "dummy", "a")
    with backend.lock(key), pytest.raises(LockTimeoutError, match="instance/ws/dummy/a"):
        backend.lock(key).__enter__()
