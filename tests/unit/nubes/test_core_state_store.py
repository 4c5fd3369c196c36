"""State store: records, file backend (locking, atomic replace, mode 0600, no secrets), default path (P42)."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from typing import Any, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    INSTANCES,
    StateStore,
    default_state_path,
)

U1 = "9835EB50-9EF8-4C1A-8D55-3A021B21C001"  # recorded uids are UUIDs (issue 24: validated on read)
U2 = "9835EB50-9EF8-4C1A-8D55-3A021B21C002"


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The default location is found from any directory: XDG_STATE_HOME or ~/.local/state."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_state_path() == os.path.join(str(tmp_path), "nubes-cloud", "state.json")
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_state_path() == os.path.join(str(tmp_path), ".local", "state", "nubes-cloud", "state.json")


def test_records_roundtrip_and_keys(tmp_path: Any) -> None:
    """One record per (workspace, service, resource_name) and per (workspace, service, parent, sub, key)."""
    path = str(tmp_path / "s" / "state.json")
    store = StateStore(FileBackend(path), "ws1")
    other = StateStore(FileBackend(path), "ws2")
    db = ResourceRef("postgres", 90, "ws1", "db")
    store.put(db, Record(instance_uid=U1, status="present"))
    other.put(db, Record(instance_uid=U2, status="present"))
    store.put(db.subresource(U1, "user", "app"), Record(extra={"note": "r"}))
    mine, theirs = store.get(db), other.get(db)
    assert mine is not None and mine.instance_uid == U1
    assert theirs is not None and theirs.instance_uid == U2
    user = store.get(db.subresource(U1.lower(), "user", "app"))
    assert user is not None and user.extra == {"note": "r"}
    found = store.find_by_uid(db.named(""), U1.lower())
    assert found is not None and found[0] == db and found[1] == mine
    assert [ref.key for ref, _record in store.subresources_of(db, U1)] == ["app"]
    assert store.delete(db) and store.get(db) is None
    assert other.get(db) is not None


def test_the_store_takes_the_tasks_identity(tmp_path: Any) -> None:
    """K1/P42: a task reaches its record through its ResourceRef: the ref says the table, the key (an instance by
    service and resource_name, a sub-resource by service, parent uid, sub and key) and the identity fields each
    stored record carries (K4a compares them); the record given is a typed, immutable value."""
    path = str(tmp_path / "state.json")
    store = StateStore(FileBackend(path), "ws1")
    db = ResourceRef("postgres", 90, "ws1", "db")
    user = ResourceRef("postgres", 90, "ws1", sub="user", key="app").in_parent(U1)
    given = Record(instance_uid=U1, status="present")
    store.put(db, given)
    store.put(user, Record(status="present"))
    assert given == Record(instance_uid=U1, status="present")
    stored = store.get(db)
    assert stored is not None and stored.instance_uid == U1
    assert (stored.service_id, stored.workspace, stored.service, stored.resource_name) == (90, "ws1", "postgres", "db")
    assert FileBackend(path).get(INSTANCES, ("ws1", "postgres", "db")) == stored.to_json()  # JSON as it always was
    sub = store.get(db.subresource(U1.lower(), "user", "app"))
    assert sub is not None and sub == store.get(user) and sub.parent_instance_uid == U1 and sub.key == "app"
    assert store.delete(user) and store.get(user) is None and not store.delete(user)
    assert store.delete(db) and store.get(db) is None


def test_typed_queries_return_refs_with_their_records(tmp_path: Any) -> None:
    """Issue 23: the store's queries are typed by identity: `subresources_of(parent, uid)` lists the sub-resources
    recorded under one parent uid (any case; not another parent's, service's or workspace's) as (ref, record), and
    each ref reaches its record (issue 27 deletes them through it); `find_by_uid(ref, uid)` names the instance
    recorded with a uid (K1: the recorded identity), or None."""
    path = str(tmp_path / "state.json")
    store = StateStore(FileBackend(path), "ws1")
    db = ResourceRef("postgres", 90, "ws1", "db")
    store.put(db, Record(instance_uid=U1, status="present"))
    store.put(db.subresource(U1, "user", "app"), Record(status="present"))
    store.put(db.subresource(U1, "database", "main"), Record(status="creating"))
    store.put(db.subresource(U2, "user", "other-parent"), Record(status="present"))
    store.put(ResourceRef("s3", 12, "ws1").subresource(U1, "bucket", "other-service"), Record(status="present"))
    StateStore(FileBackend(path), "ws2").put(db.subresource(U1, "user", "other-ws"), Record(status="present"))
    subs = store.subresources_of(db, U1.lower())
    assert sorted((ref.sub, ref.key, record.status) for ref, record in subs) == [
        ("database", "main", "creating"),
        ("user", "app", "present"),
    ]
    for ref, record in subs:
        assert ref.parent_uid == U1.lower() and store.get(ref) == record
        assert store.delete(ref)
    assert store.subresources_of(db, U1) == [] and len(store.subresources_of(db, U2)) == 1
    found = store.find_by_uid(ResourceRef("postgres", 90, "ws1", task_uid=U1), U1.lower())
    assert found is not None and found[0].resource_name == "db" and found[1].instance_uid == U1
    assert store.find_by_uid(db, U2) is None
    assert store.find_by_uid(ResourceRef("s3", 12, "ws1"), U1) is None  # another service's records are not searched


def test_file_mode_0600_and_atomic_replace(tmp_path: Any) -> None:
    """The state file is mode 0600, written through a temp file + rename (no partial file is left)."""
    path = tmp_path / "s" / "state.json"
    store = StateStore(FileBackend(str(path)), "default")
    store.put(ResourceRef("s3", 12, "default", "b"), Record(instance_uid=U1))
    first_inode = path.stat().st_ino
    store.put(ResourceRef("s3", 12, "default", "c"), Record(instance_uid=U2))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_ino != first_inode  # replaced, not rewritten in place
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]
    assert json.loads(path.read_text())["version"] == 1


def test_corrupt_file_gives_a_clear_error(tmp_path: Any) -> None:
    path = tmp_path / "state.json"
    path.write_text("{half")
    with pytest.raises(Exception, match="not valid JSON"):
        FileBackend(str(path)).get("instances", ("a",))


def _writer(path: str, worker: int, count: int) -> None:
    store = StateStore(FileBackend(path), "default")
    for i in range(count):
        ref = ResourceRef("svc", 7, "default", f"w{worker}-{i}")
        store.put(ref, Record(instance_uid=f"00000000-0000-4000-8000-{worker:06d}{i:06d}"))


def test_parallel_writers_never_corrupt_or_lose_records(tmp_path: Any) -> None:
    """P42 (beyond): parallel processes on one controller never corrupt the file or lose records."""
    path = str(tmp_path / "state.json")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, w, 15)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(30)
    assert all(proc.exitcode == 0 for proc in procs)
    with open(path) as handle:
        records = json.load(handle)["instances"]
    assert len(records) == 60


def _create_once(path: str, results: Any) -> None:
    """lookup + create under the per-resource lock, as the runner does."""
    store = StateStore(FileBackend(path), "default")
    ref = ResourceRef("svc", 7, "default", "same-name")
    with store.lock(ref):
        if store.get(ref) is None:
            store.put(ref, Record(instance_uid=f"00000000-0000-4000-8000-{os.getpid():012d}"))
            results.put("created")
        else:
            results.put("found")


def test_per_resource_lock_prevents_duplicate_creates(tmp_path: Any) -> None:
    """P42 (beyond): the lock held across lookup + create lets exactly one of N racing processes create."""
    path = str(tmp_path / "state.json")
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    procs = [ctx.Process(target=_create_once, args=(path, results)) for _index in range(6)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(30)
    outcomes: List[str] = sorted(results.get(timeout=5) for _proc in procs)
    assert outcomes == ["created"] + ["found"] * 5
