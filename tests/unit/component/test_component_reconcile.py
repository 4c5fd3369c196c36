"""Unit tests of the component's reconcile: states, Ready reasons, timeout and backoff (reference 1.3, 6.3; C5, C6,
C7, C13, C14), on the one status type.

The reconciler steps are scripted here; tests/integration/reconciler and tests/integration/component run
the reconcile against a real API server.
"""

from __future__ import annotations

import datetime
from typing import Any, List, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.reconcile import Result, Target, begin, run
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus
from ansible_collections.nubes.cloud.plugins.module_utils.kube.backoff import Backoff
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import CallCounter
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import api_error
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ObjectError, ValidationError
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
    """Answers apply/delete steps from a script (a value, or an exception to raise); ``grow`` adds an inventory item
    on every step (the inventory changes)."""

    def __init__(self, results: List[Any], allowed: Tuple[bool, str] = (True, ""), grow: bool = False) -> None:
        self.results = iter(results)
        self.allowed = allowed
        self.grow = grow
        self.api = FakeApi()

    def _step(self, inventory: List[InventoryItem], *_args: Any) -> Any:
        if self.grow:
            inventory.append(InventoryItem("", "v1", "ConfigMap", f"cm-{len(inventory)}"))
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


def _run(
    results: List[Any],
    operation: str = "apply",
    timeout: float = 100.0,
    status: Optional[ComponentStatus] = None,
    reconciler: Optional[ScriptedReconciler] = None,
    wait: bool = True,
) -> Tuple[Result, ComponentStatus, List[Tuple[str, str]], Clock]:
    persisted: List[Tuple[str, str]] = []
    clock = Clock()
    status = status or ComponentStatus()

    def persist(saved: ComponentStatus) -> None:
        persisted.append((saved.state, saved.reason))

    target = Target(operation, reconciler or ScriptedReconciler(results))  # type: ignore[arg-type]
    result = run(status, target, persist, timeout, wait=wait, sleep=clock.sleep, monotonic=clock.monotonic)
    return result, status, persisted, clock


def test_apply_until_ready() -> None:
    """C7: Processing/Processing while not done, then Ready with Ready=True; persisted after every step."""
    result, status, persisted, _clock = _run([False, False, True])
    assert result.done and result.error is None
    assert persisted == [("Processing", "Processing"), ("Processing", "Processing"), ("Ready", "Ready")]
    assert status.ready_condition() == {
        "type": "Ready",
        "status": "True",
        "reason": "Ready",
        "message": "Dependent resources successfully reconciled",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
    }
    assert status.processingSince is None


def test_ready_sets_applied_generation_and_observes() -> None:
    """C5, C6: Ready sets appliedGeneration to the generation; every reconcile observes it; an Error after it keeps
    appliedGeneration and turns Ready False."""
    status = ComponentStatus(generation=3)
    _run([True], status=status)
    assert (status.state, status.observedGeneration, status.appliedGeneration) == ("Ready", 3, 3)
    assert status.lastObservedAt == "2026-01-01T00:00:00Z"
    status.generation = 4
    _run([ValidationError("bad object")], status=status)
    assert (status.state, status.observedGeneration, status.appliedGeneration) == ("Error", 4, 3)
    assert status.conditions[0]["status"] == "False"


def test_timeout_turns_error() -> None:
    """C14 / 1.3: Processing past the timeout is state Error with reason Timeout and Ready=False."""
    result, status, persisted, clock = _run([False] * 1000, timeout=5.0)
    assert not result.done and result.error is not None and result.error.startswith("Timeout after 5s")
    assert (status.state, status.reason, status.conditions[0]["status"]) == ("Error", "Timeout", "False")
    assert persisted[-1] == ("Error", "Timeout")
    assert clock.now >= 5.0


def test_non_retriable_error_stops() -> None:
    """1.3: a non-retriable error is state Error, reason Error, and ends the run with the message."""
    result, status, persisted, _clock = _run([False, ValidationError("bad object")])
    assert (status.state, status.reason) == ("Error", "Error")
    assert result.error == "bad object" and result.blocking == []
    assert persisted[-1] == ("Error", "Error")


def test_an_object_error_names_the_object_that_blocks() -> None:
    """issue 25: a failed reconcile says which object its error is about (the invalid one), for the summary."""
    invalid = api_error("PATCH", "/apis/apps/v1/x", 422, {"reason": "Invalid", "message": "spec.replicas: Invalid"})
    error = ObjectError("Deployment.apps ns/typo", "apply wave 0", "write", invalid)
    result, _status, _persisted, _clock = _run([False, error])
    assert result.blocking == ["Deployment.apps ns/typo"]


def test_retriable_error_retries() -> None:
    """1.3: a conflict is retried (Pending/Retrying) and the run continues to Ready."""
    conflict = api_error("PUT", "/api/v1/x", 409, {"reason": "Conflict", "message": "changed"})
    result, _status, persisted, _clock = _run([conflict, True])
    assert result.done
    assert persisted == [("Pending", "Retrying"), ("Ready", "Ready")]


def test_delete_states() -> None:
    """1.3: deletion in progress is Deleting/DeletionProcessing; a retriable error is DeletionPending."""
    conflict = api_error("DELETE", "/api/v1/x", 409)
    result, _status, persisted, _clock = _run([False, conflict, True], operation="delete")
    assert result.done
    assert persisted[:2] == [("Deleting", "DeletionProcessing"), ("DeletionPending", "DeletionRetrying")]


def test_delete_blocked() -> None:
    """1.3 / 7.6: blocked deletion is Deleting/DeletionBlocked until the timeout."""
    blocked = ScriptedReconciler([], allowed=(False, "Deletion blocked: foreign"))
    result, status, persisted, _clock = _run([], operation="delete", timeout=3.0, reconciler=blocked)
    assert not result.done
    assert ("Deleting", "DeletionBlocked") in persisted
    assert status.reason == "Timeout"


def test_last_applied_at_moves_only_when_objects_were_applied() -> None:
    """C5: a run that finds a Ready component in sync writes no object and keeps lastAppliedAt (its record is then
    not rewritten); a run that writes, or that makes the component Ready, sets it."""
    ready = ComponentStatus(lastAppliedAt="2025-12-31T00:00:00Z")
    ready.set_state("Ready", "Ready", "Dependent resources successfully reconciled", "2025-12-31T00:00:00Z")
    _run([True], status=ready)
    assert ready.lastAppliedAt == "2025-12-31T00:00:00Z"
    assert ready.conditions[0]["lastTransitionTime"] == "2025-12-31T00:00:00Z"

    writing = ScriptedReconciler([True])
    writing.api.calls.add("PATCH")

    def apply_with_a_write(*_args: Any) -> bool:
        writing.api.calls.add("PATCH")
        return True

    writing.apply = apply_with_a_write  # type: ignore[method-assign]
    before = ComponentStatus(lastAppliedAt="2025-12-31T00:00:00Z")
    before.set_state("Ready", "Ready", "in sync", "2025-12-31T00:00:00Z")
    _run([], status=before, reconciler=writing)
    assert before.lastAppliedAt == "2026-01-01T00:00:00Z"
    _result, first, _persisted, _clock = _run([True])
    assert first.lastAppliedAt == "2026-01-01T00:00:00Z"


def test_delete_hooks_are_applied_in_the_deletion_states() -> None:
    """C7: applying a delete phase's hooks is part of the deletion: Deleting/DeletionProcessing while it runs and when
    done (never Ready, so appliedGeneration and lastAppliedAt stay), DeletionPending/DeletionRetrying on a retriable
    error; the deletion gate is not asked (the objects' delete step asks it)."""
    conflict = api_error("PATCH", "/api/v1/namespaces/ns/configmaps/bye", 409, {"message": "conflict"})
    reconciler = ScriptedReconciler([False, conflict, True])

    def never_asked(*_args: Any) -> Tuple[bool, str]:
        raise AssertionError("the deletion gate is asked by the objects' delete step, not by the hooks' apply")

    reconciler.is_deletion_allowed = never_asked  # type: ignore[method-assign]
    result, status, persisted, _clock = _run([], operation="apply-delete-hooks", reconciler=reconciler)
    assert result.done is True
    assert persisted == [
        ("Deleting", "DeletionProcessing"),
        ("DeletionPending", "DeletionRetrying"),
        ("Deleting", "DeletionProcessing"),
    ]
    assert status.lastAppliedAt is None and status.appliedGeneration == 0


def test_hooks_target_works_on_the_hooks_inventory() -> None:
    """C8: a target of the delete hooks changes the status's deleteHooksInventory, never the objects' inventory."""
    status = ComponentStatus(inventory=[InventoryItem("", "v1", "ConfigMap", "kept")])
    reconciler = ScriptedReconciler([True], grow=True)
    target = Target("apply-delete-hooks", reconciler, hooks=True)  # type: ignore[arg-type]
    clock = Clock()
    run(status, target, lambda _status: None, 10.0, sleep=clock.sleep, monotonic=clock.monotonic)
    assert [i.name for i in status.inventory] == ["kept"]
    assert [i.name for i in status.deleteHooksInventory] == ["cm-0"]


def test_wait_false_returns_once_a_step_changed_nothing() -> None:
    """wait: false returns the current state once a step leaves the inventory as it was (neither done nor failed);
    while the inventory changes, the steps go on."""
    moving = ScriptedReconciler([])
    two_more = [True, True]

    def apply_two_then_idle(inventory: List[InventoryItem], *_args: Any) -> bool:
        if two_more:
            two_more.pop()
            inventory.append(InventoryItem("", "v1", "ConfigMap", f"cm-{len(inventory)}"))
        return False

    moving.apply = apply_two_then_idle  # type: ignore[method-assign]
    result, status, persisted, clock = _run([], reconciler=moving, wait=False)
    assert (result.done, result.error, result.progressed) == (False, None, False)
    assert len(persisted) == 3 and len(status.inventory) == 2
    assert len(clock.sleeps) == 2
    assert status.state == "Processing"


def test_begin_restarts_on_a_changed_digest_and_suspends() -> None:
    """C13, reference 1.3/1.4: a new digest is a new generation and revision and restarts processing; the same
    digest changes nothing; a suspended component is Pending/Suspended and not applied."""
    status = ComponentStatus(processingSince="2025-12-31T00:00:00Z")
    assert begin(status, "d1", False, "2026-01-01T00:00:00Z") is True
    assert (status.generation, status.revision, status.processingDigest) == (1, 1, "d1")
    assert (status.state, status.reason, status.processingSince) == ("Processing", "Restarting", None)
    status.set_state("Ready", "Ready", "done", "2026-01-01T00:00:01Z")
    assert begin(status, "d1", False, "2026-01-01T00:00:02Z") is True
    assert (status.generation, status.revision, status.state) == (1, 1, "Ready")
    assert begin(status, "d2", True, "2026-01-01T00:00:03Z") is False
    assert (status.generation, status.revision, status.processingDigest) == (2, 1, "d1")
    assert (status.state, status.reason, status.observedGeneration) == ("Pending", "Suspended", 2)
