# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One skeleton for instance and sub-resource tasks: lock, find, compare, decide, plan, execute, record.

A task kind supplies a :class:`Task` (as KCC's direct controllers supply a `directbase.Adapter`); `run_task`
drives it, as kubernetes.core's `runner.py` drives a module. Each step takes values and returns one: `find` returns
what it found (a :class:`Found`), `compare` what the task's input makes of it (a :class:`Compared`, warnings as
data), `situation` is a pure function of both, `lifecycle.decide()` decides every rule on it, `plan` returns a
:class:`Plan`, `execute` takes the plan and returns the :class:`Outcome`, and `result` builds the module's result
from those values. The task object holds only its input (context, spec, identity, the task's values). Check mode
runs the same steps up to the plan and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ContextManager, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    NubesError,
    OperationFailedError,
    StateWriteError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    OWN_REPORT,
    OWN_REUSE,
    OWN_WAIT,
    RECORD_REMOVE,
    Decision,
    Situation,
    decide,
    own_operation_step,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationResult, check_success
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import (
    Operation,
    Record,
    open_operation,
    settled,
    started,
)


class NameTaken(NubesError):
    """The API refused a create because the display name is taken by a live instance the lookup did not see
    (a race, or uniqueness enforced by the API): the task looks again and decides again (adopt, or a clear
    error naming that instance; issue 14)."""

    def __init__(self, uids: List[str]) -> None:
        super().__init__("the display name is taken by " + ", ".join(uids))
        self.uids = uids


@dataclass(frozen=True)
class Settled:
    """P27: what became of the operation the record itself started (lifecycle.own_operation_step)."""

    record: Optional[Record] = None  # the record afterwards (settled, or None once its destroy finished)
    in_flight: str = ""  # still running and not waited for (wait=false): its name
    reusable: Optional[Operation] = None  # never started: the operation to reuse
    last_operation: Optional[OperationResult] = None  # the one in flight, for the result
    waited: bool = False  # it was waited for (or had finished): the instance is read again


@dataclass(frozen=True)
class Found:
    """What the find step found: the record, the live instance (a sub-resource task: the parent), the record's own
    operation, and the holders of a display name the API said is taken. A task kind adds what else it found."""

    record: Optional[Record] = None
    instance: Optional[Instance] = None
    own: Settled = field(default_factory=Settled)
    # issue 14: the live holders of the display name that the API named when it refused this task's create (set on
    # the second pass: when the lookup by name still shows none of them, decide() refuses instead of creating again)
    name_taken_by: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Compared:
    """What the task's input makes of what was found, before deciding (pure; the warnings are given by run_task)."""

    secrets_to_set: Tuple[str, ...] = ()  # secret codes to send to the existing resource
    left_alone: Mapping[str, str] = field(default_factory=dict)  # codes whose live value is kept -> why (issue 23)
    warnings: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """The decision and what carrying it out sends and shows (values and the diff); a kind adds its own values."""

    decision: Decision
    before: Dict[str, Any] = field(default_factory=dict)
    after: Dict[str, Any] = field(default_factory=dict)
    changed: bool = False


@dataclass
class Outcome:
    """What execute did, filled in as it goes (the record is written through before and after each operation,
    P27) and returned: the record as it now stands, the operations run, the last one, the instance as it now is."""

    record: Optional[Record]
    instance: Optional[Instance] = None
    operations: List[str] = field(default_factory=list)
    last_operation: Optional[OperationResult] = None

    @property
    def finished(self) -> bool:
        """The last operation finished (wait=false: it was only started)."""
        return self.last_operation is None or self.last_operation.finished


class Task:
    """The steps a task kind implements; `run_task` calls them in order."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.secrets: Dict[str, str] = {}  # secret codes -> the task's values (never stored, never shown)
        self.placeholders: List[str] = []  # codes whose API default is a placeholder, never sent (P35, issue 23)

    def secrets_to_send(
        self, record: Optional[Record], secrets: Mapping[str, str], options: Mapping[str, str]
    ) -> Tuple[List[str], List[str]]:
        """The codes of the task's secrets to send to an existing resource, and the warnings. update_password=always:
        those that differ from what the record last applied (all of them when it holds none: a secret cannot be read
        back). on_create: none; one whose recorded digest differs is named (`options`: code -> option) in a warning,
        never dropped in silence."""
        if self.ctx.options.update_password == "always":
            return records.secrets_to_set(record, secrets), []
        changed = [options.get(code, code) for code in records.secrets_changed(record, secrets)]
        if not changed:
            return [], []
        return [], [
            f"{', '.join(changed)}: differs from the value this state last applied, and was not sent "
            "(update_password=on_create sends secrets on create only); set update_password=always to change it"
        ]

    ref: ResourceRef  # the task's identity, built once by the task kind

    def lock(self) -> ContextManager[None]:
        """The store's lock of this task's identity (a sub-resource's: its parent's, serialising one parent)."""
        return self.ctx.store.lock(self.ref)

    def what_exists(self, outcome: Outcome) -> str:
        """What this task has made or changed in the cloud so far, for a message (e.g. `instance <uid> ('db')`)."""
        raise NotImplementedError

    def state_unwritable(self, exc: StateWriteError, outcome: Outcome) -> NubesError:
        """Issue 24: the state could not be written in the middle of the task. The message says whether the cloud
        was changed, what exists, and what the next run does: records are written before each write to the cloud (a
        create's `create_requested` included), so the next run on the same state finds what this run made."""
        cause = str(exc.details.get("cause") or exc.msg)
        if not self.ctx.api.client.wrote:
            return NubesError(
                f"{cause}. Nothing was changed in the cloud: make the state writable (free space, a writable "
                "state_path), then re-run"
            )
        return NubesError(
            f"{cause}, after this task changed the cloud: {self.what_exists(outcome)} exists, and the state holds the "
            "request that made it. Make that state writable again (free space, remount it read-write) and re-run with "
            "it: the next run finds the instance by its name and finishes what this run started, without a second one"
        )

    def find(self) -> Any:
        """Identity (K1-K4b), the record, the live read (GET by uid); waits only for this record's own operation.
        Returns the kind's :class:`Found`."""
        raise NotImplementedError

    def compare(self, found: Any) -> Compared:
        raise NotImplementedError

    def situation(self, found: Any, compared: Compared) -> Situation:
        """Pure: the facts decide() takes, from what was found and the task's input."""
        raise NotImplementedError

    def describe(self, found: Any, decision: Decision) -> str:
        """The diagnostics (P30)."""
        raise NotImplementedError

    def refusal(self, found: Any, decision: Decision) -> str:
        """The one-line message of a refused task (diagnostics.summary); the diagnostics carry the rest."""
        raise NotImplementedError

    def plan(self, found: Any, compared: Compared, decision: Decision) -> Plan:
        """Values and the diff; fails on bad input before any write."""
        raise NotImplementedError

    def apply(self, found: Any, plan: Any, outcome: Outcome) -> None:
        """The operations in order, with the record written through (the uid at once, the operation when it
        starts), into `outcome`."""
        raise NotImplementedError

    def result(self, found: Any, plan: Any, outcome: Outcome, diagnosis: str) -> Dict[str, Any]:
        raise NotImplementedError

    def store(self, record: Optional[Record]) -> None:
        """Write (or, for None, remove) this task's record; nothing in check mode."""
        if self.ctx.check_mode:
            return
        if record is None:
            self.ctx.store.delete(self.ref)
        else:
            self.ctx.store.put(self.ref, record)

    # -- shared steps ----------------------------------------------------------------------------

    def execute(self, found: Found, plan: Plan) -> Outcome:
        """Carry the plan out (`apply`) and return the outcome; a state that cannot be written says what exists."""
        outcome = Outcome(found.record, found.instance, last_operation=found.own.last_operation)
        try:
            self.apply(found, plan, outcome)
        except StateWriteError as exc:
            raise self.state_unwritable(exc, outcome) from None
        return outcome

    def preview(self, found: Found, plan: Plan) -> Outcome:
        """Check mode: the outcome as planned, with nothing written."""
        operations = list(plan.decision.operations)
        return Outcome(found.record, found.instance, operations, found.own.last_operation)

    def write(self, outcome: Outcome, record: Optional[Record]) -> None:
        """Store the record and keep it as the outcome's."""
        self.store(record)
        outcome.record = record

    def migrate_digests(self, record: Optional[Record]) -> None:
        """Issue 24: a digest in an older format that matches the task's secret is written anew in the current
        format, also when nothing else changed (a write of the state only: the task still reports no change)."""
        if self.ctx.check_mode or record is None:
            return
        renewed = records.migrated(record, self.secrets)
        if renewed is not None:
            self.store(renewed)

    def settle(self, record: Optional[Record]) -> Settled:
        """P27: the operation this record itself started (an interrupted or `wait: false` run of this task), as
        lifecycle.own_operation_step says: waited for and on success what it applied recorded; or, while it still
        runs with wait=false, only reported (`in_flight`: decide() starts nothing next to it, so a re-run never
        starts a second one, P16); or, never started, kept to be reused."""
        operation = open_operation(record)
        if operation is None or record is None:
            return Settled(record)
        uid, name = operation.uid or "", operation.name or "operation"
        current = self.ctx.api.get_operation(uid)
        step = own_operation_step(current.started, current.finished, self.ctx.options.wait)
        if step == OWN_REUSE:  # the earlier run stopped before `run`: nothing was applied
            if name != "create":
                self.ctx.warn(f"the earlier {name} operation ({uid}) was never started; it is applied now")
            return Settled(record, reusable=operation)
        if step == OWN_REPORT:
            in_flight = OperationResult(uid, name, False, timeout=self.ctx.timeout(name))
            return Settled(record, in_flight=name, last_operation=in_flight)
        try:
            if step == OWN_WAIT:
                self.ctx.executor.wait(uid, name, self.ctx.timeout(name))
            else:
                check_success(current, name)
        except OperationFailedError as exc:
            self.ctx.warn(f"the earlier {name} operation did not succeed: {exc.msg}")
            after: Optional[Record] = settled(record, False)
        else:
            after = None if operation.remove_record else settled(record, True)  # a destroy: done
        self.store(after)
        return Settled(after, waited=True)

    def run_operation(
        self,
        outcome: Outcome,
        found: Found,
        plan: Plan,
        instance: Instance,
        name: str,
        values: Mapping[str, str],
        secrets: Mapping[str, str],
        revision: Optional[str] = None,
        current: Optional[Mapping[str, Optional[str]]] = None,
        wait: Optional[bool] = None,
    ) -> bool:
        """Run one operation on `instance` (P38: `values`, then `current` for the rest); the record notes it before
        it runs (crash safety, P27) and what it applied once it succeeded. `wait` (default: the task's option) False
        returns once the API has accepted and run it; the result is then False (started, not finished)."""
        base = outcome.record
        reusable = found.own.reusable
        reuse = reusable if reusable is not None and reusable.name == name else None
        remove = plan.decision.record == RECORD_REMOVE

        def on_created(op_uid: str) -> None:
            self.write(outcome, started(base, op_uid, name, secrets, revision, remove))

        op_id = self.ctx.operation_ids.resolve(name, instance)  # issue 14: by name, from the API
        reuse_uid = reuse.uid if reuse is not None else None
        start = self.ctx.executor.start
        op_uid = start(instance.uid, name, op_id, dict(values), on_created, reuse_uid, current, self.placeholders)
        outcome.operations.append(name)
        timeout = self.ctx.timeout(name)
        if not (self.ctx.options.wait if wait is None else wait):
            outcome.last_operation = OperationResult(op_uid, name, False, timeout=timeout)
            return False
        try:
            outcome.last_operation = self.ctx.executor.wait(op_uid, name, timeout)
        except OperationFailedError:
            if outcome.record is not None:
                self.write(outcome, settled(outcome.record, False))
            raise
        outcome.last_operation.timeout = timeout
        if outcome.record is not None:
            self.write(outcome, settled(outcome.record, True))
        return True


def _steps(task: Task, name_taken_by: Tuple[str, ...] = ()) -> Tuple[Any, Plan, Outcome, str]:
    """find -> compare -> decide -> plan -> execute (check mode: preview); what each step returned. `name_taken_by`:
    the holders of the display name the API named when it refused this task's create (issue 14), a fact of what
    was found, which decide() rules on."""
    ctx = task.ctx
    found = task.find()
    if name_taken_by:
        found = replace(found, name_taken_by=name_taken_by)
    compared = task.compare(found)
    for warning in compared.warnings:
        ctx.warn(warning)
    decision = decide(task.situation(found, compared))
    diagnostics = task.describe(found, decision)
    if decision.error:
        raise NubesError(task.refusal(found, decision), diagnostics=diagnostics)
    if decision.warning:
        ctx.warn(decision.warning)
    plan = task.plan(found, compared, decision)
    outcome = task.preview(found, plan) if ctx.check_mode else task.execute(found, plan)
    return found, plan, outcome, diagnostics


def run_task(task: Task) -> Dict[str, Any]:
    """lock -> find -> compare -> decide -> plan -> execute -> result; a create refused for a taken name is decided
    once more, with the holders the API named (issue 14: the task looks again and adopts the holder, or refuses
    naming it; decide() refuses when the lookup still does not show it, so no second create is sent)."""
    with task.lock():
        try:
            found, plan, outcome, diagnostics = _steps(task)
        except NameTaken as exc:
            found, plan, outcome, diagnostics = _steps(task, tuple(exc.uids))
        task.migrate_digests(outcome.record)
    return task.result(found, plan, outcome, diagnostics)
