# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One skeleton for instance and sub-resource tasks: lock, find, read live, decide, plan, execute, record.

A task kind supplies a :class:`Task` (as KCC's direct controllers supply a `directbase.Adapter`); `run_task`
drives it, as kubernetes.core's `runner.py` drives a module. Every rule is decided in `lifecycle.decide()`;
the task only finds what is live, carries the decision out and reports it. Check mode runs the same steps
up to the plan and writes nothing.
"""

from __future__ import annotations

from typing import Any, ContextManager, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    NubesError,
    OperationFailedError,
    StateWriteError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    RECORD_REMOVE,
    Decision,
    Situation,
    decide,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationResult, check_success
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record, open_operation, settled, started


class NameTaken(NubesError):
    """The API refused a create because the display name is taken by a live instance the lookup did not see
    (a race, or uniqueness enforced by the API): the task looks again and decides again (adopt, or a clear
    error naming that instance; issue 14)."""

    def __init__(self, uids: List[str]) -> None:
        super().__init__("the display name is taken by " + ", ".join(uids))
        self.uids = uids


class Task:
    """The steps a task kind implements; `run_task` calls them in order."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.record: Optional[Record] = None
        self.operations_run: List[str] = []
        self.last_operation: Optional[OperationResult] = None
        self.changed = False
        self.diagnostics = ""
        self.reusable: Optional[Dict[str, Any]] = None  # this record's operation that was never started
        self.in_flight = ""  # P27: the name of this record's operation that still runs and is not waited for
        self.decision: Optional[Decision] = None  # what run_task decided (set before plan and execute)
        self.secrets: Dict[str, str] = {}  # secret codes -> the task's values (never stored, never shown)
        self.placeholders: List[str] = []  # codes whose API default is a placeholder, never sent (P35, issue 23)

    def secrets_to_send(
        self, record: Optional[Record], secrets: Mapping[str, str], options: Mapping[str, str]
    ) -> List[str]:
        """The codes of the task's secrets to send to an existing resource. update_password=always: those that
        differ from what the record last applied (all of them when it holds none: a secret cannot be read back).
        on_create: none; one whose recorded digest differs is named (`options`: code -> option) in a warning, never
        dropped in silence."""
        if self.ctx.options.update_password == "always":
            return records.secrets_to_set(record, secrets)
        changed = [options.get(code, code) for code in records.secrets_changed(record, secrets)]
        if changed:
            self.ctx.warn(
                f"{', '.join(changed)}: differs from the value this state last applied, and was not sent "
                "(update_password=on_create sends secrets on create only); set update_password=always to change it"
            )
        return []

    def lock(self) -> ContextManager[None]:
        raise NotImplementedError

    def what_exists(self) -> str:
        """What this task has made or changed in the cloud so far, for a message (e.g. `instance <uid> ('db')`)."""
        raise NotImplementedError

    def state_unwritable(self, exc: StateWriteError) -> NubesError:
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
            f"{cause}, after this task changed the cloud: {self.what_exists()} exists, and the state holds the request "
            "that made it. Make that state writable again (free space, remount it read-write) and re-run with it: the "
            "next run finds the instance by its name and finishes what this run started, without a second one"
        )

    def find(self) -> None:
        """Identity (K1-K4b), the record, the live read (GET by uid); waits only for this record's own operation."""
        raise NotImplementedError

    def situation(self) -> Situation:
        raise NotImplementedError

    def describe(self, decision: Decision) -> str:
        """The diagnostics (P30)."""
        raise NotImplementedError

    def refusal(self, decision: Decision) -> str:
        """The one-line message of a refused task (diagnostics.summary); the diagnostics carry the rest."""
        raise NotImplementedError

    def plan(self, decision: Decision) -> None:
        """Values and the diff; fails on bad input before any write."""
        raise NotImplementedError

    def execute(self, decision: Decision) -> None:
        """The operations in order, with the record written through (the uid at once, the operation when it starts)."""
        raise NotImplementedError

    def result(self, decision: Decision) -> Dict[str, Any]:
        raise NotImplementedError

    def store(self, record: Optional[Record]) -> None:
        """Write (or, for None, remove) this task's record; nothing in check mode."""
        raise NotImplementedError

    # -- shared steps ----------------------------------------------------------------------------

    def migrate_digests(self) -> None:
        """Issue 24: a digest in an older format that matches the task's secret is written anew in the current
        format, also when nothing else changed (a write of the state only: the task still reports no change)."""
        if self.ctx.check_mode or self.record is None:
            return
        renewed = records.migrated(self.record, self.secrets)
        if renewed is not None:
            self.store(renewed)

    def settle(self, instance: Optional[Instance]) -> bool:
        """P27: the operation this record itself started (an interrupted or `wait: false` run of this task). With
        wait=true it is waited for, and on success what it applied is recorded. With wait=false, while it still
        runs, it is only reported (`in_flight`): nothing is started next to it, so a re-run never starts a second
        one (P16). An operation that was never run is kept to be reused. Returns whether it waited (the caller then
        reads the instance again: the operation may have changed it)."""
        operation = open_operation(self.record)
        if operation is None or self.record is None:
            return False
        uid, name = str(operation["uid"]), str(operation.get("name") or "operation")
        current = self.ctx.api.get_operation(uid)
        if not current.started:
            self.reusable = operation  # the earlier run stopped before `run`: nothing was applied
            if name != "create":
                self.ctx.warn(f"the earlier {name} operation ({uid}) was never started; it is applied now")
            return False
        if not current.finished and not self.ctx.options.wait:
            self.in_flight = name
            self.last_operation = OperationResult(uid, name, False, timeout=self.ctx.timeout(name))
            return False
        try:
            if current.finished:
                check_success(current, name)
            else:
                self.ctx.executor.wait(uid, name, self.ctx.timeout(name))
        except OperationFailedError as exc:
            self.ctx.warn(f"the earlier {name} operation did not succeed: {exc.msg}")
            self.store(settled(self.record, False))
        else:
            self.store(None if operation.get("remove_record") else settled(self.record, True))  # a destroy: done
        return instance is not None

    def run_operation(
        self,
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
        base = self.record or {}
        reuse = self.reusable if self.reusable and self.reusable.get("name") == name else None

        remove = self.decision is not None and self.decision.record == RECORD_REMOVE

        def on_created(op_uid: str) -> None:
            self.store(started(base, op_uid, name, secrets, revision, remove))

        op_id = self.ctx.operation_ids.resolve(name, instance)  # issue 14: by name, from the API
        reuse_uid = str(reuse["uid"]) if reuse else None
        start = self.ctx.executor.start
        op_uid = start(instance.uid, name, op_id, dict(values), on_created, reuse_uid, current, self.placeholders)
        self.operations_run.append(name)
        timeout = self.ctx.timeout(name)
        if not (self.ctx.options.wait if wait is None else wait):
            self.last_operation = OperationResult(op_uid, name, False, timeout=timeout)
            return False
        try:
            self.last_operation = self.ctx.executor.wait(op_uid, name, timeout)
        except OperationFailedError:
            if self.record is not None:
                self.store(settled(self.record, False))
            raise
        self.last_operation.timeout = timeout
        if self.record is not None:
            self.store(settled(self.record, True))
        return True


def run_task(task: Task) -> Dict[str, Any]:
    """lock -> find -> decide -> plan -> execute; a create refused for a taken name is decided once more."""
    ctx = task.ctx
    with task.lock():
        for attempt in (1, 2):
            task.find()
            decision = decide(task.situation())
            task.decision = decision
            task.diagnostics = task.describe(decision)
            if decision.error:
                raise NubesError(task.refusal(decision), diagnostics=task.diagnostics)
            if decision.warning:
                ctx.warn(decision.warning)
            task.plan(decision)
            if ctx.check_mode:
                task.operations_run = list(decision.operations)
                break
            try:
                task.execute(decision)
            except StateWriteError as exc:
                raise task.state_unwritable(exc) from None
            except NameTaken as exc:
                if attempt == 2:
                    raise NubesError(
                        f"the API refuses resource_name: the display name is taken by {', '.join(exc.uids)}, which "
                        "the lookup by name does not show; adopt it by instance_uid with adopt_existing_on_create="
                        "true, or choose another resource_name"
                    ) from None
                continue
            break
        task.migrate_digests()
    return task.result(decision)
