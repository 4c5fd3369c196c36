# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read, or wait for, operations that earlier tasks started (the module `nubes.cloud.operation_info`).

The input is what a play has at hand: an operation uid, or earlier results of instance and sub-resource tasks
(`wait: false` returns as soon as the operation runs): a registered result, its `operation`, or a loop's
registered result (its `results`). Each operation is read once. With `wait`, the unfinished ones are waited for
one after the other by the modules' own `OperationExecutor.wait` (the adaptive Poller, `check_success`), under one
deadline: they run side by side in the cloud, so the wait lasts about as long as the longest of them. Nothing is
written, to the API or to the state store (the next run of each task records what its operation applied, P27).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import (
    check_connection_options,
    check_duration_options,
    connect,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    InputError,
    NubesError,
    OperationFailedError,
    OperationTimeoutError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Operation, is_uuid
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import (
    OperationExecutor,
    OperationResult,
    Poller,
    check_success,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import DEFAULT_TIMEOUT

QUEUED, RUNNING, SUCCEEDED, FAILED, NOT_STARTED = "queued", "running", "succeeded", "failed", "not_started"


class Wanted:
    """One operation to read: its uid, the name and timeout the starting task reported, where it was given."""

    def __init__(self, uid: str, where: str, name: str = "", timeout: Optional[int] = None) -> None:
        self.uid = uid
        self.where = where
        self.name = name
        self.timeout = timeout


def collect(operation_uid: Optional[str], operations: Any) -> List[Wanted]:
    """The operations named by `operation_uid` or found in `operations`, in order, each once. Bad input is an
    InputError naming the item, raised before any API call."""
    found: List[Wanted] = []
    if operation_uid:
        found.append(_uid(operation_uid, "operation_uid"))
    items = operations if isinstance(operations, list) else [] if operations is None else [operations]
    for index, item in enumerate(items):
        found.extend(_from_item(item, f"operations[{index}]"))
    unique: List[Wanted] = []
    seen = set()
    for wanted in found:
        if wanted.uid.lower() not in seen:
            seen.add(wanted.uid.lower())
            unique.append(wanted)
    return unique


def _uid(value: Any, where: str) -> Wanted:
    if not is_uuid(value):
        raise InputError(
            f"{where} must be an operation UUID (8-4-4-4-12 hex digits), got {str(value)[:80]!r}: give the "
            "`operation.uid` of an earlier task's result, or the registered result itself, as a template "
            '(operations: "{{ [result1, result2] }}"; a bare name in a list is only a string)'
        )
    return Wanted(str(value).strip(), where)


def _from_item(item: Any, where: str) -> List[Wanted]:
    """One element of `operations`: a uid, an operation dict, a registered task result or a loop's result."""
    if item is None:
        return []
    if isinstance(item, str):
        return [_uid(item, where)]
    if not isinstance(item, Mapping):
        raise InputError(f"{where}: expected an earlier task's registered result or an operation uid, got {item!r}")
    if isinstance(item.get("results"), list):  # a loop's registered result
        found: List[Wanted] = []
        for index, each in enumerate(item["results"]):
            found.extend(_from_item(each, f"{where}.results[{index}]"))
        return found
    if item.get("skipped"):
        return []
    if "uid" in item:  # the `operation` of a result
        wanted = _uid(item["uid"], f"{where}.uid")
        wanted.name = str(item.get("name") or "")
        timeout = item.get("timeout")
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            wanted.timeout = int(timeout)
        return [wanted]
    if "operation" in item:  # an instance or sub-resource task's result; None: it started nothing (or check mode)
        return _from_item(item["operation"], f"{where}.operation")
    if item.get("failed"):
        raise InputError(
            f"{where} is the result of a task that failed without starting an operation: {item.get('msg')}"
        )
    raise InputError(
        f"{where} is not the result of a nubes.cloud instance or sub-resource task (it has no `operation`), an "
        "operation, or an operation uid; register the task's result and pass that"
    )


def describe(operation: Operation, name: str) -> Dict[str, Any]:
    """What is reported of one operation (the API's fields, normalised)."""
    status = NOT_STARTED
    if operation.finished:
        status = FAILED if _failure(operation, name) else SUCCEEDED
    elif operation.is_pending:
        status = QUEUED
    elif operation.started:
        status = RUNNING
    view: Dict[str, Any] = {
        "uid": operation.uid,
        "name": name,
        "instance_uid": str(operation.data.get("instanceUid") or ""),
        "resource_name": str(operation.data.get("displayName") or ""),
        "status": status,
        "finished": operation.finished,
        "duration": operation.duration,
        "error_log": operation.error_log if status == FAILED else "",
    }
    return view


class OperationWaiter:
    """Reads the operations once and, with wait, waits for the unfinished ones under one deadline: wait_timeout,
    else the longest timeout the starting tasks reported (P8: theirs, else the service's for the operation)."""

    def __init__(self, api: DeckApi, executor: OperationExecutor) -> None:
        self.api = api
        self.executor = executor

    def run(self, wanted: Sequence[Wanted], wait: bool, wait_timeout: Optional[int]) -> Dict[str, Any]:
        """The result of the module; a failed or (with wait) unfinished operation raises NubesError whose
        `operations` detail reports every operation."""
        timeout = wait_timeout or max([w.timeout for w in wanted if w.timeout] or [DEFAULT_TIMEOUT])
        clock = self.executor.poller.clock
        deadline = clock() + timeout
        read: List[Tuple[Operation, str]] = []
        for item in wanted:
            operation = self.api.get_operation(item.uid)
            read.append((operation, operation.operation or item.name or "operation"))
        views = [describe(operation, name) for operation, name in read]
        problems: List[str] = []
        for index, (operation, name) in enumerate(read):
            if operation.finished:
                problems.extend(_failure(operation, name))
            elif wait:
                problems.extend(self._wait(operation, name, max(deadline - clock(), 0.0), views[index]))
        if problems:
            raise NubesError(_summary(problems, len(read)), operations=views)
        return {"changed": False, "operations": views, "finished": all(view["finished"] for view in views)}

    def _wait(self, operation: Operation, name: str, remaining: float, view: Dict[str, Any]) -> List[str]:
        """Wait for one operation (the modules' own wait); updates its view. Returns its problem, if any."""
        try:
            result: OperationResult = self.executor.wait(operation.uid, name, remaining)
        except OperationFailedError as exc:
            view.update(describe(self.api.get_operation(operation.uid), name))  # its error log and stages
            return [exc.msg]
        except OperationTimeoutError as exc:
            return [exc.msg]  # the view stays as read first: not finished
        view.update(status=SUCCEEDED, finished=True, duration=result.duration)
        return []


def _failure(operation: Operation, name: str) -> List[str]:
    """The failure message of a finished operation (deck-api 5.3, the delete follow-up counts as success)."""
    try:
        check_success(operation, name)
    except OperationFailedError as exc:
        return [exc.msg]
    return []


def _summary(problems: List[str], total: int) -> str:
    if len(problems) == 1:
        return problems[0]
    return f"{len(problems)} of {total} operations did not succeed: " + " | ".join(problems)


def run_operation_info(
    params: Mapping[str, Any], transport: Any = None, poller: Optional[Poller] = None
) -> Dict[str, Any]:
    """The module's work on its validated params; raises NubesError (token and secrets redacted)."""
    check_connection_options(params)
    check_duration_options(params)
    wanted = collect(params.get("operation_uid"), params.get("operations"))  # bad input fails before any call
    client, redactor = connect(params, transport)
    api = DeckApi(client)
    waiter = OperationWaiter(api, OperationExecutor(api, poller))
    try:
        return redactor.value(waiter.run(wanted, bool(params.get("wait")), params.get("wait_timeout")))
    except NubesError as exc:
        exc.msg = redactor(exc.msg)
        exc.details = redactor.value(exc.details)
        raise
    finally:
        client.close()
