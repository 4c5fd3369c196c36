"""Fault matrix: a playbook of 10 dummy resources under each fault kind of the emulator.

Every case: each task converges or fails with a clear, actionable message (never a traceback); the emulator holds
no duplicate instance and every live instance has a state record with its uid (reconciliation check); a re-run
without faults converges every resource to exactly one running instance. Faults that only delay or that the
client retries (P32-P34) must converge in the faulted run itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import assert_clear_failure, assert_reconciled

SEED = 20261129
DUMMY_ID = 1

# name -> (rules, the faulted run must converge)
# Count-limited transient rules fire at most 3 times (the P32 retry budget), so no request can exhaust it.
FAULTS: dict[str, tuple[list[dict[str, Any]], bool]] = {
    "unauthorized_401": (
        [
            {"kind": "unauthorized", "method": "GET", "count": 3},
            {"kind": "unauthorized", "method": "POST", "path": "/instanceOperationCfsParams", "count": 3},
            {"kind": "unauthorized", "method": "POST", "path": "/instances", "count": 3},
        ],
        True,
    ),
    "rate_limited_429": (
        [
            {"kind": "http", "status": 429, "retry_after": 1, "method": "GET", "count": 3},
            {
                "kind": "http",
                "status": 429,
                "retry_after": 2,
                "method": "POST",
                "path": "/instanceOperations",
                "count": 3,
            },
        ],
        True,
    ),
    "http_500": ([{"kind": "http", "status": 500, "probability": 0.08}], False),
    "http_502": ([{"kind": "http", "status": 502, "probability": 0.08}], False),
    "http_503": ([{"kind": "http", "status": 503, "probability": 0.08}], False),
    "http_504": ([{"kind": "http", "status": 504, "probability": 0.08}], False),
    "connection_reset": ([{"kind": "reset", "probability": 0.08}], False),
    "latency_spikes": ([{"kind": "latency", "ms": 400, "probability": 0.3}], True),
    "run_500_job_queued": ([{"kind": "executable", "probability": 0.5}], True),
    # the run is refused, nothing queued: the core re-sends it (never waits for an operation that never started)
    "concurrent_422": ([{"kind": "concurrent", "probability": 0.5}], True),
}


# The emulator answers in milliseconds, so 5 s cuts no answered request short. A write that gets no answer (a
# reset) is read back for request_timeout + 30 s (write_outcome.window): 35 s here instead of 90 s with the default.
REQUEST_TIMEOUT = 5


def dummy_task(prefix: str, **extra: Any) -> dict[str, Any]:
    args = {
        "resource_name": prefix + "-{{ inventory_hostname }}",
        "resource_realm": "dummy",
        "bodymessage": "v1",
        "request_timeout": REQUEST_TIMEOUT,
    }
    args.update(extra)
    return {"name": "dummy", "nubes.cloud.dummy": args}


def stage_rule(operation: str, stage: int, error: str) -> dict[str, Any]:
    """The dummy's `operation` fails once at `stage` (1-based) with `error`."""
    return {
        "kind": "fail_stage",
        "service": "dummy",
        "operation": operation,
        "stage": stage,
        "error": error,
        "count": 1,
    }


def names_of(fleet: Fleet, prefix: str) -> list[str]:
    return [f"{prefix}-{host}" for host in fleet.hosts]


def check_outcomes(results: dict[str, dict[str, Any]], must_converge: bool) -> int:
    """Every result is a success with a running instance or a clear failure; returns the failure count."""
    failures = 0
    for host, result in results.items():
        if result.get("failed"):
            assert not must_converge, f"{host} did not converge under a retryable fault: {result.get('msg')}"
            assert_clear_failure(result)
            failures += 1
        else:
            assert result.get("status") == "running", f"{host}: {result}"
    return failures


def converge_without_faults(emu: EmulatorServer, fleet: Fleet, prefix: str, **extra: Any) -> None:
    """The re-run without faults: every resource ends with exactly one running, tracked instance."""
    emu.clear_faults()
    rerun = fleet.run([dummy_task(prefix, **extra)]).last()
    assert len(rerun) == fleet.size
    for host, result in rerun.items():
        assert not result.get("failed"), f"{host} did not converge on the re-run: {result.get('msg')}"
        assert result["status"] == "running"
    live = assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", names_of(fleet, prefix))
    assert len(live) == fleet.size
    assert {i["explainedStatus"] for i in live} == {"running"}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_playbook_of_ten_under_fault(emu: EmulatorServer, fleet: Fleet, prefix: str, fault: str) -> None:
    """P32/P33/P34, P42 (beyond): 10 resources under one fault kind converge or fail clearly; no duplicate,
    nothing untracked; a re-run without faults converges."""
    rules, must_converge = FAULTS[fault]
    emu.set_faults(rules, seed=SEED)
    run = fleet.run([dummy_task(prefix)])
    fired = sum(rule.get("fired", 0) for rule in emu.faults())
    assert fired > 0, f"the fault {fault} never fired: {emu.faults()}"
    results = run.last()
    assert len(results) == fleet.size, run.stdout[-3000:]
    failures = check_outcomes(results, must_converge)
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", names_of(fleet, prefix))
    if failures:
        converge_without_faults(emu, fleet, prefix)


def test_operations_failing_at_each_stage(emu: EmulatorServer, fleet: Fleet, prefix: str) -> None:
    """P27, P42 (beyond): create and modify operations failing at each of their stages (fault `fail_stage`) end
    in a clear failure carrying the API's errorLog; nothing is duplicated or untracked. Re-runs: a failed modify
    is re-sent and converges; an instance whose create failed is kept, tracked and reported (P27: failed ->
    error, with what to do), never re-created beside it."""
    stages = (1, 2, 3)  # the dummy's create/modify stages: Подготовка, Заполнение данных, Запись в Vault
    create_rules = [
        {
            "kind": "fail_stage",
            "service": "dummy",
            "operation": "create",
            "stage": s,
            "error": f"stage{s} broke",
            "count": 1,
        }
        for s in stages
    ]
    emu.set_faults(create_rules, seed=SEED)
    created = fleet.run([dummy_task(prefix)]).last()
    failed_create = sorted(h for h, r in created.items() if r.get("failed"))
    assert len(failed_create) == len(stages), {h: r.get("msg") for h, r in created.items()}
    for host in failed_create:
        assert_clear_failure(created[host])
        assert "broke" in created[host]["msg"]
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", names_of(fleet, prefix))

    modify_rules = [
        {
            "kind": "fail_stage",
            "service": "dummy",
            "operation": "modify",
            "stage": s,
            "error": f"mod{s} broke",
            "count": 1,
        }
        for s in stages
    ]
    emu.set_faults(modify_rules, seed=SEED)
    modified = fleet.run([dummy_task(prefix, bodymessage="v2")]).last()
    assert sum(rule.get("fired", 0) for rule in emu.faults()) == len(stages)
    check_outcomes({h: r for h, r in modified.items() if h not in failed_create}, must_converge=False)
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", names_of(fleet, prefix))

    emu.clear_faults()
    final = fleet.run([dummy_task(prefix, bodymessage="v2")]).last()
    live = assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", names_of(fleet, prefix))
    assert len(live) == fleet.size  # the failed ones were not re-created beside the originals
    for host, result in final.items():
        if host in failed_create:
            assert result.get("failed") and "failed" in result["msg"], result
            assert_clear_failure(result)
        else:
            assert not result.get("failed"), f"{host}: {result.get('msg')}"
            assert result["instance"]["params"]["bodymessage"] == "v2"
