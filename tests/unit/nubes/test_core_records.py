"""Issue 23: the state record is a typed, immutable value (records.Record, records.Operation). It reads every stored
dict and writes it back exactly (unknown keys kept), reads the shapes of earlier versions as the current one, and the
record functions take and return it without changing the one given. The store keeps the JSON as it was."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Operation, Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, StateStore

U1 = "9835EB50-9EF8-4C1A-8D55-3A021B21C001"
U2 = "9835EB50-9EF8-4C1A-8D55-3A021B21C002"

EVERY_FIELD: Dict[str, Any] = {
    "status": "creating",
    "instance_uid": U1,
    "salt": "0a1b2c3d4e5f6071",
    "digests": {"password": "$pbkdf2-sha256$i=300000$c2FsdA$aGFzaA"},
    "git_revision": "abc123",
    "operation": {
        "uid": U2,
        "name": "create",
        "done": False,
        "digests": {"adminPass": "$pbkdf2-sha256$i=300000$c2FsdA$b3RoZXI"},
        "git_revision": "def456",
        "remove_record": True,
    },
    "requested_at": 1764670000.25,
    "window_passed": True,
    "updated_at": "2020-01-01T00:00:00Z",
    "service_id": 90,
    "workspace": "default",
    "service": "postgres",
    "resource_name": "db",
}
SUBRESOURCE: Dict[str, Any] = {
    "status": "present",
    "salt": "00ff",
    "digests": {},
    "operation": {"uid": U2, "name": "create_user", "done": True},
    "updated_at": "2026-12-02T10:00:00Z",
    "workspace": "default",
    "service": "postgres",
    "parent_instance_uid": U1,
    "sub": "user",
    "key": "app",
}


def test_every_field_is_typed_and_written_back_exactly() -> None:
    """Issue 23: every field of an instance record (the operation's too, the identity fields the store stamps, the
    create's requested_at and window_passed) is read as a typed attribute and written back to the same JSON."""
    record = Record.from_json(EVERY_FIELD)
    assert record.to_json() == EVERY_FIELD and record.extra == {}
    assert (record.status, record.instance_uid, record.git_revision) == ("creating", U1, "abc123")
    assert record.salt == EVERY_FIELD["salt"]
    assert record.digests == EVERY_FIELD["digests"] and record.service_id == 90
    assert (record.requested_at, record.window_passed) == (1764670000.25, True)
    assert record.updated_at == "2020-01-01T00:00:00Z"
    assert (record.workspace, record.service, record.resource_name) == ("default", "postgres", "db")
    assert record.operation == Operation(U2, "create", False, EVERY_FIELD["operation"]["digests"], "def456", True)
    sub = Record.from_json(SUBRESOURCE)
    assert sub.to_json() == SUBRESOURCE and sub.digests == {} and sub.instance_uid is None
    assert (sub.parent_instance_uid, sub.sub, sub.key) == (U1, "user", "app")


def test_absent_fields_stay_absent() -> None:
    """What a record does not hold is not written (None), and "" or {} stay what they are: a create_requested record
    keeps its empty uid."""
    requested = {"status": "create_requested", "instance_uid": "", "requested_at": 1764670000}
    assert Record.from_json(requested).to_json() == requested
    assert Record().to_json() == {} and Record(status="present").to_json() == {"status": "present"}
    assert Record.from_json({"operation": {"uid": U2}}).to_json() == {"operation": {"uid": U2}}


def test_unknown_keys_and_odd_values_are_kept_on_rewrite() -> None:
    """Issue 23: keys this version does not know (a newer or older version's, a tool's), in the record and in its
    operation, and a known field stored as null or with another type, are kept in `extra` as stored and written back,
    also after the record functions changed the record: a rewrite loses nothing."""
    stored = {
        "status": "present",
        "instance_uid": U1,
        "git_revision": None,
        "requested_at": "yesterday",
        "a_field_of_a_newer_version": [1, {"deep": True}],
        "operation": {"uid": U2, "name": "modify", "done": False, "attempt": 3},
    }
    record = Record.from_json(stored)
    newer = {"a_field_of_a_newer_version": [1, {"deep": True}]}
    assert record.extra == {"git_revision": None, "requested_at": "yesterday", **newer}
    assert record.git_revision is None and record.requested_at is None
    assert record.operation is not None and record.operation.extra == {"attempt": 3}
    assert record.to_json() == stored
    done = records.settled(record, True).to_json()
    assert done["a_field_of_a_newer_version"] == [1, {"deep": True}] and done["operation"] == {
        "uid": U2,
        "name": "modify",
        "done": True,
        "attempt": 3,
    }
    written = record.to_json()
    written["a_field_of_a_newer_version"][1]["deep"] = False  # the dict given out is a copy
    assert record.extra["a_field_of_a_newer_version"] == [1, {"deep": True}]


@pytest.mark.parametrize(
    ("stored", "operation"),
    [
        (
            {"status": "present", "pending": {"operation_uid": U2, "name": "modify", "git_revision": "r2"}},
            {"uid": U2, "name": "modify", "done": False, "digests": {}, "git_revision": "r2"},
        ),
        (
            {"status": "present", "pending": {"operation_uid": U2, "digests": {"password": "d"}}},
            {"uid": U2, "name": "operation", "done": False, "digests": {"password": "d"}},
        ),
        ({"status": "creating", "operation_uid": U2}, {"uid": U2, "name": "create", "done": False}),
        ({"status": "present", "operation_uid": U2}, {"uid": U2, "name": "", "done": True}),
    ],
    ids=["pending", "pending-unnamed", "operation-uid-creating", "operation-uid-present"],
)
def test_an_earlier_versions_record_is_read_in_the_current_shape(
    stored: Dict[str, Any], operation: Dict[str, Any]
) -> None:
    """Records of earlier versions (`params`, `pending`, a bare `operation_uid`) read as the current shape: the
    operation they hold, no params (the live instance is the truth)."""
    old = dict(stored, instance_uid=U1, params={"resourceCPU": "500"})
    record = Record.from_json(old)
    assert record.to_json() == {"status": stored["status"], "instance_uid": U1, "operation": operation}
    assert old == dict(stored, instance_uid=U1, params={"resourceCPU": "500"})  # the stored dict is not changed


def test_record_functions_return_a_new_record() -> None:
    """Issue 23: started, settled and present take a Record and return another (dataclasses.replace); the one given
    is never changed. The operation's digests and git_revision are merged into the record once it succeeded."""
    base = Record(status="creating", instance_uid=U1)
    before = copy.deepcopy(base)
    running = records.started(base, U2, "create", {"password": "Pw-1"}, "r1", remove=False)
    assert base == before and running.salt and running.operation is not None
    assert records.open_operation(running) == running.operation and running.operation.remove_record is None
    written = running.to_json()["operation"]
    assert written["git_revision"] == "r1" and "remove_record" not in written
    done = records.settled(running, True)
    assert records.open_operation(done) is None and done.status == "present" and done.git_revision == "r1"
    assert done.digests is not None and set(done.digests) == {"password"} and done.operation is not None
    assert done.operation.digests is None and done.operation.done and running.operation.done is False
    kept = records.present(done, [], instance_uid=U1)
    assert kept.digests == {} and kept.salt == running.salt and set(done.digests) == {"password"}
    failed = records.settled(records.started(done, U2, "delete", {}, None, remove=True), False)
    assert failed.git_revision == "r1" and failed.operation is not None and failed.operation.remove_record


def test_a_rewrite_keeps_the_stored_json(tmp_path: Path) -> None:
    """Issue 23: the store converts at its edge only: a record a newer version wrote, read and written again through
    the store, is the same JSON in the file (its unknown keys included) but for the time of the write."""
    path = tmp_path / "state.json"
    key = ("default", "postgres", "db")
    newer = dict(EVERY_FIELD, a_field_of_a_newer_version={"x": 1})
    path.write_text(json.dumps({"version": 1, "instances": {json.dumps(list(key), separators=(",", ":")): newer}}))
    store = StateStore(FileBackend(str(path)), "default")
    ref = ResourceRef("postgres", 90, "default", "db")
    record = store.get(ref)
    assert record is not None and record.extra == {"a_field_of_a_newer_version": {"x": 1}}
    store.put(ref, record)
    rewritten = FileBackend(str(path)).get(INSTANCES, key)
    assert rewritten is not None and rewritten.pop("updated_at") != EVERY_FIELD["updated_at"]
    assert rewritten == {k: v for k, v in newer.items() if k != "updated_at"}
