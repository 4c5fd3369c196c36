"""`wait: false` in the core (stubbed deck-api): what the result and the record say, and what the next run of the same
task does with the operation still in flight (P27, P16)."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    RECORD_KEEP,
    InstanceSituation,
    SubSituation,
    decide,
)
from tests.unit.nubes.conftest import RunFactory, stored_record
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"


@pytest.fixture
def s3_uid(deck: FakeDeck) -> str:
    return deck.add_instance(12, "backups")


def record(state_path: str, service: str, name: str) -> Dict[str, Any]:
    return stored_record(state_path, service, name) or {}


def s3_args(name: str) -> Dict[str, Any]:
    return {"resource_name": name, "display_name": name, "resource_realm": REALM}


def test_in_flight_is_decided_before_anything_else() -> None:
    """P27: this record's own operation still running (wait=false) -> nothing started, record kept, reported as
    `in_flight`, whatever else the situation says (even a busy instance or another state)."""
    for situation in (
        InstanceSituation(status="creating", busy=True, record_creating=True, in_flight="create"),
        InstanceSituation(state="absent", status="running", recorded=True, in_flight="modify"),
        InstanceSituation(state="deleted", status="running", recorded=True, in_flight="modify"),
        SubSituation(sub="user", key_option="username", parent_busy=True, in_flight="create_user"),
    ):
        decision = decide(situation)
        assert not decision.error and decision.operations == () and decision.record == RECORD_KEEP
        assert decision.in_flight and decision.action == "in_flight" and decision.rule == "P27"
        assert situation.in_flight in decision.reason and "operation_info" in decision.reason


def test_wait_false_result_and_record(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """wait=false returns once the operation runs: its uid and timeout in the result (not finished), changed, the
    status read after the start, and the record holding the operation as not done."""
    deck.polls_to_finish = 3
    result = run(services["s3"], wait=False, **s3_args("b1"))
    operation = result["operation"]
    assert result["changed"] and result["operations"] == ["create"] and result["decision"] == "create"
    assert operation["finished"] is False and operation["duration"] is None
    assert operation["timeout"] == services["s3"]["lifecycle"]["timeouts"]["create"]  # P8, no wait_timeout given
    assert deck.operations[operation["uid"].lower()]["dtSubmit"]  # run was sent
    assert result["status"] == "not_created" and result["outputs"] == {}  # as read right after the start
    assert deck.log[-1] == ("GET", f"/instances/{result['instance_uid']}")
    saved = record(state_path, "s3", "b1")
    assert saved["status"] == "creating" and saved["operation"]["uid"] == operation["uid"]
    assert saved["operation"]["done"] is False


def test_rerun_with_wait_false_reports_the_operation_and_starts_nothing(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """P27/P16: the next wait=false run of the same task while the operation still runs reports that operation
    (decision in_flight, changed false) with one read of it; no write, no second operation."""
    deck.polls_to_finish = 3
    first = run(services["s3"], wait=False, **s3_args("b1"))
    writes = len(deck.writes())
    again = run(services["s3"], wait=False, **s3_args("b1"))
    assert again["decision"] == "in_flight" and again["changed"] is False and again["operations"] == []
    assert again["operation"]["uid"] == first["operation"]["uid"] and again["operation"]["finished"] is False
    assert len(deck.writes()) == writes and len(deck.operations) == 1
    assert "still running" in again["diagnostics"]


def test_rerun_after_the_operation_finished_changes_nothing(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """P16: once the operation a wait=false run started has finished, the next run records it and reports no change
    (the create was reported by the run that started it); the record is complete."""
    deck.polls_to_finish = 1
    first = run(services["s3"], wait=False, **s3_args("b1"))
    writes = len(deck.writes())
    done = run(services["s3"], wait=False, **s3_args("b1"))  # its one read of the operation sees it finished
    assert done["changed"] is False and done["decision"] == "none" and done["status"] == "running"
    assert len(deck.writes()) == writes
    saved = record(state_path, "s3", "b1")
    assert saved["status"] == "present" and saved["operation"] == {"uid": first["operation"]["uid"], "name": "create",
                                                                   "done": True}  # fmt: skip


def test_two_operations_wait_for_the_first_and_return_after_the_last_runs(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """wait=false on a task that needs resume and then modify: resume is waited for (the modify could not run next
    to it), the modify only started; one run does what the task asks."""
    uid = deck.add_instance(90, "db1", "suspended", state={"params": {"resourceCPU": "500", "s3Uid": s3_uid,
                            "resourceRealm": REALM}, "out": {}, "subresources": {}})  # fmt: skip
    deck.polls_to_finish = 2
    result = run(
        services["postgres"],
        wait=False,
        resource_name="db1",
        s3_uid=s3_uid,
        resource_realm=REALM,
        resource_cpu=800,
        adopt_existing_on_create=True,
    )
    assert result["instance_uid"] == uid and result["operations"] == ["resume", "modify"]
    by_name = {op["operation"]: op for op in deck.operations.values()}
    assert by_name["resume"]["dtFinish"] and not by_name["modify"].get("dtFinish")
    assert result["operation"]["name"] == "modify" and result["operation"]["finished"] is False


def test_subresource_wait_false_then_in_flight(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """Sub-resources too: create_user with wait=false, then the same task while it runs reports it (P27, P17)."""
    parent = deck.add_instance(90, "db1")
    deck.polls_to_finish = 3
    user = {"parent_instance_uid": parent, "username": "app", "password": "pw-123456", "wait": False}
    started = run(services["postgres"], "subresource", "user", **user)
    assert started["operations"] == ["create_user"] and started["operation"]["finished"] is False
    assert started["subresource"]["exists"] is False  # not yet in the parent's live list
    writes = len(deck.writes())
    again = run(services["postgres"], "subresource", "user", **user)
    assert again["decision"] == "in_flight" and not again["changed"] and len(deck.writes()) == writes
    assert again["operation"]["uid"] == started["operation"]["uid"]


def test_delete_without_waiting_ends_the_record_on_the_next_run(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """state=deleted with wait=false keeps the record (the operation in flight, marked to end it); the next run
    that finds the delete succeeded removes the record, so the same name is then created anew without the
    warning about a lost instance."""
    deck.polls_to_finish = 1
    created = run(services["s3"], **s3_args("b1"))
    deck.polls_to_finish = 2
    gone = run(services["s3"], wait=False, resource_name="b1", state="deleted")
    assert gone["operations"] == ["delete"] and gone["operation"]["finished"] is False
    saved = record(state_path, "s3", "b1")
    assert saved["instance_uid"] == created["instance_uid"] and saved["operation"]["remove_record"] is True
    deck._poll(deck.operations[gone["operation"]["uid"].lower()])  # it runs on in the cloud meanwhile
    again = run(services["s3"], wait=False, **s3_args("b1"))  # and has finished when this run reads it
    assert record(state_path, "s3", "b1")["instance_uid"] == again["instance_uid"] != created["instance_uid"]
    assert again["operations"] == ["create"] and again["_warnings"] == []


def state_table(state_path: str, table: str) -> Dict[str, Any]:
    """One table of the state file (`instances`, `subresources`), read as JSON."""
    with open(state_path, encoding="utf-8") as handle:
        return dict(json.load(handle).get(table) or {})


def test_the_run_that_settles_a_delete_forgets_the_subresource_records(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str, s3_uid: str
) -> None:
    """Issue 27 (P27): a PostgreSQL deleted with wait=false keeps its record and those of its user and database while
    the delete runs; the next run, which finds the delete succeeded, removes all of them, as a delete that finishes
    in its own run does."""
    deck.polls_to_finish = 1
    parent = run(services["postgres"], resource_name="db1", s3_uid=s3_uid, resource_realm=REALM)["instance_uid"]
    run(services["postgres"], "subresource", "user", parent_instance_uid=parent, username="app", password="pw-123456")
    run(services["postgres"], "subresource", "database", parent_instance_uid=parent, db_name="app", owner="app")
    assert len(state_table(state_path, "subresources")) == 2
    deck.polls_to_finish = 2
    gone = run(services["postgres"], wait=False, resource_name="db1", state="deleted")
    assert gone["operations"] == ["delete"] and gone["operation"]["finished"] is False
    assert len(state_table(state_path, "subresources")) == 2 and len(state_table(state_path, "instances")) == 1
    deck._poll(deck.operations[gone["operation"]["uid"].lower()])  # it runs on in the cloud meanwhile
    writes = len(deck.writes())
    settled = run(services["postgres"], resource_name="db1", state="deleted")  # and has finished when this run reads it
    assert settled["operations"] == [] and len(deck.writes()) == writes
    assert state_table(state_path, "subresources") == {} and state_table(state_path, "instances") == {}
