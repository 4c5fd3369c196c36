"""Operations end to end and polling (deck-api 5.1-5.4): params push, validate, run, poll, quirks."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    NubesError,
    OperationFailedError,
    OperationTimeoutError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import CfsParam, Operation
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import (
    OperationExecutor,
    Poller,
    check_success,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryBudget, RetryPolicy
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import value_plan
from tests.unit.nubes.conftest import ENDPOINT, FakeClock
from tests.unit.nubes.fake_deck import FakeDeck


def executor_for(deck: FakeDeck, clock: FakeClock) -> OperationExecutor:
    client = ApiClient(ClientConfig(ENDPOINT, deck.token), policy=RetryPolicy(scale=0), transport=deck.transport)
    return OperationExecutor(DeckApi(client), Poller(clock=clock, sleep=clock.sleep))


def cfs(
    code: str,
    pid: int,
    value: Optional[str] = None,
    default: Optional[str] = None,
    type_: str = "string",
    uid: Optional[str] = None,
    **extra: Any,
) -> CfsParam:
    data: Dict[str, Any] = {
        "svcOperationCfsParam": code,
        "svcOperationCfsParamId": pid,
        "paramValue": value,
        "defaultValue": default,
        "dataType": type_,
        "instanceOperationCfsParamUid": uid,
    }
    data.update(extra)
    return CfsParam(data)


def test_value_plan_sends_all_params() -> None:
    """P38: every param of the op is sent: task value, else current value, else API default, else zero (P35)."""
    params = [
        cfs("cpu", 1, value="500"),
        cfs("mem", 2, value="512"),
        cfs("newParam", 3, default="7", type_="integer"),
        cfs("flag", 4, type_="boolean"),
        cfs("tags", 5, type_="array"),
    ]
    plan = {p.code: v for p, v in value_plan(params, {"cpu": "1000"})}
    assert plan == {"cpu": "1000", "mem": "512", "newParam": "7", "flag": "false", "tags": "[]"}


def test_value_plan_skips_rows_already_holding_the_value_and_secrets() -> None:
    """A row that already holds the value is not re-sent; an unmentioned secret is never reset."""
    params = [cfs("cpu", 1, value="500", uid="row-1"), cfs("password", 2, isSecret=True)]
    assert value_plan(params, {}) == []
    plan = value_plan(params, {"cpu": "600", "password": "pw"})
    assert [(p.code, v, p.value_uid) for p, v in plan] == [("cpu", "600", "row-1"), ("password", "pw", None)]


def test_value_plan_fits_map_fixed_keys_to_the_operation() -> None:
    """P41: sub-keys the operation's dataDescriptor does not know are dropped (tolerance on either side)."""
    descriptor = {"params": [{"svcOperationCfsParam": "type"}, {"svcOperationCfsParam": "durationCA"}]}
    param = cfs(
        "tls", 1, value='{"type":"off","durationCA":"1","s3BackupUid":""}', type_="map-fixed", dataDescriptor=descriptor
    )
    assert value_plan([param], {}) == [(param, '{"durationCA":"1","type":"off"}')]


def test_value_plan_takes_live_values_before_defaults_and_zero() -> None:
    """P38 WithDefaults: a param the task leaves out takes the live value, else the API default; the zero value
    (P35) only when neither exists. This is what keeps a user's role when only the password changes."""
    params = [
        cfs("username", 1),
        cfs("password", 2, isSecret=True),
        cfs("role", 3),
        cfs("connectionLimit", 4, type_="integer"),
        cfs("newParam", 5, default="7", type_="integer"),
        cfs("other", 6, type_="integer"),
    ]
    live = {"username": "app", "role": "owner", "connectionLimit": "-1"}
    plan = {p.code: v for p, v in value_plan(params, {"username": "app", "password": "pw"}, live)}
    assert plan == {
        "username": "app",
        "password": "pw",
        "role": "owner",
        "connectionLimit": "-1",
        "newParam": "7",
        "other": "0",
    }


def test_value_plan_builds_map_fixed_defaults_on_modify() -> None:
    """P36 on modify too: an absent or "{}" map-fixed value becomes the dataDescriptor's defaults."""
    descriptor = {
        "params": [
            {"svcOperationCfsParam": "type", "defaultValue": "off"},
            {"svcOperationCfsParam": "durationCA", "defaultValue": 175200},
        ]
    }
    param = cfs("tls", 1, type_="map-fixed", dataDescriptor=descriptor)
    assert value_plan([param], {}) == [(param, '{"durationCA":"175200","type":"off"}')]
    assert value_plan([param], {"tls": "{}"}) == [(param, '{"durationCA":"175200","type":"off"}')]
    assert value_plan([param], {}, {"tls": '{"type":"external"}'}) == [
        (param, '{"durationCA":"175200","type":"external"}')
    ]


def test_value_plan_never_fills_in_a_placeholder_default() -> None:
    """P35, P38 (issue 23): a param whose API default the spec flags a placeholder (flask's modify requires jsonEnv,
    with the default `{ "param": "value" }`) takes the task's value, else the live one, else its zero value; never
    the placeholder. A flagged sub-param's default is left out of a map-fixed value too."""
    env = cfs("jsonEnv", 1, default='{ "param": "value" }', type_="json")
    assert value_plan([env], {}, {}, ["jsonEnv"]) == [(env, "{}")]
    assert value_plan([env], {}, {"jsonEnv": '{"A":"1"}'}, ["jsonEnv"]) == [(env, '{"A":"1"}')]
    assert value_plan([env], {"jsonEnv": '{"B":"2"}'}, {}, ["jsonEnv"]) == [(env, '{"B":"2"}')]
    assert value_plan([env], {}) == [(env, '{ "param": "value" }')]  # unflagged: the API default (P38)
    descriptor = {
        "params": [
            {"svcOperationCfsParam": "host", "defaultValue": "web01"},
            {"svcOperationCfsParam": "port", "defaultValue": "22"},
        ]
    }
    conn = cfs("conn", 2, type_="map-fixed", dataDescriptor=descriptor)
    assert value_plan([conn], {}, {}, ["conn.host"]) == [(conn, '{"port":"22"}')]


def test_full_flow_posts_then_puts_existing_rows(deck: FakeDeck, clock: FakeClock, services: Dict[str, Any]) -> None:
    """create op -> read cfsParams -> POST per param (PUT with a row uid) -> validate-cfs -> run -> poll."""
    uid = deck.add_instance(12, "x", "not created")
    executor = executor_for(deck, clock)
    op_uid = executor.start(uid, "create", 120, {"displayName": "x", "resourceRealm": "r"})
    result = executor.wait(op_uid, "create", 60)
    assert result.finished and result.duration == 0.5
    assert deck.log == [
        ("GET", "/instances"),  # a fresh client's first request is a write: it reads the collection first
        ("POST", "/instanceOperations"),
        ("GET", "/instanceOperations/" + op_uid),
        ("POST", "/instanceOperationCfsParams"),
        ("POST", "/instanceOperationCfsParams"),
        ("GET", f"/instanceOperations/{op_uid}/validate-cfs"),
        ("POST", f"/instanceOperations/{op_uid}/run"),
        ("GET", "/instanceOperations/" + op_uid),
    ]
    op = deck.operations[op_uid]
    op.update({"dtSubmit": None, "dtFinish": None})
    for row in op["cfsParams"]:
        row["paramValue"] = "old"
    deck.log.clear()
    executor.start(uid, "create", 120, {"displayName": "x", "resourceRealm": "r"}, existing_uid=op_uid)
    assert [m for m, p in deck.log if p == "/instanceOperationCfsParams"] == ["PUT", "PUT"]


def test_op_create_conflict_with_location_reuses_the_operation(deck: FakeDeck, clock: FakeClock) -> None:
    """deck-api 5.4: 409/400 with a Location naming an op = reuse that op."""
    uid = deck.add_instance(12, "x")
    existing = deck._create_op({"instanceUid": uid, "operation": "suspend"}).headers["Location"][2:]
    deck.hooks.append(
        lambda r: (
            httpx.Response(409, headers={"Location": "./" + existing}, json={"ERROR": "exists"})
            if r.method == "POST" and r.url.path.endswith("/instanceOperations")
            else None
        )
    )
    assert executor_for(deck, clock).start(uid, "suspend", None, {}) == existing


@pytest.mark.parametrize(
    ("status", "text"),
    [(422, "Concurrent operations are not allowed"), (500, "key [EXECUTABLE] doesn't exist")],
)
def test_run_quirks_mean_poll(deck: FakeDeck, clock: FakeClock, status: int, text: str) -> None:
    """deck-api 5.4: run 422 `Concurrent operations` = already running; 500 `key [EXECUTABLE]...` = queued."""
    uid = deck.add_instance(12, "x")

    def quirk(request: httpx.Request) -> Optional[httpx.Response]:
        if request.url.path.endswith("/run"):
            op = deck.operations[request.url.path.split("/")[-2]]
            op.update({"dtSubmit": "2026", "_polls": 0})  # the job was queued anyway
            return httpx.Response(status, json={"ERROR": text})
        return None

    deck.hooks.append(quirk)
    executor = executor_for(deck, clock)
    op_uid = executor.start(uid, "suspend", None, {})
    assert executor.wait(op_uid, "suspend", 60).finished
    assert deck.instances[uid]["explainedStatus"] == "suspended"


def test_refused_runs_are_resent_only_inside_the_retry_budget(deck: FakeDeck, clock: FakeClock) -> None:
    """Beyond the seed (issue 16): a run refused with 422 `Concurrent operations` (nothing queued) is re-sent after
    poll pauses paid from the client's one retry budget; when it is used up, the task fails saying what to do."""
    uid = deck.add_instance(12, "x")
    runs: List[str] = []

    def refuse(request: httpx.Request) -> Optional[httpx.Response]:
        if request.url.path.endswith("/run"):
            runs.append(request.url.path)
            return httpx.Response(422, json={"ERROR": "Concurrent operations are not allowed"})
        return None

    deck.hooks.append(refuse)
    executor = executor_for(deck, clock)
    executor.api.client.budget = RetryBudget(10.0)
    with pytest.raises(NubesError, match=r"retry budget \(10 s\) is used up"):
        executor.start(uid, "suspend", None, {})
    assert sum(clock.sleeps) <= 10.0
    assert executor.api.client.budget.remaining < 5.0  # the next pause (5 s at most) no longer fits
    assert len(runs) == len(clock.sleeps) + 1


def test_other_run_errors_fail_with_the_api_text(deck: FakeDeck, clock: FakeClock) -> None:
    uid = deck.add_instance(12, "x")
    deck.hooks.append(
        lambda r: (
            httpx.Response(500, json={"ERROR": "Cannot connect to the orchestrator"})
            if r.url.path.endswith("/run")
            else None
        )
    )
    with pytest.raises(Exception, match="Cannot connect to the orchestrator"):
        executor_for(deck, clock).start(uid, "suspend", None, {})


def test_delete_follow_up_marker_is_success() -> None:
    """deck-api 5.4: `Услуга удалена` in errorLog after a delete means success."""
    op = Operation({"dtFinish": "x", "isSuccessful": False, "errorLog": "Услуга удалена"})
    check_success(op, "delete")
    with pytest.raises(OperationFailedError):
        check_success(op, "modify")


def test_null_result_after_finish_is_a_failure_with_log_and_stage() -> None:
    """deck-api 5.3: null isSuccessful after dtFinish = failure; errorLog and the first failed stage reported."""
    op = Operation(
        {
            "instanceOperationUid": "op-1",
            "dtFinish": "2026",
            "isSuccessful": None,
            "errorLog": "job exited 2",
            "stages": [{"stage": "ok", "isSuccessful": True}, {"stage": "Подготовка среды", "isSuccessful": False}],
        }
    )
    with pytest.raises(OperationFailedError) as info:
        check_success(op, "create")
    assert "job exited 2" in info.value.msg
    assert "Подготовка среды" in info.value.msg
    assert "finished without a result" in info.value.msg


def test_failed_operation_raises(deck: FakeDeck, clock: FakeClock) -> None:
    uid = deck.add_instance(12, "x")
    deck.fail_operation["suspend"] = "disk quota exceeded"
    executor = executor_for(deck, clock)
    op_uid = executor.start(uid, "suspend", None, {})
    with pytest.raises(OperationFailedError, match="disk quota exceeded"):
        executor.wait(op_uid, "suspend", 60)


def test_polling_adapts_and_is_bounded_by_wait_timeout(deck: FakeDeck, clock: FakeClock) -> None:
    """Polling starts fast (0.2 s), grows, is capped at 5 s and stops at wait_timeout with a clear error."""
    deck.polls_to_finish = 10**6
    uid = deck.add_instance(12, "x")
    executor = executor_for(deck, clock)
    op_uid = executor.start(uid, "suspend", None, {})
    with pytest.raises(OperationTimeoutError) as info:
        executor.wait(op_uid, "suspend", 30)
    assert clock.sleeps[0] == 0.2
    assert all(b >= a for a, b in zip(clock.sleeps, clock.sleeps[1:-1]))
    assert max(clock.sleeps) <= 5.0
    assert sum(clock.sleeps) == pytest.approx(30)
    assert "wait_timeout=30" in info.value.msg and "re-run the task" in info.value.msg


@pytest.mark.parametrize("duration", [0.5, 2.0, 10.0, 60.0, 600.0])
def test_polling_sees_a_finished_operation_within_a_tenth_of_its_duration(duration: float) -> None:
    """An operation finishing after `duration` s is seen at most max(0.2 s, 10 %) later (5 s cap for long ones)."""
    now = [0.0]
    poller = Poller(clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    for _poll in poller.intervals(timeout=3600):
        if now[0] >= duration:
            break
    assert now[0] - duration <= min(max(0.2, duration * 0.1 + 1e-9), 5.0)
