"""Unit tests: run loop, component states, Ready reasons, timeout and backoff (reference 1.3, 6.3; C6, C7, C14).

The reconciler steps are scripted here; tests/integration/reconciler and tests/integration/component run
the loop against a real API server.
"""

from __future__ import annotations

import datetime
from typing import Any, List, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.loop import Backoff, run_until_done
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import CallCounter
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import api_error
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem


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


class ScriptedReconciler:
    """Answers apply/delete steps from a script (a value, or an exception to raise)."""

    def __init__(self, results: List[Any], allowed: Tuple[bool, str] = (True, "")) -> None:
        self.results = iter(results)
        self.allowed = allowed
        self.api = FakeApi()

    def _step(self, *_args: Any) -> Any:
        value = next(self.results)
        if isinstance(value, Exception):
            raise value
        return value

    apply = _step
    delete = _step

    def is_deletion_allowed(self, *_args: Any) -> Tuple[bool, str]:
        return self.allowed

    def now(self) -> datetime.datetime:
        return datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: List[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _run(results: List[Any], operation: str = "apply", timeout: float = 100.0):
    persisted: List[Tuple[str, str]] = []
    clock = Clock()
    inventory: List[InventoryItem] = []

    def persist(inv: List[InventoryItem], status: ComponentStatus) -> None:
        persisted.append((status.state, status.reason))

    result = run_until_done(
        operation,
        inventory,
        ScriptedReconciler(results),  # type: ignore[arg-type]
        persist,
        objects=[],
        timeout=timeout,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )
    return result, persisted, clock


def test_apply_until_ready() -> None:
    """C7: Processing/Processing while not done, then Ready with Ready=True; persisted after every step."""
    result, persisted, _clock = _run([False, False, True])
    assert result.done and result.steps == 3
    assert persisted == [("Processing", "Processing"), ("Processing", "Processing"), ("Ready", "Ready")]
    assert result.status.ready_status == "True"
    assert result.status.processing_since is None
    assert result.status.to_dict()["conditions"][0]["type"] == "Ready"


def test_timeout_turns_error() -> None:
    """C14 / 1.3: Processing past the timeout is state Error with reason Timeout and Ready=False."""
    result, persisted, clock = _run([False] * 1000, timeout=5.0)
    assert not result.done
    assert (result.status.state, result.status.reason, result.status.ready_status) == ("Error", "Timeout", "False")
    assert persisted[-1] == ("Error", "Timeout")
    assert clock.now >= 5.0


def test_non_retriable_error_stops() -> None:
    """1.3: a non-retriable error is state Error, reason Error, and ends the run with the message."""
    result, persisted, _clock = _run([False, ValidationError("bad object")])
    assert (result.status.state, result.status.reason) == ("Error", "Error")
    assert result.error == "bad object"
    assert persisted[-1] == ("Error", "Error")


def test_retriable_error_retries() -> None:
    """1.3: a conflict is retried (Pending/Retrying) and the run continues to Ready."""
    conflict = api_error("PUT", "/api/v1/x", 409, {"reason": "Conflict", "message": "changed"})
    result, persisted, _clock = _run([conflict, True])
    assert result.done
    assert persisted == [("Pending", "Retrying"), ("Ready", "Ready")]


def test_delete_states() -> None:
    """1.3: deletion in progress is Deleting/DeletionProcessing; a retriable error is DeletionPending."""
    conflict = api_error("DELETE", "/api/v1/x", 409)
    result, persisted, _clock = _run([False, conflict, True], operation="delete")
    assert result.done
    assert persisted[:2] == [("Deleting", "DeletionProcessing"), ("DeletionPending", "DeletionRetrying")]


def test_delete_blocked() -> None:
    """1.3 / 7.6: blocked deletion is Deleting/DeletionBlocked until the timeout."""
    clock = Clock()
    states: List[Tuple[str, str]] = []
    result = run_until_done(
        "delete",
        [],
        ScriptedReconciler([], allowed=(False, "Deletion blocked: foreign")),  # type: ignore[arg-type]
        lambda _inv, status: states.append((status.state, status.reason)),
        timeout=3.0,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
    )
    assert not result.done
    assert ("Deleting", "DeletionBlocked") in states
    assert result.status.reason == "Timeout"


def _no_persist(inventory: List[InventoryItem], status: ComponentStatus) -> None:
    del inventory, status


def test_last_applied_at_moves_only_when_objects_were_applied() -> None:
    """C5: a run that finds a Ready component in sync writes no object and keeps lastAppliedAt (its record is then
    not rewritten); a run that writes, or that makes the component Ready, sets it."""
    ready = ComponentStatus()
    ready.set("Ready", "Ready", "Dependent resources successfully reconciled", "2025-12-31T00:00:00Z")
    ready.last_applied_at = "2025-12-31T00:00:00Z"
    result = run_until_done("apply", [], ScriptedReconciler([True]), _no_persist, status=ready)  # type: ignore[arg-type]
    assert result.done and result.status.last_applied_at == "2025-12-31T00:00:00Z"

    writing = ScriptedReconciler([True])
    writing.api.calls.add("PATCH")
    before = ComponentStatus()
    before.set("Ready", "Ready", "in sync", "2025-12-31T00:00:00Z")
    before.last_applied_at = "2025-12-31T00:00:00Z"

    def apply_with_a_write(*_args: Any) -> bool:
        writing.api.calls.add("PATCH")
        return True

    writing.apply = apply_with_a_write  # type: ignore[method-assign]
    result = run_until_done("apply", [], writing, _no_persist, status=before)  # type: ignore[arg-type]
    assert result.status.last_applied_at == "2026-01-01T00:00:00Z"
    first = run_until_done("apply", [], ScriptedReconciler([True]), _no_persist)  # type: ignore[arg-type]
    assert first.status.last_applied_at == "2026-01-01T00:00:00Z"


def _never_asked(*_args: Any) -> Tuple[bool, str]:
    raise AssertionError("the deletion gate is asked by the objects' delete step, not by the hooks' apply")


def test_delete_hooks_are_applied_in_the_deletion_states() -> None:
    """C7: applying a delete phase's hooks is part of the deletion: Deleting/DeletionProcessing while it runs and when
    done (never Ready, so appliedGeneration and lastAppliedAt stay), DeletionPending/DeletionRetrying on a retriable
    error; the deletion gate is not asked (the objects' delete step asks it)."""
    conflict = api_error("PATCH", "/api/v1/namespaces/ns/configmaps/bye", 409, {"message": "conflict"})
    reconciler = ScriptedReconciler([False, conflict, True])
    reconciler.is_deletion_allowed = _never_asked  # type: ignore[method-assign]
    states: List[Tuple[str, str]] = []
    result = run_until_done(
        "apply-delete-hooks",
        [],
        reconciler,  # type: ignore[arg-type]
        lambda inventory, status: states.append((status.state, status.reason)),
        objects=[{"kind": "ConfigMap"}],
        sleep=lambda seconds: None,
    )
    assert result.done is True
    assert states == [
        ("Deleting", "DeletionProcessing"),
        ("DeletionPending", "DeletionRetrying"),
        ("Deleting", "DeletionProcessing"),
    ]
    assert result.status.last_applied_at is None
