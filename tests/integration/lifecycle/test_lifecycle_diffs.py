"""What `--diff` and the state store say around resume and delete (issue 27), checked against the emulator's live
state and the state file, never only the module's result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

pytestmark = pytest.mark.slow


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("failed"), result.get("msg")
    return result


def stack(name: str, s3_uid: str) -> list[dict[str, Any]]:
    """A PostgreSQL with a user and a database."""
    return [
        {"name": "pg", "nubes.cloud.postgres": {"resource_name": name, "s3_uid": s3_uid, "resource_realm": REALM}},
        {
            "name": "user",
            "nubes.cloud.postgres_user": {"parent_resource_name": name, "username": "app", "password": "Diff-Pw-12"},
        },
        {
            "name": "database",
            "nubes.cloud.postgres_database": {"parent_resource_name": name, "db_name": "app", "owner": "app"},
        },
    ]


def test_resume_shows_the_status_change_in_the_diff(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 27 (P21): resuming a suspended instance is a change `--diff` shows (status suspended -> running), in
    check mode before any write and in the real run, which the emulator confirms."""
    name = unique("lc-resume-diff")
    task = {"resource_name": name, "s3_uid": s3_uids[0], "resource_realm": REALM}
    uid = ok(playbook.one("postgres", task))["instance_uid"]
    deck.run_operation(emu, uid, "suspend")
    resume = {**task, "adopt_existing_on_create": True}
    seq = emu.last_seq
    planned = ok(playbook.one("postgres", resume, check=True, diff=True))
    assert planned["operations"] == ["resume"] and write_calls(emu.requests(since=seq)) == []
    assert planned["diff"]["before"]["status"] == "suspended" and planned["diff"]["after"]["status"] == "running"
    resumed = ok(playbook.one("postgres", resume, diff=True))
    assert resumed["diff"]["before"]["status"] == "suspended" and resumed["diff"]["after"]["status"] == "running"
    assert deck.instance(emu, uid)["explainedStatus"] == "running"


def test_delete_names_the_subresources_that_go_and_forgets_their_records(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 27: `--check --diff` of `state: deleted` on a PostgreSQL lists its users and databases, which the API
    deletes with it; after the real delete the state file holds no record of them (nor of the instance)."""
    name = unique("lc-delete-subs")
    results = playbook.run(stack(name, s3_uids[0]))
    uid = ok(results[0])["instance_uid"]
    for result in results[1:]:
        ok(result)
    store = StateStore(FileBackend(str(playbook.state_path)), "default")
    postgres = ResourceRef("postgres", 90, "default", name)
    assert {ref.sub for ref, _record in store.subresources_of(postgres, uid)} == {"user", "database"}

    seq = emu.last_seq
    planned = ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}, check=True, diff=True))
    assert planned["operations"] == ["delete"] and write_calls(emu.requests(since=seq)) == []
    assert planned["diff"]["before"]["subresources"] == {"user": ["app"], "database": ["app"]}
    assert planned["diff"]["after"] == {}
    assert len(store.subresources_of(postgres, uid)) == 2  # check mode forgets nothing

    ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}))
    assert deck.instance(emu, uid)["isDeleted"]
    assert store.subresources_of(postgres, uid) == [] and store.get(postgres) is None


def state_records(state_path: Path, table: str, **fields: str) -> list[dict[str, Any]]:
    """The records of one table of the state file (`instances` or `subresources`), read as JSON, not through the
    store, whose fields equal `fields` (uids compared without case)."""
    data = json.loads(state_path.read_text(encoding="utf-8"))
    return [
        record
        for record in data.get(table, {}).values()
        if all(str(record.get(key, "")).lower() == value.lower() for key, value in fields.items())
    ]


def test_a_delete_settled_by_a_later_run_forgets_the_subresource_records(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 27 (P27, P12): `state: deleted` with `wait: false` returns while the delete runs; the state file then
    still holds the PostgreSQL's record (with the operation) and those of its user and database. The later run that
    settles the delete removes all of them, as a delete that finishes in its own run does; a check-mode run before
    it removes nothing. Read from the state file as JSON and from the emulator."""
    name = unique("lc-delete-later")
    results = playbook.run(stack(name, s3_uids[0]))
    uid = ok(results[0])["instance_uid"]
    for result in results[1:]:
        ok(result)
    path = playbook.state_path
    assert {r["sub"] for r in state_records(path, "subresources", parent_instance_uid=uid)} == {"user", "database"}

    emu.clock.freeze()  # the delete stays in flight however long the playbook takes to start
    try:
        started = ok(playbook.one("postgres", {"resource_name": name, "state": "deleted", "wait": False}))
        assert started["operations"] == ["delete"] and started["operation"]["finished"] is False
        assert deck.instance(emu, uid)["isDeleted"] is False
        (record,) = state_records(path, "instances", resource_name=name)
        assert record["operation"]["name"] == "delete" and record["operation"]["done"] is False
        assert len(state_records(path, "subresources", parent_instance_uid=uid)) == 2
    finally:
        emu.clock.unfreeze()

    seq = emu.last_seq
    ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}, check=True))
    assert len(state_records(path, "subresources", parent_instance_uid=uid)) == 2  # check mode forgets nothing
    assert len(state_records(path, "instances", resource_name=name)) == 1

    settled = ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}))
    assert settled["operations"] == [] and write_calls(emu.requests(since=seq)) == []  # it settled the first delete
    assert deck.instance(emu, uid)["isDeleted"] is True
    assert state_records(path, "subresources", parent_instance_uid=uid) == []
    assert state_records(path, "instances", resource_name=name) == []
