"""Unit tests: run loop, component states, Ready reasons, timeout and backoff (reference 1.3, 6.3; C6, C7, C14).

The engine calls are stubbed here; tests/integration/k8s runs the loop against a real API server.
"""

from __future__ import annotations

import datetime
from typing import Any, List, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.k8s import engine
from ansible_collections.nubes.cloud.plugins.module_utils.k8s import run as run_mod
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import CallCounter
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import ApiError, ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.run import Backoff, ComponentStatus, run_until_done


def test_backoff_sequence() -> None:
    """6.3: 5 fast tries below 1 s, then 15 x 1 s, then 30 x 2 s, then every 10 s."""
    backoff = Backoff()
    delays = [backoff.next_delay() for _try in range(60)]
    assert delays[:5] == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.8])
    assert delays[5:20] == [1.0] * 15
    assert delays[20:50] == [2.0] * 30
    assert delays[50:] == [10.0] * 10
    backoff.reset()
    assert backoff.next_delay() == pytest.approx(0.05)


class FakeApi:
    def __init__(self) -> None:
        self.calls = CallCounter()


class FakeCtx:
    def __init__(self) -> None:
        self.api = FakeApi()
        self.clock = lambda: datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: List[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _run(monkeypatch: pytest.MonkeyPatch, results: List[Any], operation: str = "apply", timeout: float = 100.0):
    seq = iter(results)

    def step(*_args: Any) -> Any:
        value = next(seq)
        if isinstance(value, Exception):
            raise value
        return value

    monkeypatch.setattr(engine, "apply", step)
    monkeypatch.setattr(engine, "delete", step)
    monkeypatch.setattr(engine, "is_deletion_allowed", lambda *_a: (True, ""))
    persisted: List[Tuple[str, str]] = []
    clock = Clock()
    inventory: List[InventoryItem] = []

    def persist(inv: List[InventoryItem], status: ComponentStatus) -> None:
        persisted.append((status.state, status.reason))

    result = run_until_done(
        operation,
        inventory,
        FakeCtx(),  # type: ignore[arg-type]
        persist,
        objects=[],
        timeout=timeout,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )
    return result, persisted, clock


def test_apply_until_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """C7: Processing/Processing while not done, then Ready with Ready=True; persisted after every step."""
    result, persisted, _clock = _run(monkeypatch, [False, False, True])
    assert result.done and result.steps == 3
    assert persisted == [("Processing", "Processing"), ("Processing", "Processing"), ("Ready", "Ready")]
    assert result.status.ready_status == "True"
    assert result.status.processing_since is None
    assert result.status.to_dict()["conditions"][0]["type"] == "Ready"


def test_timeout_turns_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """C14 / 1.3: Processing past the timeout is state Error with reason Timeout and Ready=False."""
    result, persisted, clock = _run(monkeypatch, [False] * 1000, timeout=5.0)
    assert not result.done
    assert (result.status.state, result.status.reason, result.status.ready_status) == ("Error", "Timeout", "False")
    assert persisted[-1] == ("Error", "Timeout")
    assert clock.now >= 5.0


def test_non_retriable_error_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    """1.3: a non-retriable error is state Error, reason Error, and ends the run with the message."""
    result, persisted, _clock = _run(monkeypatch, [False, ValidationError("bad object")])
    assert (result.status.state, result.status.reason) == ("Error", "Error")
    assert result.error == "bad object"
    assert persisted[-1] == ("Error", "Error")


def test_retriable_error_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """1.3: a conflict is retried (Pending/Retrying) and the run continues to Ready."""
    conflict = ApiError("PUT", "/api/v1/x", 409, {"reason": "Conflict", "message": "changed"})
    result, persisted, _clock = _run(monkeypatch, [conflict, True])
    assert result.done
    assert persisted == [("Pending", "Retrying"), ("Ready", "Ready")]


def test_delete_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """1.3: deletion in progress is Deleting/DeletionProcessing; a retriable error is DeletionPending."""
    conflict = ApiError("DELETE", "/api/v1/x", 409)
    result, persisted, _clock = _run(monkeypatch, [False, conflict, True], operation="delete")
    assert result.done
    assert persisted[:2] == [("Deleting", "DeletionProcessing"), ("DeletionPending", "DeletionRetrying")]


def test_delete_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """1.3 / 7.6: blocked deletion is Deleting/DeletionBlocked until the timeout."""
    monkeypatch.setattr(run_mod.engine, "is_deletion_allowed", lambda *_a: (False, "Deletion blocked: foreign"))
    clock = Clock()
    states: List[Tuple[str, str]] = []
    result = run_until_done(
        "delete",
        [],
        FakeCtx(),  # type: ignore[arg-type]
        lambda _inv, status: states.append((status.state, status.reason)),
        timeout=3.0,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )
    assert not result.done
    assert ("Deleting", "DeletionBlocked") in states
    assert result.status.reason == "Timeout"
