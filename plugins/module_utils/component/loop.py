# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component's run loop: drive reconciler steps until done or timeout, with the component states, Ready
reasons and backoff of reference 1.3 and 6.3 (C6, C7, C14). ``run_until_done`` persists the inventory through the
caller's callback after every step (write-ahead)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.component.status import (
    REASON_DELETION_BLOCKED,
    REASON_DELETION_PROCESSING,
    REASON_DELETION_RETRYING,
    REASON_ERROR,
    REASON_PROCESSING,
    REASON_READY,
    REASON_RETRYING,
    REASON_TIMEOUT,
    STATE_DELETING,
    STATE_DELETION_PENDING,
    STATE_ERROR,
    STATE_PENDING,
    STATE_PROCESSING,
    STATE_READY,
    ComponentStatus,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.backoff import Backoff
from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem, inventory_to_list
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler


@dataclass
class RunResult:
    """Outcome of a run."""

    done: bool
    status: ComponentStatus
    steps: int
    api_calls: Dict[str, int]
    error: Optional[str] = None
    inventory: List[Dict[str, Any]] = field(default_factory=list)


Persist = Callable[[List[InventoryItem], ComponentStatus], None]
APPLY, DELETE, APPLY_DELETE_HOOKS = "apply", "delete", "apply-delete-hooks"
OPERATIONS = (APPLY, DELETE, APPLY_DELETE_HOOKS)


def _fingerprint(inventory: List[InventoryItem]) -> str:
    return json.dumps(inventory_to_list(inventory), sort_keys=True)


def run_until_done(
    operation: str,
    inventory: List[InventoryItem],
    reconciler: Reconciler,
    persist: Persist,
    objects: Optional[Sequence[Any]] = None,
    timeout: float = 600.0,
    status: Optional[ComponentStatus] = None,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> RunResult:
    """Loop ``apply`` (operation ``apply``) or ``delete`` steps until done, an error, or ``timeout`` seconds.

    Operation ``apply-delete-hooks`` applies the set of a delete phase (a Helm chart's ``pre-delete`` or
    ``post-delete`` hooks) while the component is being deleted: the same apply steps, in the deletion's states.

    ``persist(inventory, status)`` runs after every step, before the next one starts (write-ahead). Retriable errors
    (conflicts, throttling, unreachable API) are retried with backoff until the timeout (state Pending/Retrying or
    DeletionPending/DeletionRetrying); other errors end the run in state Error. Past the timeout the state is
    Error with reason Timeout (reference 1.3).
    """
    if operation not in OPERATIONS:
        raise ValueError(f"operation must be one of {', '.join(OPERATIONS)}")
    status = status or ComponentStatus()
    deleting = operation != APPLY
    backoff = Backoff()
    start = monotonic()
    steps = 0
    processing_started: Optional[float] = None
    writes_before = reconciler.api.calls.changes

    def now() -> str:
        return format_time(reconciler.now())

    def persist_retrying() -> None:
        # C8 write-ahead: the next step starts only once the inventory is persisted. An unreachable API (an
        # apiserver restart) or a conflict while persisting is retried with backoff until the timeout, never skipped.
        while True:
            try:
                persist(inventory, status)
                return
            except KubeError as exc:
                if not exc.retriable or monotonic() - start >= timeout:
                    raise
                sleep(backoff.next_delay())

    def finish(done: bool, error: Optional[str] = None) -> RunResult:
        persist_retrying()
        return RunResult(done, status, steps, reconciler.api.calls.snapshot(), error, inventory_to_list(inventory))

    while True:
        before = _fingerprint(inventory)
        steps += 1
        try:
            if operation == DELETE:
                allowed, message = reconciler.is_deletion_allowed(inventory)
                if not allowed:
                    status.set(STATE_DELETING, REASON_DELETION_BLOCKED, message, now())
                    done = False
                else:
                    done = reconciler.delete(inventory)
                    if not done:
                        status.set(STATE_DELETING, REASON_DELETION_PROCESSING, "Deletion in progress", now())
            elif operation == APPLY_DELETE_HOOKS:
                done = reconciler.apply(inventory, objects or [])
                status.set(STATE_DELETING, REASON_DELETION_PROCESSING, "Deletion in progress: delete hooks", now())
            else:
                done = reconciler.apply(inventory, objects or [])
                if done:
                    status.processing_since = None
                    # C5: lastAppliedAt is when the objects were last applied; a run that finds a Ready component
                    # in sync writes nothing and keeps it (so its record is not rewritten either)
                    wrote = reconciler.api.calls.changes > writes_before
                    if wrote or status.state != STATE_READY or status.last_applied_at is None:
                        status.last_applied_at = now()
                    status.set(STATE_READY, REASON_READY, "Dependent resources successfully reconciled", now())
                else:
                    if status.processing_since is None:
                        status.processing_since = now()
                        processing_started = monotonic()
                    elif processing_started is None:
                        processing_started = start
                    status.set(STATE_PROCESSING, REASON_PROCESSING, "Reconcile in progress", now())
        except KubeError as exc:
            if not exc.retriable:
                status.set(STATE_ERROR, REASON_ERROR, str(exc), now())
                return finish(False, str(exc))
            if deleting:
                status.set(STATE_DELETION_PENDING, REASON_DELETION_RETRYING, str(exc), now())
            else:
                status.set(STATE_PENDING, REASON_RETRYING, str(exc), now())
            done = False
        if done:
            return finish(True)
        elapsed = monotonic() - start
        if elapsed >= timeout:
            # C14: past the timeout the component is in Error with reason Timeout.
            message = f"Timeout after {int(timeout)}s: {status.message}"
            status.set(STATE_ERROR, REASON_TIMEOUT, message, now())
            return finish(False, message)
        persist_retrying()
        if _fingerprint(inventory) != before:
            backoff.reset()
        sleep(min(backoff.next_delay(), max(0.0, timeout - elapsed)))
