# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run one cloud operation end to end and poll it (deck-api 5.1-5.4).

create op -> read its cfsParams -> push values (POST, or PUT when a value row exists) -> validate-cfs
-> run -> poll until `dtFinish`. Quirks handled: 409/400 + Location on op create (reuse), run 422
`Concurrent operations` (already running: poll), run 500 `key [EXECUTABLE] doesn't exist` (queued:
poll), the delete follow-up `Услуга удалена` (success), `isSuccessful` null after finish (failure).
"""

from __future__ import annotations

import time
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import write_outcome
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi, RunOutcome
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    ApiError,
    NubesError,
    OperationFailedError,
    OperationTimeoutError,
    OutcomeUnknownError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Operation, same_uid
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import value_plan

DELETED_MARKERS = ("услуга удалена", "already deleted", "not found")
POLL_FIRST = 0.2
POLL_FRACTION = 0.1  # next pause = 10 % of the time waited so far
POLL_CAP = 5.0


class OperationResult:
    """The operation's uid, name, whether it finished, its duration (seconds) when known, and the timeout a wait for
    it takes (wait_timeout, else the service's, P8: `nubes.cloud.operation_info` waits that long by default)."""

    def __init__(
        self, uid: str, name: str, finished: bool, duration: Optional[float] = None, timeout: Optional[int] = None
    ) -> None:
        self.uid = uid
        self.name = name
        self.finished = finished
        self.duration = duration
        self.timeout = timeout

    def as_dict(self) -> Dict[str, object]:
        return {
            "uid": self.uid,
            "name": self.name,
            "finished": self.finished,
            "duration": self.duration,
            "timeout": self.timeout,
        }


class Poller:
    """Adaptive polling bounded by a deadline: the wait before the next poll is a tenth of the time waited so far,
    at least `first` (0.2 s) and at most `cap` (5 s). An operation is thus seen finished at most ~10 % of its
    duration (and at most 5 s) after `dtFinish`, with few polls for long operations."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        first: float = POLL_FIRST,
        cap: float = POLL_CAP,
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self.first = first
        self.cap = cap

    def interval(self, waited: float) -> float:
        """The pause before the next poll after `waited` seconds of waiting."""
        return min(max(waited * POLL_FRACTION, self.first), self.cap)

    def intervals(self, timeout: float) -> Iterator[None]:
        """Yield before each poll; stops yielding once the deadline has passed."""
        start = self.clock()
        deadline = start + timeout
        yield
        while True:
            now = self.clock()
            remaining = deadline - now
            if remaining <= 0:
                return
            self.sleep(min(self.interval(now - start), remaining))
            yield


def deleted_marker(operation: Operation) -> bool:
    """deck-api 5.4: an errorLog saying `Услуга удалена` (service deleted) means success for deletes."""
    log = operation.error_log.lower()
    return any(marker in log for marker in DELETED_MARKERS)


class OperationExecutor:
    """Starts, resumes and waits for operations of one instance."""

    def __init__(self, api: DeckApi, poller: Optional[Poller] = None) -> None:
        self.api = api
        self.poller = poller or Poller()

    def start(
        self,
        instance_uid: str,
        name: str,
        svc_operation_id: Optional[int],
        desired: Dict[str, str],
        on_created: Optional[Callable[[str], None]] = None,
        existing_uid: Optional[str] = None,
        current: Optional[Mapping[str, Optional[str]]] = None,
        placeholders: Sequence[str] = (),
    ) -> str:
        """Create (or reuse) the operation, push every param's value (P38: the task's, else `current`, the live
        values, else the API's defaults but never a placeholder one, issue 23; values.value_plan), validate and run
        it; returns its uid."""
        op_uid = existing_uid or self._create(instance_uid, name, svc_operation_id)
        if on_created is not None:
            on_created(op_uid)
        operation = self.api.get_operation(op_uid, with_params=True)
        if operation.started:
            return op_uid  # already run (a resumed or concurrent run): only wait for it
        for param, value in value_plan(operation.cfs_params, desired, current, placeholders):
            if param.param_id is None:  # internal invariant (ansible-test forbids assert)
                raise NubesError("internal error: param.param_id is unset; please report this bug")
            self.api.set_param(op_uid, param.param_id, value, param.value_uid)
        self.api.validate(op_uid)
        self._run(op_uid)
        return op_uid

    def _create(self, instance_uid: str, name: str, svc_operation_id: Optional[int]) -> str:
        sent_at = time.time()
        try:
            return self.api.create_operation(instance_uid, name, svc_operation_id)
        except OutcomeUnknownError as exc:
            # Never post twice (issue 24): read the instance until the operation shows or its outcome window passed.
            seconds = write_outcome.window(self.api.client.config.timeout, answered=exc.status is not None)
            found = write_outcome.read_back(lambda: self._unfinished(instance_uid, name), sent_at + seconds)
            if found:
                return found[0]
            raise NubesError(
                f"{exc.msg}; instance {instance_uid} has shown no new {name!r} operation in the {seconds:.0f} s "
                "since the request. Re-run the task: should the operation appear later, the API hands it to the "
                "re-run instead of a second one (deck-api 5.4)"
            ) from None

    def _unfinished(self, instance_uid: str, name: str) -> List[str]:
        """The uid of the instance's last operation when it is an unfinished `name` (at most one)."""
        instance = self.api.get_instance(instance_uid)
        if instance is None or not instance.last_operation_uid or (instance.last_operation or "") != name:
            return []
        last = self.api.get_operation(instance.last_operation_uid)
        return [] if last.finished else [last.uid]

    def _run(self, op_uid: str) -> None:
        """Run the operation. A run refused with 422 `Concurrent operations` (another operation of the instance
        holds it; nothing was queued) is re-sent after a poll pause, paid from the client's retry budget."""
        budget = self.api.client.budget
        refused_for = 0.0
        while True:
            unknown = ""
            try:
                outcome = self.api.run(op_uid)
            except OutcomeUnknownError as exc:
                outcome, unknown = "", exc.msg
            if outcome in (RunOutcome.STARTED, RunOutcome.QUEUED):
                return
            operation = self.api.get_operation(op_uid)  # unknown outcome or 422 Concurrent: resolve by reading
            if operation.started:
                return  # deck-api 5.4: 422 `Concurrent operations` = this operation is already running: wait for it
            if outcome != RunOutcome.ALREADY_RUNNING:
                raise NubesError(
                    f"{unknown or f'running operation {op_uid}: the API gave no answer'}; reading it shows that it "
                    "has not started: re-run the task"
                )
            # 422 Concurrent although this operation never started: another operation of the instance holds it.
            # The run was refused (nothing queued), so it is safe to send again once that one is done.
            pause = self.poller.interval(refused_for)
            if not budget.take(pause):
                raise NubesError(
                    f"operation {op_uid} could not start: for {refused_for:.0f} s the API answered 422 `Concurrent "
                    "operations` (another operation of the instance is running), and the task's retry budget "
                    f"({budget.total:.0f} s) is used up. Wait until that operation finishes (Cloud Console), then "
                    "re-run the task"
                )
            self.poller.sleep(pause)
            refused_for += pause

    def wait(self, op_uid: str, name: str, timeout: float) -> OperationResult:
        """Poll until dtFinish is set; raise OperationFailedError / OperationTimeoutError."""
        operation: Optional[Operation] = None
        for _poll in self.poller.intervals(timeout):
            try:
                operation = self.api.get_operation(op_uid)  # transient faults: retried by the client alone
            except ApiError as exc:
                exc.msg += f". Operation {name!r} ({op_uid}) keeps running in the cloud: re-run the task to wait for it"
                raise
            if operation.finished:
                check_success(operation, name)
                return OperationResult(op_uid, name, True, operation.duration)
        state = "not started"
        if operation is not None:
            state = "in progress" if operation.is_in_progress else "pending" if operation.is_pending else "queued"
        raise OperationTimeoutError(
            f"operation {name!r} ({op_uid}) did not finish within wait_timeout={timeout:.0f} s (it is {state} and "
            "keeps running in the cloud); re-run the task to wait for it, or raise wait_timeout",
            operation={"uid": op_uid, "name": name},
        )


def check_success(operation: Operation, name: str) -> None:
    """deck-api 5.3: success only when isSuccessful is true; false or null after finish is a failure."""
    if operation.is_successful is True:
        return
    if name.startswith("delete") and deleted_marker(operation):
        return
    stage = operation.first_failed_stage()
    msg = f"operation {name!r} ({operation.uid}) failed"
    if stage:
        msg += f" at stage {stage!r}"
    if operation.is_successful is None:
        msg += " (finished without a result)"
    msg += ": %s" % (operation.error_log or "the API gave no error log")
    msg += ". Fix the cause (see the error log) and re-run the task"
    raise OperationFailedError(msg, operation={"uid": operation.uid, "name": name, "failed_stage": stage})


__all__ = ["OperationExecutor", "OperationResult", "Poller", "same_uid"]
