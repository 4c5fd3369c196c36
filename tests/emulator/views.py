"""JSON views of instances, operations and param rows, computed from the store at a given time."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tests.emulator import assumptions as A
from tests.emulator.auth import short_name
from tests.emulator.catalogue import public
from tests.emulator.model import Instance, Operation, ParamRow
from tests.emulator.timefmt import fmt
from tests.emulator.validation import stringify_default

if TYPE_CHECKING:
    from tests.emulator.engine import Emulator

Json = dict[str, Any]


def select(view: Json, fields: Iterable[str], always: Iterable[str] = ()) -> Json:
    wanted = list(fields)
    keep = [k for k in always if k in view and k not in wanted] + wanted
    return {k: view[k] for k in keep if k in view}


def settled_status(inst: Instance) -> str:
    return inst.status


def instance_status(emu: Emulator, inst: Instance, active: Operation | None) -> str:
    if active is not None and active.followup_of is None and not inst.is_deleted:
        return A.STATUS_WHILE_RUNNING.get(active.operation, A.STATUS_WHILE_RUNNING_OTHER)
    return inst.status


def instance_view(emu: Emulator, inst: Instance, now: float) -> Json:
    active = emu.active_op(inst, now)
    last = emu.last_op(inst, now)
    phase = active.phase(now) if active else None
    svc = emu.catalogue.services[inst.service_id]
    params = (inst.state or {}).get("params", {})
    return {
        "instanceUid": inst.uid,
        "displayName": inst.display_name,
        "descr": inst.descr,
        "serviceId": inst.service_id,
        "svc": svc["svcShort"],
        "resourceRealm": params.get("resourceRealm"),
        "explainedStatus": instance_status(emu, inst, active),
        "isDeleted": inst.is_deleted,
        "operationIsPending": phase == "pending",
        "operationIsInProgress": phase == "running",
        "availableOperations": emu.available_operations(inst),
        "lastOperation": last.operation if last else None,
        "lastOperationUid": last.uid if last else None,
        "instanceConfigDtCreated": fmt(inst.created),
        "dtCreated": fmt(inst.created),
        "state": inst.state,
    }


def _stage_views(op: Operation, now: float) -> list[Json]:
    if op.t_start is None or op.t_planned_end is None or now < op.t_start:
        return []
    step = (op.t_planned_end - op.t_start) / max(len(op.stages), 1)
    result = []
    for index, name in enumerate(op.stages):
        start = op.t_start + index * step
        if now < start or (op.fail_stage is not None and index > op.fail_stage):
            break
        finish = start + step
        stage_uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{op.uid}/{index}"))
        done = now >= finish
        failed = done and op.fail_stage == index
        if not done:
            message = A.STAGE_IN_PROGRESS_MSG
        elif failed:
            message = json.dumps({"result": "FAILURE", "message": op.fail_message}, ensure_ascii=False)
        else:
            message = json.dumps({"result": "SUCCESS", "message": f"{name}: выполнено"}, ensure_ascii=False)
        result.append(
            {
                "instanceOperationStageUid": stage_uid,
                "stage": name,
                "isSuccessful": (not failed) if done else None,
                "dtStart": fmt(start),
                "dtFinish": fmt(finish) if done else None,
                "duration": round(step, 3) if done else None,
                "stageMsg": message,
            }
        )
    return result


def _param_views(emu: Emulator, op: Operation) -> list[Json]:
    result = []
    for param in emu.op_def(op)["cfsParams"]:
        row = op.rows.get(param["svcOperationCfsParamId"])
        item = public(param)
        item["defaultValue"] = stringify_default(param.get("defaultValue"))
        item["paramValue"] = None if row is None or param.get("isSecret") else row.value
        item["instanceOperationCfsParamUid"] = row.uid if row else None
        result.append(item)
    return result


def _updated(op: Operation, now: float) -> float:
    times = [op.created]
    for t in (op.t_submit, op.t_start, op.t_finish):
        if t is not None and t <= now:
            times.append(t)
    return max(times)


def operation_view(emu: Emulator, op: Operation, now: float) -> Json:
    phase = op.phase(now)
    inst = emu.find_instance(op.instance_uid)
    op_def = emu.op_def(op)
    finished = phase == "finished"
    failed = finished and not op.successful
    if failed and op.followup_of is None:
        stage = op.stages[op.fail_stage or 0] if op.stages else "?"
        error_log: str | None = f"Ошибка на этапе «{stage}»: {op.fail_message}"
    else:
        error_log = op.fail_message if failed else None
    submitted = phase != "draft"
    started = phase in ("running", "finished")
    assert inst is not None
    return {
        "instanceOperationUid": op.uid,
        "instanceUid": op.instance_uid,
        "operation": op.operation,
        "svcOperationId": op.svc_operation_id,
        "serviceId": inst.service_id,
        "svc": emu.svc_short(inst.service_id),
        "displayName": inst.display_name,
        "isPending": phase == "pending",
        "isInProgress": phase == "running",
        "isSuccessful": (op.successful if finished else None),
        "dtCreated": fmt(op.created),
        "dtUpdated": fmt(_updated(op, now)),
        "dtSubmit": fmt(op.t_submit) if submitted else None,
        "dtStart": fmt(op.t_start) if started else None,
        "dtFinish": fmt(op.t_finish) if finished else None,
        "submitResult": A.SUBMIT_RESULT if submitted else None,
        "duration": _duration(op, now, phase),
        "errorLog": error_log,
        "updaterId": op.updater.get("id"),
        "updaterLogin": op.updater.get("login"),
        "updaterShortname": short_name(op.updater.get("name", "")),
        "man": op_def.get("man", ""),
        "cfsParams": _param_views(emu, op),
        "stages": _stage_views(op, now),
        "state": op.result_state if finished and op.successful else None,
    }


def _duration(op: Operation, now: float, phase: str) -> float | None:
    if phase == "finished" and op.t_start is not None and op.t_finish is not None:
        return round(op.t_finish - op.t_start, 3)
    if phase == "running" and op.t_start is not None:
        return round(now - op.t_start, 3)
    return None


def row_view(emu: Emulator, op: Operation, row: ParamRow) -> Json:
    param = emu.catalogue.params[row.param_id]
    return {
        "instanceOperationCfsParamUid": row.uid,
        "instanceOperationUid": op.uid,
        "svcOperationCfsParamId": row.param_id,
        "svcOperationCfsParam": param["svcOperationCfsParam"],
        "label": param.get("label"),
        "paramValue": None if param.get("isSecret") else row.value,
    }


def raw_statuses(body: Any, mapping: dict[str, str]) -> Any:
    """Replace explainedStatus values (in an instance or a list) by localised raw ones."""
    if isinstance(body, dict):
        return {
            k: (mapping.get(v, v) if k == "explainedStatus" and isinstance(v, str) else raw_statuses(v, mapping))
            for k, v in body.items()
        }
    if isinstance(body, list):
        return [raw_statuses(v, mapping) for v in body]
    return body
