# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component's reconcile, as component-operator-runtime's ``Reconcile`` (``pkg/component/reconciler.go``).

Every state of reference 1.3 is decided here, on the one status type (``status.ComponentStatus``):

- ``begin`` starts an apply run: a new component digest is a new generation, a new revision and a restart
  (Processing/Restarting); a suspended component goes Pending/Suspended and is not applied (C13).
- ``reconcile`` is one call: one reconciler step on the target (apply, delete, or a delete phase's hooks), the
  state it leads to, the timeout, and the status persisted before the next step may start (C8 write-ahead).
- ``run`` calls ``reconcile`` until the component is Ready (or deleted), failed, or, with ``wait: false``, a step
  changed nothing; between calls it waits the backoff of reference 6.3, as controller-runtime's requeues do for
  the operator.

The reconciler (``../reconciler``) knows nothing of this: it takes an inventory and objects and says done or not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.component.status import (
    REASON_DELETION_BLOCKED,
    REASON_DELETION_PROCESSING,
    REASON_DELETION_RETRYING,
    REASON_ERROR,
    REASON_PROCESSING,
    REASON_READY,
    REASON_RESTARTING,
    REASON_RETRYING,
    REASON_SUSPENDED,
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

APPLY, DELETE, APPLY_DELETE_HOOKS = "apply", "delete", "apply-delete-hooks"
OPERATIONS = (APPLY, DELETE, APPLY_DELETE_HOOKS)
Persist = Callable[[ComponentStatus], None]


@dataclass
class Target:
    """What a reconcile works on: ``apply`` the objects, ``delete`` the inventory, or ``apply-delete-hooks`` (a Helm
    chart's ``pre-delete`` or ``post-delete`` set, applied while the component is being deleted: the same apply
    steps, in the deletion's states). ``hooks``: the inventory is the delete hooks' own (``deleteHooksInventory``)."""

    operation: str
    reconciler: Reconciler
    objects: Sequence[Any] = ()
    hooks: bool = False

    def __post_init__(self) -> None:
        if self.operation not in OPERATIONS:
            raise ValueError(f"operation must be one of {', '.join(OPERATIONS)}")

    @property
    def deleting(self) -> bool:
        """Part of a deletion (its retriable errors are DeletionPending)."""
        return self.operation != APPLY

    def inventory(self, status: ComponentStatus) -> List[InventoryItem]:
        """The inventory of the status this target's steps change in place."""
        return status.deleteHooksInventory if self.hooks else status.inventory


@dataclass
class Result:
    """What one reconcile decided. ``error``: the run failed (state Error: a non-retriable error, or the timeout);
    ``blocking``: the objects that error is about, when it names them; ``progressed``: the inventory changed."""

    done: bool
    error: Optional[str] = None
    blocking: List[str] = field(default_factory=list)
    progressed: bool = False
    requeue_after: float = 0.0


class Pace:
    """What lasts from one reconcile of a run to the next: the timeout's clock, the backoff between steps (reference
    6.3), and the object writes counted when the run started (C5: lastAppliedAt moves only when some were made)."""

    def __init__(
        self,
        timeout: float,
        changes_at_start: int,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.timeout = timeout
        self.changes_at_start = changes_at_start
        self.sleep = sleep
        self.monotonic = monotonic
        self.started = monotonic()
        self.backoff = Backoff()

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return self.monotonic() - self.started

    def timed_out(self) -> bool:
        """C14: the run's timeout has passed."""
        return self.elapsed() >= self.timeout


def begin(status: ComponentStatus, digest: str, suspended: bool, now: str) -> bool:
    """Start an apply run (reference 1.4 steps 3 to 8); False when the component is suspended (C13: Pending/Suspended,
    nothing applied). A changed component digest is a new generation and restarts processing (Processing/Restarting,
    the timeout clock cleared); a digest never processed before is a new revision."""
    if status.processingDigest != digest:
        status.generation += 1
        status.processingSince = None
    if suspended:
        status.set_state(STATE_PENDING, REASON_SUSPENDED, "Reconciliation is suspended (suspend: true)", now)
        status.observe(now)
        return False
    if digest != status.lastProcessingDigest:
        status.revision += 1
        status.lastProcessingDigest = digest
    if status.processingDigest != digest:
        status.set_state(STATE_PROCESSING, REASON_RESTARTING, "Restarting with changed input", now)
    status.processingDigest = digest
    return True


def begin_deletion(status: ComponentStatus) -> None:
    """Deletion starts: the processing digest and clock are cleared (reference 1.2)."""
    status.processingDigest = ""
    status.processingSince = None


def reconcile(status: ComponentStatus, target: Target, persist: Persist, pace: Pace) -> Result:
    """One reconcile: one reconciler step on ``target``, the state it leads to (reference 1.3, C7), the timeout
    (C14), and ``persist(status)`` before the next step may start (C8 write-ahead; an unreachable API or a conflict
    while persisting is retried with backoff until the timeout, never skipped).

    Retriable errors (conflicts, throttling, an unreachable API) leave the run going in Pending/Retrying (or
    DeletionPending/DeletionRetrying); any other error is state Error and ends it. Past the timeout the state is
    Error with reason Timeout."""
    before = inventory_to_list(target.inventory(status))
    now = format_time(target.reconciler.now())
    error: Optional[str] = None
    blocking: List[str] = []
    try:
        done = _step(status, target, pace, now)
    except KubeError as exc:
        done = False
        if not exc.retriable:
            error, blocking = str(exc), list(getattr(exc, "objects", ()))
            status.set_state(STATE_ERROR, REASON_ERROR, error, now)
        elif target.deleting:
            status.set_state(STATE_DELETION_PENDING, REASON_DELETION_RETRYING, str(exc), now)
        else:
            status.set_state(STATE_PENDING, REASON_RETRYING, str(exc), now)
    if not done and error is None and pace.timed_out():
        error = f"Timeout after {int(pace.timeout)}s: {status.message}"
        status.set_state(STATE_ERROR, REASON_TIMEOUT, error, now)
    status.observe(now)
    _persist(persist, status, pace)
    progressed = inventory_to_list(target.inventory(status)) != before
    if progressed:
        pace.backoff.reset()  # reference 6.3: fast steps again while the inventory moves
    wait = 0.0 if done or error else min(pace.backoff.next_delay(), max(0.0, pace.timeout - pace.elapsed()))
    return Result(done, error, blocking, progressed, wait)


def run(
    status: ComponentStatus,
    target: Target,
    persist: Persist,
    timeout: float,
    wait: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> Result:
    """Reconcile until done, failed (the result's ``error``), or, with ``wait`` false, until a step changed nothing
    (neither done nor failed: the task returns the current state)."""
    pace = Pace(timeout, target.reconciler.api.calls.changes, sleep, monotonic)
    while True:
        result = reconcile(status, target, persist, pace)
        if result.done or result.error is not None or (not wait and not result.progressed):
            return result
        sleep(result.requeue_after)


def _step(status: ComponentStatus, target: Target, pace: Pace, now: str) -> bool:
    """The reconciler's step and the state it leads to (reference 1.3, C7)."""
    reconciler, inventory = target.reconciler, target.inventory(status)
    if target.operation == DELETE:
        allowed, message = reconciler.is_deletion_allowed(inventory)
        if not allowed:
            status.set_state(STATE_DELETING, REASON_DELETION_BLOCKED, message, now)
            return False
        done = reconciler.delete(inventory)
        if not done:
            status.set_state(STATE_DELETING, REASON_DELETION_PROCESSING, "Deletion in progress", now)
        return done
    done = reconciler.apply(inventory, target.objects)
    if target.operation == APPLY_DELETE_HOOKS:
        status.set_state(STATE_DELETING, REASON_DELETION_PROCESSING, "Deletion in progress: delete hooks", now)
    elif done:
        # C5: Ready sets appliedGeneration; lastAppliedAt is when the objects were last applied, so a run that finds
        # a Ready component in sync writes nothing and keeps it (its record is not rewritten either)
        status.processingSince = None
        wrote = reconciler.api.calls.changes > pace.changes_at_start
        if wrote or status.state != STATE_READY or status.lastAppliedAt is None:
            status.lastAppliedAt = now
        status.appliedGeneration = status.generation
        status.set_state(STATE_READY, REASON_READY, "Dependent resources successfully reconciled", now)
    else:
        if status.processingSince is None:
            status.processingSince = now  # the timeout clock of reference 1.2
        status.set_state(STATE_PROCESSING, REASON_PROCESSING, "Reconcile in progress", now)
    return done


def _persist(persist: Persist, status: ComponentStatus, pace: Pace) -> None:
    while True:
        try:
            persist(status)
            return
        except KubeError as exc:
            if not exc.retriable or pace.timed_out():
                raise
            pace.sleep(pace.backoff.next_delay())
