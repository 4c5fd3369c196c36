"""The task skeleton's steps take and return values (issue 23): `find` returns what it found, `compare` and
`situation` are pure, `plan` returns a plan, `execute` the outcome, and `result` is built from those values
(stubbed deck-api, a real state file)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.instance_task import InstanceTask
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import RECORD_REMOVE, decide
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from tests.unit.nubes.conftest import ENDPOINT, FakeClock, RunFactory, stored_record
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"


@pytest.fixture
def created(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> str:
    """A postgres instance `db1` (a suspendable service) that this state created (its record holds the uid)."""
    s3_uid = deck.add_instance(12, "backups")
    args = {"resource_name": "db1", "s3_uid": s3_uid, "resource_realm": REALM, "json_parameters": {}}
    return str(run(services["postgres"], **args)["instance_uid"])


def task(services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, state_path: str, **params: Any) -> InstanceTask:
    full: Dict[str, Any] = {
        "api_endpoint": ENDPOINT,
        "api_token": deck.token,
        "state_path": state_path,
        "workspace": "default",
        "resource_name": "db1",
        "state": "absent",
        "suspend_on_destroy": True,
    }
    full.update(params)
    poller = Poller(clock=clock, sleep=clock.sleep)
    return InstanceTask(TaskContext(services["postgres"], full, transport=deck.transport, poller=poller))


def recorded(state_path: str) -> Any:
    return stored_record(state_path, "postgres", "db1")


def test_each_step_returns_a_value_and_situation_is_pure(
    created: str, services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, state_path: str
) -> None:
    """P29 through the steps one by one: `find` returns the record and the live instance; `compare` and `situation`
    are pure (the same value twice, no request, no warning); `plan` writes nothing; `execute` returns what it did
    (the suspend, the record removed), and `result` is built from those values."""
    steps = task(services, deck, clock, state_path)
    found = steps.find()
    assert found.instance is not None and found.instance.uid == created and found.live_read
    assert found.record is not None and found.record.instance_uid == created and found.own.in_flight == ""
    requests = len(deck.log)
    compared = steps.compare(found)
    situation = steps.situation(found, compared)
    assert steps.situation(found, steps.compare(found)) == situation
    assert len(deck.log) == requests and steps.ctx.warnings == []
    assert situation.recorded and situation.status == "running"
    decision = decide(situation)
    assert decision.operations == ("suspend",) and decision.record == RECORD_REMOVE
    writes = len(deck.writes())
    plan = steps.plan(found, compared, decision)
    assert plan.decision == decision and plan.changed and plan.after == {}
    assert len(deck.writes()) == writes and recorded(state_path) is not None  # the plan wrote nothing
    outcome = steps.execute(found, plan)
    assert outcome.operations == ["suspend"] and outcome.record is None and outcome.finished
    assert recorded(state_path) is None and deck.instances[created]["explainedStatus"] == "suspended"
    result = steps.result(found, plan, outcome, "the diagnostics")
    assert result["changed"] and result["operations"] == ["suspend"] and result["instance_uid"] == created
    assert result["status"] == "suspended" and result["diagnostics"] == "the diagnostics"


def test_find_returns_an_identity_conflict_without_reading(
    created: str, services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, state_path: str
) -> None:
    """K4b: an instance_uid that differs from the recorded one is found as a conflict, with no API request, and
    decide() refuses it with the seed's words."""
    other = deck.add_instance(90, "elsewhere")
    steps = task(services, deck, clock, state_path, instance_uid=other)
    deck.log.clear()
    found = steps.find()
    assert found.resolved.rule == "K4b" and not found.live_read and found.instance is None
    assert deck.log == []
    decision = decide(steps.situation(found, steps.compare(found)))
    assert decision.error and decision.message == f'cannot change resource identity (old="{created}", new="{other}")'


def test_a_forget_only_destroy_is_found_without_reading(
    created: str, services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, state_path: str
) -> None:
    """P29: with suspend_on_destroy=false the find step reads nothing (lifecycle.reads_live) and says so; decide()
    forgets the record and the instance keeps running."""
    steps = task(services, deck, clock, state_path, suspend_on_destroy=False)
    deck.log.clear()
    found = steps.find()
    assert not found.live_read and found.instance is not None and found.instance.uid == created
    assert deck.log == []
    situation = steps.situation(found, steps.compare(found))
    assert not situation.live_read
    decision = decide(situation)
    assert decision.operations == () and decision.record == RECORD_REMOVE and "keeps running" in decision.warning
