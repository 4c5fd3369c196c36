"""Planning a run: duration, stages, failure, the delete follow-up (deck-api.md 5.2, 5.4).

The plan fixes every timestamp when the operation is run; views and effects only read it.
"""

# ruff: noqa: RUF001 - Russian texts are part of the API

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.emulator import assumptions as A
from tests.emulator.model import Instance, Operation
from tests.emulator.validation import as_param_string

if TYPE_CHECKING:
    from tests.emulator.engine import Emulator


def plan(
    emu: Emulator,
    op: Operation,
    inst: Instance,
    now: float,
    fail_stage: str | int | None,
    fail_error: str | None,
    forced_failure: bool,
) -> None:
    """Fix the operation's timeline: submit now, queue, stages, finish (earlier when a stage fails)."""
    sid = inst.service_id
    duration = emu.settings.duration_for(sid, emu.svc_short(sid), op.operation)
    stages = list(A.STAGES.get(op.operation, A.STAGES["*"]))
    fail_index: int | None = None
    message = fail_error
    if sid == 1:  # dummy: durationMs / failAtStart / failInProgress / whereFail (deck-api.md 3.4)
        duration, fail_index, message, stages = dummy_plan(emu, op, duration, stages)
    if forced_failure:
        fail_index = stage_index(stages, fail_stage)
        message = fail_error or A.DEFAULT_FAILURE_MESSAGE
    op.stages = stages
    op.t_submit = now
    op.t_start = now + duration * emu.settings.pending_fraction
    op.t_planned_end = now + duration
    step = (op.t_planned_end - op.t_start) / len(stages)
    if fail_index is not None:
        op.fail_stage = fail_index
        op.fail_message = message
        op.t_finish = op.t_start + step * (fail_index + 1)
    else:
        op.t_finish = op.t_planned_end
    emu.unapplied.add(op.uid.lower())
    if op.operation == "delete" and fail_index is None:
        plan_followup(emu, op, inst, duration)


def delay(emu: Emulator, op: Operation, seconds: float) -> None:
    """Push a planned operation (and its follow-up) later: a cold start keeps it queued longer."""
    for attr in ("t_start", "t_finish", "t_planned_end"):
        value = getattr(op, attr)
        if value is not None:
            setattr(op, attr, value + seconds)
    follow = emu.ops.get(op.followup_uid.lower()) if op.followup_uid else None
    if follow is not None and op.t_finish is not None:
        follow.created = follow.t_submit = follow.t_start = op.t_finish
        follow.t_finish = follow.t_planned_end = (follow.t_planned_end or op.t_finish) + seconds


def dummy_plan(
    emu: Emulator, op: Operation, duration: float, stages: list[str]
) -> tuple[float, int | None, str | None, list[str]]:
    values: dict[str, str] = {}
    for param in emu.op_def(op)["cfsParams"]:
        row = op.rows.get(param["svcOperationCfsParamId"])
        default = param.get("defaultValue")
        raw = row.value if row and row.value != "" else as_param_string(default)
        values[param["svcOperationCfsParam"]] = raw
    if op.operation not in ("create", "modify"):
        return duration, None, None, stages
    stages = list(A.DUMMY_STAGES)
    millis = int(values.get("durationMs") or 0)
    if millis > 0:
        duration = millis / 1000.0
    if values.get("failAtStart", "").lower() == "true":
        return duration, 0, "failAtStart: операция завершена с ошибкой на старте", stages
    where = int(values.get("whereFail") or 0)
    if values.get("failInProgress", "").lower() == "true" and where > 0:
        index = min(where, len(stages)) - 1
        return duration, index, f"failInProgress: ошибка на этапе {where} ({stages[index]})", stages
    return duration, None, None, stages


def plan_followup(emu: Emulator, op: Operation, inst: Instance, duration: float) -> None:
    assert op.t_finish is not None
    uid = emu.new_uid(A.OPERATION_UID_UPPERCASE)
    follow = Operation(
        uid,
        inst.uid,
        op.svc_operation_id,
        op.operation,
        op.t_finish,
        {"id": "0", "login": A.FOLLOWUP_UPDATER, "name": A.FOLLOWUP_UPDATER},
        stages=list(A.STAGES["followup"]),
        fail_stage=0,
        fail_message=A.FOLLOWUP_ERROR_LOG,
        followup_of=op.uid,
    )
    follow.t_submit = op.t_finish
    follow.t_start = op.t_finish
    follow.t_planned_end = follow.t_finish = op.t_finish + max(duration * A.FOLLOWUP_DURATION_FRACTION, 0.001)
    op.followup_uid = uid
    emu.ops[uid.lower()] = follow
    emu.unapplied.add(uid.lower())
    inst.operation_uids.append(uid)


def stage_index(stages: list[str], stage: str | int | None) -> int:
    if stage is None:
        return len(stages) - 1
    if isinstance(stage, int) or str(stage).isdigit():
        return max(0, min(int(stage), len(stages)) - 1)
    for i, name in enumerate(stages):
        if name.lower() == str(stage).lower():
            return i
    return len(stages) - 1
