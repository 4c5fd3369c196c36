"""The emulated backend: instances, operations and their effects, driven by the clock.

Nothing runs in the background: every request first `settle`s the store (applies the effects of operations
whose finish time has passed, in finish order); statuses are computed from timestamps when they are read.
"""

from __future__ import annotations

import copy
import random
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.emulator import assumptions as A
from tests.emulator import effects, persistence, planner, views
from tests.emulator.catalogue import Catalogue
from tests.emulator.clock import Clock
from tests.emulator.errors import cfml_error
from tests.emulator.faults import FaultSet
from tests.emulator.model import Instance, Operation, ParamRow
from tests.emulator.settings import Settings
from tests.emulator.validation import as_param_string, check_record_value, check_value, missing_required

Json = dict[str, Any]


@dataclass
class Response:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class RequestContext:
    """What a handler needs to know about the HTTP request beyond its parsed inputs."""

    method: str
    path: str
    form: str | None = None
    claims: dict[str, Any] = field(default_factory=dict)


def location(uid: str) -> dict[str, str]:
    return {"Location": f"{A.LOCATION_PREFIX}{uid}"}


class Emulator:
    """The state and behaviour of the deck-api; all public methods are thread-safe."""

    def __init__(
        self,
        catalogue: Catalogue,
        clock: Clock,
        faults: FaultSet,
        settings: Settings,
        seed: int = 0,
        state_file: Path | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.clock = clock
        self.faults = faults
        self.settings = settings
        self.lock = threading.RLock()
        self.instances: dict[str, Instance] = {}
        self.ops: dict[str, Operation] = {}
        self.row_index: dict[str, str] = {}  # param-row uid (lower) -> operation uid
        self.unapplied: set[str] = set()  # submitted operations whose effects are not applied yet
        self._ids = random.Random(seed)
        self.secrets = random.Random(seed + 1)
        self.state_file = state_file
        self.dirty = False
        if state_file is not None and state_file.exists():
            self._load(state_file)

    # ------------------------------------------------------------------ ids, lookups, persistence
    def new_uid(self, upper: bool) -> str:
        while True:
            value = str(uuid.UUID(int=self._ids.getrandbits(128), version=4))
            value = value.upper() if upper else value
            if (
                value.upper() not in self.instances
                and value.lower() not in self.ops
                and value.lower() not in self.row_index
            ):
                return value

    def find_instance(self, uid: str) -> Instance | None:
        return self.instances.get(uid.upper())

    def find_op(self, uid: str) -> Operation | None:
        return self.ops.get(uid.lower())

    def _instance_or_404(self, uid: str) -> Instance:
        inst = self.find_instance(uid)
        if inst is None:
            raise cfml_error(404, f"Instance {uid} not found", A.TAG_INSTANCES)
        return inst

    def _op_or_404(self, uid: str, tag: str = A.TAG_OPERATIONS) -> Operation:
        op = self.find_op(uid)
        if op is None:
            raise cfml_error(404, f"Instance operation {uid} not found", tag)
        return op

    def svc_short(self, sid: int) -> str:
        return str(self.catalogue.services[sid]["svcShort"])

    def op_def(self, op: Operation) -> Json:
        return self.catalogue.operations[op.svc_operation_id]

    def _load(self, path: Path) -> None:
        data = persistence.load(path)
        for item in data.get("instances", []):
            inst = Instance.from_dict(item)
            self.instances[inst.uid.upper()] = inst
        shift = self.catalogue.operation_id_offset - int(data.get("operation_id_offset", 0))
        for item in data.get("operations", []):
            op = Operation.from_dict(item)
            op.svc_operation_id += shift  # the state file may come from a start with another offset
            self.ops[op.uid.lower()] = op
            for row in op.rows.values():
                self.row_index[row.uid.lower()] = op.uid
            if op.t_finish is not None and not op.applied:
                self.unapplied.add(op.uid.lower())
        offset = data.get("clock_offset")
        if isinstance(offset, (int, float)) and offset > self.clock.offset:
            self.clock.advance(offset - self.clock.offset)

    def flush(self) -> None:
        """Write the state file (atomically) if anything changed since the last write."""
        with self.lock:
            if not self.dirty or self.state_file is None:
                self.dirty = False
                return
            data = {
                "version": 1,
                "clock_offset": self.clock.offset,
                "operation_id_offset": self.catalogue.operation_id_offset,
                "instances": [i.to_dict() for i in self.instances.values()],
                "operations": [o.to_dict() for o in self.ops.values()],
            }
            persistence.save(self.state_file, data)
            self.dirty = False

    def reset(self) -> None:
        with self.lock:
            self.instances.clear()
            self.ops.clear()
            self.row_index.clear()
            self.unapplied.clear()
            self.dirty = True

    # ------------------------------------------------------------------ time
    def now(self) -> float:
        return self.clock.now()

    def settle(self, now: float) -> None:
        """Apply the effects of every operation that finished by `now`, oldest finish first."""
        if not self.unapplied:
            return
        due = [op for uid in self.unapplied if (op := self.ops[uid]).t_finish is not None and op.t_finish <= now]
        for op in sorted(due, key=lambda o: (o.t_finish or 0.0, o.created)):
            effects.apply_effects(self, op)
            op.applied = True
            self.unapplied.discard(op.uid.lower())
            self.dirty = True

    def active_op(self, inst: Instance, now: float) -> Operation | None:
        for uid in reversed(inst.operation_uids):
            op = self.ops.get(uid.lower())
            if op is not None and op.active(now):
                return op
        return None

    def last_op(self, inst: Instance, now: float) -> Operation | None:
        best: Operation | None = None
        for uid in inst.operation_uids:
            op = self.ops.get(uid.lower())
            if op is None or op.t_submit is None or op.t_submit > now:
                continue
            if best is None or (best.t_submit is not None and op.t_submit >= best.t_submit):
                best = op
        return best

    def available_operations(self, inst: Instance) -> list[Json]:
        sid = inst.service_id
        ops = self.catalogue.services[sid]["operations"]
        if inst.is_deleted:
            names: set[str] = set()
        elif inst.state is None:
            names = {"create"}
        elif inst.status == A.STATUS_SUSPENDED:
            names = {"resume", "delete"}
        else:
            names = {o["operation"] for o in ops} - {"create", "resume"}
        return [
            {"svcOperationId": o["svcOperationId"], "operation": o["operation"]} for o in ops if o["operation"] in names
        ]

    # ------------------------------------------------------------------ instances
    def list_instances(self, query: dict[str, str]) -> Response:
        with self.lock:
            now = self.now()
            self.settle(now)
            items = sorted(self.instances.values(), key=lambda i: (i.created, i.uid))
            if query.get("serviceId"):
                try:
                    sid = int(query["serviceId"])
                except ValueError as exc:
                    raise cfml_error(
                        400, f"serviceId must be an integer, got '{query['serviceId']}'", A.TAG_INSTANCES
                    ) from exc
                items = [i for i in items if i.service_id == sid]
            page = _positive_int(query.get("page"), 1, "page")
            size_raw = query.get("pageSize") or (query.get("size") if A.HONOUR_SIZE_PARAM else None)
            size = min(_positive_int(size_raw, A.DEFAULT_PAGE_SIZE, "pageSize"), A.MAX_PAGE_SIZE)
            chosen = items[(page - 1) * size : page * size]
            fields = _fields(query) or list(A.LIST_ITEM_FIELDS)
            results = [views.select(views.instance_view(self, i, now), fields, A.INSTANCE_ID_FIELDS) for i in chosen]
            return Response(200, {"results": results, A.LIST_COUNT_KEY: len(items)})

    def get_instance(self, uid: str, query: dict[str, str]) -> Response:
        with self.lock:
            now = self.now()
            self.settle(now)
            inst = self._instance_or_404(uid)
            view = views.instance_view(self, inst, now)
            fields = _fields(query)
            return Response(200, {"instance": views.select(view, fields, A.INSTANCE_ID_FIELDS) if fields else view})

    def create_instance(self, body: Any, ctx: RequestContext) -> Response:
        body = _object(body, A.TAG_INSTANCES)
        sid = _int_field(body, "serviceId", A.TAG_INSTANCES)
        name = body.get("displayName")
        if not isinstance(name, str) or not name.strip():
            raise cfml_error(400, "displayName is required", A.TAG_INSTANCES)
        descr = body.get("descr") or ""
        with self.lock:
            if sid not in self.catalogue.services:
                raise cfml_error(400, f"Service {sid} does not exist", A.TAG_INSTANCES)
            self._check_display_name(sid, name, ctx)
            uid = self.new_uid(A.INSTANCE_UID_UPPERCASE)
            self.instances[uid.upper()] = Instance(uid, name, str(descr), sid, self.now())
            self.dirty = True
            return Response(A.CREATED_STATUS, dict(A.CREATED_BODY), location(uid))

    def _check_display_name(self, sid: int, name: str, ctx: RequestContext) -> None:
        taken = any(
            i.service_id == sid
            and i.display_name == name
            and (A.UNIQUE_DISPLAY_NAME_SCOPE_INCLUDES_DELETED or not i.is_deleted)
            for i in self.instances.values()
        )
        if not taken:
            return
        switch = self.settings.unique_display_names  # None: the service's catalogue fact decides
        enforce = (self.catalogue.unique_display_names(sid) if switch is None else switch) or (
            self.faults.take(("not_unique",), ctx.method, ctx.path, ctx.form, service=(sid, self.svc_short(sid)))
            is not None
        )
        if enforce:
            raise cfml_error(400, A.NOT_UNIQUE_MESSAGE.format(name=name, svc=sid), A.TAG_INSTANCES)

    def delete_instance(self, uid: str) -> Response:
        with self.lock:
            self.settle(self.now())
            inst = self._instance_or_404(uid)
            if any(self.ops[u.lower()].submitted for u in inst.operation_uids if u.lower() in self.ops):
                raise cfml_error(422, A.DELETE_WITH_STATE_MESSAGE, A.TAG_INSTANCES)
            for op_uid in inst.operation_uids:
                op = self.ops.pop(op_uid.lower(), None)
                for row in op.rows.values() if op else ():
                    self.row_index.pop(row.uid.lower(), None)
            del self.instances[inst.uid.upper()]
            self.dirty = True
            return Response(A.DELETE_PLACEHOLDER_STATUS, {})

    # ------------------------------------------------------------------ operations
    def create_operation(self, body: Any, ctx: RequestContext) -> Response:
        body = _object(body, A.TAG_OPERATIONS)
        inst_uid = body.get("instanceUid")
        if not isinstance(inst_uid, str) or not inst_uid:
            raise cfml_error(400, "instanceUid is required", A.TAG_OPERATIONS)
        name = body.get("operation")
        if not name:
            raise cfml_error(500, A.MISSING_OPERATION_MESSAGE, A.TAG_OPERATIONS)  # deck-api.md 2.2
        with self.lock:
            now = self.now()
            self.settle(now)
            inst = self._instance_or_404(inst_uid)
            op_def = self._resolve_operation(inst, str(name), body.get("svcOperationId"))
            self._answer_existing_operation(inst, op_def, now, ctx)
            self._require_available(inst, op_def["operation"])
            uid = self.new_uid(A.OPERATION_UID_UPPERCASE)
            op = Operation(uid, inst.uid, op_def["svcOperationId"], op_def["operation"], now, _updater(ctx.claims))
            if op.operation == "modify" and inst.state is not None:
                self._prefill(op, op_def, inst.state.get("params", {}))
            self.ops[uid.lower()] = op
            inst.operation_uids.append(uid)
            self.dirty = True
            return Response(A.CREATED_STATUS, dict(A.CREATED_BODY), location(uid))

    def _answer_existing_operation(self, inst: Instance, op_def: Json, now: float, ctx: RequestContext) -> None:
        """deck-api.md 2.2 (CM): 409/400 + Location of the unfinished operation of the same kind (fault-driven)."""
        existing = next(
            (
                op
                for uid in reversed(inst.operation_uids)
                if (op := self.ops.get(uid.lower())) is not None
                and op.svc_operation_id == op_def["svcOperationId"]
                and op.followup_of is None
                and op.phase(now) != "finished"
            ),
            None,
        )
        if existing is None:
            return
        service = (inst.service_id, self.svc_short(inst.service_id))
        rule = self.faults.take(("operation_exists",), ctx.method, ctx.path, ctx.form, existing.operation, service)
        if rule is not None:
            raise cfml_error(
                rule.status or A.OPERATION_EXISTS_STATUS,
                A.OPERATION_EXISTS_MESSAGE.format(uid=existing.uid),
                A.TAG_OPERATIONS,
                location(existing.uid),
            )

    def _resolve_operation(self, inst: Instance, name: str, svc_op_id: Any) -> Json:
        sid = inst.service_id
        if svc_op_id not in (None, ""):
            try:
                oid = int(svc_op_id)
            except (TypeError, ValueError) as exc:
                raise cfml_error(
                    400, f"svcOperationId must be an integer, got {svc_op_id!r}", A.TAG_OPERATIONS
                ) from exc
            op_def = self.catalogue.operation(oid)
            if op_def is None or self.catalogue.operation_service[oid] != sid:
                raise cfml_error(400, f"Service operation {oid} does not belong to service {sid}", A.TAG_OPERATIONS)
            if op_def["operation"].lower() != name.lower():
                raise cfml_error(
                    400, f"Service operation {oid} is '{op_def['operation']}', not '{name}'", A.TAG_OPERATIONS
                )
            return op_def
        found = self.catalogue.operation_by_name(sid, name)
        if found is None:
            known = ", ".join(self.catalogue.operation_names(sid))
            raise cfml_error(
                400, f"Operation '{name}' does not exist for service {sid} (known: {known})", A.TAG_OPERATIONS
            )
        return found

    def _require_available(self, inst: Instance, name: str) -> None:
        if name not in {o["operation"] for o in self.available_operations(inst)}:
            status = views.settled_status(inst)
            raise cfml_error(
                A.UNAVAILABLE_OPERATION_STATUS,
                f"Operation '{name}' is not available for instance {inst.uid} in status '{status}'",
                A.TAG_OPERATIONS,
            )

    def _prefill(self, op: Operation, op_def: Json, params: Json) -> None:
        for param in op_def["cfsParams"]:
            code = param["svcOperationCfsParam"]
            if param.get("isSecret") or code not in params or params[code] is None:
                continue
            row_uid = self.new_uid(A.OPERATION_UID_UPPERCASE)
            op.rows[param["svcOperationCfsParamId"]] = ParamRow(
                row_uid, param["svcOperationCfsParamId"], as_param_string(params[code])
            )
            self.row_index[row_uid.lower()] = op.uid

    def get_operation(self, uid: str, query: dict[str, str]) -> Response:
        with self.lock:
            now = self.now()
            self.settle(now)
            op = self._op_or_404(uid)
            view = views.operation_view(self, op, now)
            fields = _fields(query)
            return Response(
                200, {"instanceOperation": views.select(view, fields, A.OPERATION_ID_FIELDS) if fields else view}
            )

    def default_operation(self, svc_op_id: str, query: dict[str, str]) -> Response:
        oid = _parse_int(svc_op_id, "svcOperationId", A.TAG_OPERATIONS)
        if oid not in self.catalogue.operations:
            raise cfml_error(404, f"Service operation {oid} not found", A.TAG_OPERATIONS)
        view = self.catalogue.operation_view(oid)
        fields = _fields(query)
        return Response(200, {"svcOperation": views.select(view, fields) if fields else view})

    def list_operations(self, query: dict[str, str]) -> Response:
        if "instanceUid" in query:
            raise cfml_error(500, A.SQL_ERROR_MESSAGE, A.TAG_OPERATIONS)  # deck-api.md 2.2: broken, never use
        raise cfml_error(400, "instanceUid is required", A.TAG_OPERATIONS)

    # ------------------------------------------------------------------ params
    def post_param(self, body: Any) -> Response:
        body = _object(body, A.TAG_PARAMS)
        op_uid = body.get("instanceOperationUid")
        if not isinstance(op_uid, str) or not op_uid:
            raise cfml_error(400, "instanceOperationUid is required", A.TAG_PARAMS)
        pid = _int_field(body, "svcOperationCfsParamId", A.TAG_PARAMS)
        value = as_param_string(body.get("paramValue"))
        with self.lock:
            now = self.now()
            self.settle(now)
            op = self._op_or_404(op_uid, A.TAG_PARAMS)
            self._require_draft(op)
            param = self._param_of(op, pid)
            inst = self._instance_or_404(op.instance_uid)
            check_value(param, value, self._lookup_live)
            self._check_key_param(op, inst, param, value)
            row = op.rows.get(pid)
            if row is not None and A.POST_ON_EXISTING_ROW_UPDATES:
                row.value = value
                self.dirty = True
                return Response(A.CREATED_STATUS, dict(A.CREATED_BODY), location(row.uid))
            row_uid = self.new_uid(A.OPERATION_UID_UPPERCASE)
            op.rows[pid] = ParamRow(row_uid, pid, value)
            self.row_index[row_uid.lower()] = op.uid
            self.dirty = True
            return Response(A.CREATED_STATUS, dict(A.CREATED_BODY), location(row_uid))

    def put_param(self, body: Any) -> Response:
        body = _object(body, A.TAG_PARAMS)
        row_uid = body.get("instanceOperationCfsParamUid")
        if not isinstance(row_uid, str) or not row_uid:
            raise cfml_error(400, "instanceOperationCfsParamUid is required", A.TAG_PARAMS)
        value = as_param_string(body.get("paramValue"))
        with self.lock:
            self.settle(self.now())
            op_uid = self.row_index.get(row_uid.lower())
            op = self.find_op(op_uid) if op_uid else None
            row = next((r for r in op.rows.values() if r.uid.lower() == row_uid.lower()), None) if op else None
            if op is None or row is None:
                raise cfml_error(404, f"Instance operation param {row_uid} not found", A.TAG_PARAMS)
            if "svcOperationCfsParamId" in body and str(body["svcOperationCfsParamId"]) != str(row.param_id):
                raise cfml_error(
                    400, f"Row {row_uid} holds param {row.param_id}, not {body['svcOperationCfsParamId']}", A.TAG_PARAMS
                )
            self._require_draft(op)
            param = self.catalogue.params[row.param_id]
            check_value(param, value, self._lookup_live)
            self._check_key_param(op, self._instance_or_404(op.instance_uid), param, value)
            row.value = value
            self.dirty = True
            return Response(A.PUT_PARAM_STATUS, {})

    def list_params(self, query: dict[str, str]) -> Response:
        op_uid = query.get("instanceOperationUid")
        if not op_uid:
            raise cfml_error(400, "instanceOperationUid is required", A.TAG_PARAMS)
        with self.lock:
            op = self._op_or_404(op_uid, A.TAG_PARAMS)
            results = [views.row_view(self, op, row) for row in op.rows.values()]
            return Response(200, {"results": results, A.LIST_COUNT_KEY: len(results)})

    def _require_draft(self, op: Operation) -> None:
        if op.submitted:
            raise cfml_error(422, A.SUBMITTED_OPERATION_MESSAGE.format(uid=op.uid), A.TAG_PARAMS)

    def _param_of(self, op: Operation, pid: int) -> Json:
        param = self.catalogue.params.get(pid)
        if param is None or self.catalogue.param_operation[pid] != op.svc_operation_id:
            raise cfml_error(
                A.PARAM_ERROR_STATUS,
                f"Parameter {pid} does not belong to service operation {op.svc_operation_id} ({op.operation})",
                A.TAG_PARAMS,
            )
        return param

    def _lookup_live(self, uid: str) -> Instance | None:
        return self.find_instance(uid)

    # ------------------------------------------------------------------ validate and run
    def validate(self, uid: str) -> Response:
        with self.lock:
            self.settle(self.now())
            op = self._op_or_404(uid, A.TAG_VALIDATE)
            self._validate(op, self._instance_or_404(op.instance_uid), A.TAG_VALIDATE)
            return Response(200, copy.deepcopy(A.VALIDATE_OK_BODY))

    def _values(self, op: Operation) -> dict[int, str]:
        return {pid: row.value for pid, row in op.rows.items()}

    def _validate(self, op: Operation, inst: Instance, tag: str) -> None:
        params = self.op_def(op)["cfsParams"]
        missing = missing_required(params, self._values(op))
        if missing:
            raise cfml_error(
                A.MISSING_REQUIRED_STATUS, A.MISSING_REQUIRED_MESSAGE.format(codes=", ".join(missing)), tag
            )
        for row in op.rows.values():
            param = self.catalogue.params[row.param_id]
            check_value(param, row.value, self._lookup_live)
            self._check_key_param(op, inst, param, row.value)
        current = (inst.state or {}).get("params", {})
        values = {str(k): as_param_string(v) for k, v in current.items()}
        values.update({self.catalogue.params[r.param_id]["svcOperationCfsParam"]: r.value for r in op.rows.values()})
        check_record_value(self.svc_short(inst.service_id), values, tag)

    def _check_key_param(self, op: Operation, inst: Instance, param: Json, value: str) -> None:
        """uniqueScope parent: sub-resource keys on the parent; instance keys among siblings of the same parent."""
        if param.get("uniqueScope") != "parent" or value == "":
            return
        code = param["svcOperationCfsParam"]
        sub = self.catalogue.subresource_of(op.operation)
        if sub is not None:
            verb, name = sub
            entries = ((inst.state or {}).get("subresources") or {}).get(name, [])
            exists = any(str(e.get(code)) == value for e in entries)
            if verb == "create" and exists:
                raise cfml_error(
                    A.REFERENCE_ERROR_STATUS,
                    f"{name} '{value}' already exists on instance {inst.uid} (not unique)",
                    A.TAG_PARAMS,
                )
            if verb != "create" and not exists:
                raise cfml_error(
                    A.REFERENCE_ERROR_STATUS, f"{name} '{value}' not found on instance {inst.uid}", A.TAG_PARAMS
                )
            return
        parent_param = next((p for p in self.op_def(op)["cfsParams"] if p.get("refSvcId") is not None), None)
        parent_row = op.rows.get(parent_param["svcOperationCfsParamId"]) if parent_param else None
        parent = parent_row.value.upper() if parent_row else None
        parent_code = parent_param["svcOperationCfsParam"] if parent_param else None
        for other in self.instances.values():
            if other is inst or other.service_id != inst.service_id or other.is_deleted or other.state is None:
                continue
            params = other.state.get("params", {})
            if str(params.get(code)) == value and (
                parent is None or str(params.get(parent_code, "")).upper() == parent
            ):
                raise cfml_error(
                    A.REFERENCE_ERROR_STATUS,
                    f"{code} '{value}' is not unique within its parent (instance {other.uid})",
                    A.TAG_PARAMS,
                )

    def run(self, uid: str, ctx: RequestContext) -> Response:
        with self.lock:
            now = self.now()
            self.settle(now)
            op = self._op_or_404(uid, A.TAG_RUN)
            inst = self._instance_or_404(op.instance_uid)
            if op.submitted:
                if op.active(now):
                    raise cfml_error(422, A.CONCURRENT_MESSAGE.format(uid=op.uid), A.TAG_RUN)
                raise cfml_error(500, A.RERUN_MESSAGE, A.TAG_RUN)
            other = self.active_op(inst, now)
            if other is not None:
                raise cfml_error(422, A.CONCURRENT_MESSAGE.format(uid=other.uid), A.TAG_RUN)
            service = (inst.service_id, self.svc_short(inst.service_id))
            concurrent = self.faults.take(("concurrent",), ctx.method, ctx.path, ctx.form, op.operation, service)
            if concurrent is not None and not concurrent.commit:
                raise cfml_error(422, A.CONCURRENT_MESSAGE.format(uid=op.uid), A.TAG_RUN)
            self._require_available(inst, op.operation)
            self._validate(op, inst, A.TAG_RUN)
            fail = self.faults.take(("fail_stage",), ctx.method, ctx.path, ctx.form, op.operation, service)
            stall = self.faults.take(("stall",), ctx.method, ctx.path, ctx.form, op.operation, service)
            planner.plan(
                self, op, inst, now, fail.stage if fail else None, fail.error if fail else None, fail is not None
            )
            if stall is not None:  # deck-api.md 5.4 cold start: the worker hangs before the job starts
                planner.delay(self, op, stall.ms / 1000.0)
            self.dirty = True
            if concurrent is not None:
                raise cfml_error(422, A.CONCURRENT_MESSAGE.format(uid=op.uid), A.TAG_RUN)
            if self.faults.take(("executable",), ctx.method, ctx.path, ctx.form, op.operation, service) is not None:
                raise cfml_error(500, A.EXECUTABLE_MESSAGE, A.TAG_RUN)  # the job is queued all the same
            headers = location(op.followup_uid) if op.followup_uid and A.RUN_DELETE_RETURNS_CHILD_LOCATION else {}
            return Response(A.RUN_STATUS, {"instanceOperationUid": op.uid, "submitResult": A.SUBMIT_RESULT}, headers)

    # ------------------------------------------------------------------ catalogue
    def service(self, sid: str) -> Response:
        number = _parse_int(sid, "svcId", A.TAG_CATALOGUE)
        if number not in self.catalogue.services:
            raise cfml_error(404, f"Service {number} not found", A.TAG_CATALOGUE)
        return Response(200, {"svc": self.catalogue.service_view(number)})

    def service_operation(self, oid: str) -> Response:
        number = _parse_int(oid, "svcOperationId", A.TAG_CATALOGUE)
        if number not in self.catalogue.operations:
            raise cfml_error(404, f"Service operation {number} not found", A.TAG_CATALOGUE)
        return Response(200, {"svcOperation": self.catalogue.operation_view(number)})

    def realms(self, query: dict[str, str]) -> Response:
        number = _parse_int(query.get("svcId", ""), "svcId", A.TAG_CATALOGUE)
        if number not in self.catalogue.services:
            raise cfml_error(404, f"Service {number} not found", A.TAG_CATALOGUE)
        return Response(200, {"results": self.catalogue.realms(number)})

    # ------------------------------------------------------------------ test helpers
    def platform_change(self, uid: str, params: Json, subresource: Json | None = None) -> Json:
        """The platform changes live params itself, with no operation (emulator-contract: autoScale grows
        `resourceDisk` of PostgreSQL and MariaDB as the data grows). Only params the instance already has. With
        `subresource` ({name, key, params}) it changes the params of one existing sub-resource entry instead (a DBA
        altering a role by hand), again only params the entry has."""
        with self.lock:
            self.settle(self.now())
            inst = self._instance_or_404(uid)
            live = (inst.state or {}).get("params")
            if subresource is not None:
                live = self._subresource_entry(inst, subresource)
                params = dict(subresource.get("params") or {})
            if not isinstance(live, dict):
                raise ValueError(f"instance {uid} has no live params yet")
            unknown = sorted(set(params) - set(live))
            if unknown:
                raise ValueError(f"instance {uid} has no params {', '.join(unknown)}")
            live.update(params)
            self.dirty = True
            return views.instance_view(self, inst, self.now())

    def _subresource_entry(self, inst: Instance, subresource: Json) -> Json | None:
        name = str(subresource.get("name") or "")
        key = self.catalogue.subresources(inst.service_id).get(name)
        entries = ((inst.state or {}).get("subresources") or {}).get(name) or []
        wanted = str(subresource.get("key") or "")
        found = next((e for e in entries if key and str(e.get(key)) == wanted), None)
        if found is None:
            raise ValueError(f"instance {inst.uid} has no {name} {wanted!r}")
        return found

    def all_instances(self) -> list[Json]:
        with self.lock:
            now = self.now()
            self.settle(now)
            return [views.instance_view(self, i, now) for i in sorted(self.instances.values(), key=lambda i: i.created)]

    def all_operations(self) -> list[Json]:
        with self.lock:
            now = self.now()
            self.settle(now)
            return [views.operation_view(self, o, now) for o in sorted(self.ops.values(), key=lambda o: o.created)]


# ---------------------------------------------------------------------- small parsing helpers
def _object(body: Any, tag: str) -> Json:
    if not isinstance(body, dict):
        raise cfml_error(400, "The request body must be a JSON object", tag)
    return body


def _parse_int(raw: Any, name: str, tag: str) -> int:
    try:
        return int(str(raw))
    except ValueError as exc:
        raise cfml_error(400, f"{name} must be an integer, got '{raw}'", tag) from exc


def _int_field(body: Json, name: str, tag: str) -> int:
    if body.get(name) in (None, ""):
        raise cfml_error(400, f"{name} is required", tag)
    return _parse_int(body[name], name, tag)


def _positive_int(raw: str | None, default: int, name: str) -> int:
    if raw in (None, ""):
        return default
    try:
        value = int(str(raw))
    except ValueError as exc:
        raise cfml_error(400, f"{name} must be a positive integer, got '{raw}'", A.TAG_INSTANCES) from exc
    if value < 1:
        raise cfml_error(400, f"{name} must be a positive integer, got '{raw}'", A.TAG_INSTANCES)
    return value


def _fields(query: dict[str, str]) -> list[str]:
    return [f.strip() for f in query.get("fields", "").split(",") if f.strip()]


def _updater(claims: dict[str, Any]) -> dict[str, str]:
    name = str(claims.get("name") or claims.get("preferred_username") or "")
    return {"id": str(claims.get("sub", "")), "login": str(claims.get("preferred_username", "")), "name": name}
