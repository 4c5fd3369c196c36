"""operation_wait (the module nubes.cloud.operation_info): which operations a play's earlier results name, and
reading or waiting for them against the stubbed deck-api (the clock never sleeps)."""

from __future__ import annotations

import uuid
from typing import Any, Dict, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operation_wait import collect, run_operation_info
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from tests.unit.nubes.conftest import ENDPOINT, FakeClock, RunFactory
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"
A, B, C = (str(uuid.uuid4()) for _index in range(3))


def result(uid: str, name: str = "create", timeout: int = 600) -> Dict[str, Any]:
    """A registered result of an instance task run with wait=false (the fields collect() reads)."""
    operation = {"uid": uid, "name": name, "finished": False, "duration": None, "timeout": timeout}
    return {"changed": True, "operations": [name], "operation": operation, "decision": name}


def test_collect_takes_results_loops_operations_and_uids_in_order_once() -> None:
    """Registered results, a loop's result (its items), an `operation` dict and a bare uid; each operation once;
    results that started nothing (no-op, check mode, skipped) add nothing."""
    loop = {"results": [result(B), {"skipped": True}, {**result(A), "item": "again"}], "changed": True}
    no_op = {"changed": False, "operations": [], "operation": None}
    wanted = collect(None, [result(A, timeout=300), loop, no_op, {"uid": C.upper(), "name": "modify"}, None])
    assert [w.uid for w in wanted] == [A, B, C.upper()]
    assert [w.where for w in wanted] == ["operations[0].operation.uid", "operations[1].results[0].operation.uid",
                                         "operations[3].uid"]  # fmt: skip
    assert (wanted[0].name, wanted[0].timeout, wanted[2].name, wanted[2].timeout) == ("create", 300, "modify", None)
    assert [w.uid for w in collect(A, None)] == [A]
    assert [w.uid for w in collect(None, loop)] == [B, A]  # a single (loop) result without a list
    assert collect(None, [no_op, {"skipped": True}]) == []


@pytest.mark.parametrize(
    ("operation_uid", "operations", "message"),
    [
        ("db1", None, "operation_uid must be an operation UUID"),
        (None, ["not-a-uid"], r"operations\[0\] must be an operation UUID"),
        (None, [{"changed": False}], r"operations\[0\] is not the result of a nubes.cloud instance"),
        (None, [{"failed": True, "msg": "boom"}], r"operations\[0\] is the result of a task that failed.*boom"),
        (None, [{"results": [{"uid": "x"}]}], r"operations\[0\].results\[0\].uid must be an operation UUID"),
        (None, [42], r"operations\[0\]: expected an earlier task's registered result"),
    ],
)
def test_collect_refuses_what_names_no_operation(operation_uid: Any, operations: Any, message: str) -> None:
    """Bad input is an error naming the item, before any API call."""
    with pytest.raises(InputError, match=message):
        collect(operation_uid, operations)


@pytest.fixture
def info(deck: FakeDeck, clock: FakeClock) -> Any:
    def _info(**params: Any) -> Dict[str, Any]:
        full = {"api_endpoint": ENDPOINT, "api_token": deck.token, "wait": False, **params}
        return run_operation_info(full, transport=deck.transport, poller=Poller(clock=clock, sleep=clock.sleep))

    return _info


def started(run: RunFactory, services: Dict[str, Any], names: List[str]) -> List[Dict[str, Any]]:
    return [run(services["s3"], wait=False, resource_name=n, display_name=n, resource_realm=REALM) for n in names]


def test_read_without_waiting(run: RunFactory, services: Dict[str, Any], deck: FakeDeck, info: Any) -> None:
    """wait=false (the default): each operation read once and reported as it is; nothing written."""
    deck.polls_to_finish = 5
    first = started(run, services, ["b1"])[0]
    writes = len(deck.writes())
    report = info(operations=[first])
    assert report["changed"] is False and report["finished"] is False
    (view,) = report["operations"]
    assert view["uid"] == first["operation"]["uid"] and view["name"] == "create"
    assert view["instance_uid"] == first["instance_uid"] and view["status"] == "running" and not view["finished"]
    assert len(deck.writes()) == writes


def test_wait_for_several_operations(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, info: Any
) -> None:
    """wait=true: every operation is waited for (the modules' own poll schedule), all reported succeeded."""
    deck.polls_to_finish = 4
    results = started(run, services, ["b1", "b2", "b3"])
    report = info(operations=[results[0], {"results": results[1:]}], wait=True)
    assert report["finished"] is True
    assert [v["status"] for v in report["operations"]] == ["succeeded"] * 3
    assert [v["uid"] for v in report["operations"]] == [r["operation"]["uid"] for r in results]
    assert all(deck.operations[r["operation"]["uid"].lower()]["dtFinish"] for r in results)
    assert clock.sleeps and max(clock.sleeps) <= 5.0  # the adaptive Poller, capped at 5 s


def test_a_failed_operation_fails_with_its_own_error_text(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, info: Any
) -> None:
    """The failure names the operation and carries the API's errorLog and stage; the others are still waited for
    and every operation is in the error's details."""
    deck.polls_to_finish = 2
    results = started(run, services, ["b1", "b2"])
    second = deck.operations[results[1]["operation"]["uid"].lower()]
    deck._poll(second)
    deck._poll(second)  # b2's create has succeeded in the cloud meanwhile
    deck.fail_operation["create"] = "квота исчерпана (quota exceeded)"  # b1's fails when it finishes
    with pytest.raises(NubesError) as caught:
        info(operations=results, wait=True)
    message = caught.value.msg
    assert "квота исчерпана (quota exceeded)" in message and results[0]["operation"]["uid"] in message
    assert "Подготовка среды" in message
    views = caught.value.details["operations"]
    assert [v["status"] for v in views] == ["failed", "succeeded"]
    assert views[0]["error_log"] == "квота исчерпана (quota exceeded)"


def test_a_finished_failure_fails_also_when_only_reading(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, info: Any
) -> None:
    """Reading (wait=false) an operation that has failed fails the task the same way."""
    deck.polls_to_finish = 1
    deck.fail_operation["create"] = "no capacity"
    first = started(run, services, ["b1"])[0]
    with pytest.raises(NubesError, match="no capacity"):
        info(operation_uid=first["operation"]["uid"])


def test_timeout_is_one_deadline_and_defaults_to_the_results(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, clock: FakeClock, info: Any
) -> None:
    """P8: the operations' own timeouts (from the results) bound the wait by default; wait_timeout bounds all of
    them together, and the error names each one that did not finish."""
    deck.polls_to_finish = 10**6
    results = started(run, services, ["b1", "b2"])
    for each in results:
        each["operation"]["timeout"] = 40
    with pytest.raises(NubesError, match="did not finish within wait_timeout=40 s") as caught:
        info(operations=results, wait=True)
    assert 40 <= clock.now < 41 and "2 of 2 operations did not succeed" in caught.value.msg
    start = clock.now
    with pytest.raises(NubesError, match="wait_timeout=7 s"):
        info(operations=results, wait=True, wait_timeout=7)
    assert clock.now - start < 8


def test_delete_follow_up_counts_as_success(deck: FakeDeck, info: Any) -> None:
    """deck-api 5.4: a delete that ends `isSuccessful: false` with `Услуга удалена` succeeded, as in the modules."""
    uid = str(uuid.uuid4())
    deck.operations[uid] = {
        "instanceOperationUid": uid,
        "instanceUid": deck.add_instance(12, "gone", "deleted"),
        "operation": "delete",
        "isSuccessful": False,
        "errorLog": "Услуга удалена",
        "dtFinish": "2026-01-01T00:00:01",
    }
    report = info(operation_uid=uid)
    assert report["operations"][0]["status"] == "succeeded" and report["finished"] is True


def test_the_token_never_appears(deck: FakeDeck, info: Any) -> None:
    """The token is redacted from errors (an unknown operation: the API's 404 text)."""
    with pytest.raises(NubesError) as caught:
        info(operation_uid=str(uuid.uuid4()))
    assert deck.token not in caught.value.msg and "operation" in caught.value.msg
