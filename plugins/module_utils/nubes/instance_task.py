# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An instance module's task: identity -> state record -> lifecycle decision -> operations -> record."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import diagnostics, identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    InputError,
    NubesError,
    OperationFailedError,
    OutcomeUnknownError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    RECORD_REMOVE,
    RECORD_WRITE,
    Decision,
    Situation,
    decide,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    CREATING,
    DELETED,
    MISSING,
    NOT_CREATED,
    Instance,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationResult
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import (
    ParamConverter,
    changed_codes,
    digest,
    equivalent,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    STATUS_CREATE_REQUESTED,
    STATUS_CREATING,
    STATUS_PRESENT,
    new_salt,
)


class InstanceTask:
    """present/absent of one instance of the service."""

    def __init__(self, ctx: TaskContext) -> None:
        self.ctx = ctx
        self.params = ctx.params
        self.converter = ParamConverter(ctx.service.get("params") or [], resolver=ctx.resolve_name)
        self.secret_codes = set(self.converter.secret_codes())
        self.types = {str(p["code"]): str(p.get("type", "string")) for p in self.converter.params}
        self.resource_name: str = str(self.params.get("resource_name") or "")
        self.task_uid = identity.task_id(self.params.get("instance_uid"))  # K1
        self.operations_run: List[str] = []
        self.last_operation: Optional[OperationResult] = None
        self.instance: Optional[Instance] = None
        self.record: Optional[Dict[str, Any]] = None
        self.changed = False
        self.before: Dict[str, Optional[str]] = {}
        self.after: Dict[str, Optional[str]] = {}
        self.diagnostics = ""
        self.status_read = True
        self._create_values: Dict[str, str] = {}
        self.live_uids: Tuple[str, ...] = ()

    # -- entry ---------------------------------------------------------------------------------

    def run(self) -> Dict[str, Any]:
        state = self.params.get("state") or "present"
        self.ctx.register_secrets({c: self.params.get(p) for p, c in self._secret_options().items()})
        desired = self.converter.desired(self.params) if state == "present" else {}  # validates before any write
        if not self.resource_name:
            self._name_from_uid()
        with self.ctx.store.instance_lock(self.ctx.service_name, self.resource_name):
            decision = self._present(desired) if state == "present" else self._absent()
        return self._result(decision)

    def _secret_options(self) -> Dict[str, str]:
        return {str(p.get("option") or p["code"]): str(p["code"]) for p in self.converter.params if p.get("secret")}

    def _name_from_uid(self) -> None:
        """Only instance_uid given: the resource_name is the instance's display name."""
        record = self.ctx.store.find_instance_by_uid(self.ctx.service_name, self.task_uid)
        if record:
            self.resource_name = str(record.get("resource_name") or "")
            return
        instance = identity.find(self.ctx.api, self.task_uid)
        if instance is None:
            raise NubesError(
                f"instance {self.task_uid} (instance_uid) does not exist; check the uid, or give resource_name "
                "to create a new instance"
            )
        self.resource_name = instance.display_name or self.task_uid

    # -- identity and lookup -------------------------------------------------------------------

    def _locate(self) -> Dict[str, Any]:
        """Record, identity (K1-K4b), the instance; name lookup when nothing is recorded."""
        self.record = self.ctx.store.get_instance(self.ctx.service_name, self.resource_name)
        uid = identity.resolve_identity(
            self.task_uid,
            self.record,
            {"service_id": self.ctx.service_id, "workspace": self.ctx.store.workspace},
        )
        self.instance = identity.find(self.ctx.api, uid)  # K2: no HTTP call when uid is ""
        live_matches = 0
        record_creating = bool(self.record and self.record.get("status") != STATUS_PRESENT)
        if (self.instance is None or not self.instance.live) and not self.task_uid:
            # Nothing recorded (or the recorded instance is gone): look the display name up.
            found = self.ctx.api.find_live_by_name(self.ctx.service_id, self.resource_name)
            live_matches = len(found)
            self.live_uids = tuple(i.uid for i in found)
            if len(found) == 1:
                self.instance = found[0]
                if self.record and not self.record.get("instance_uid") and record_creating:
                    pass  # our own create whose answer was lost: continue it (lost POST resolved by reading)
                else:
                    record_creating = False
                    if self.record:
                        self.record = None  # the recorded instance is gone; the match is another instance
            elif self.record:
                self.record = None
                record_creating = False
        if self.instance is not None and self.instance.busy:
            self.instance = self.ctx.executor.wait_idle(self.instance, self.ctx.timeout("modify"))
        return {"live_matches": live_matches, "record_creating": record_creating}

    # -- present ---------------------------------------------------------------------------------

    def _present(self, desired: Dict[str, str]) -> Decision:
        found = self._locate()
        instance = self.instance
        status = instance.status if instance else MISSING
        recorded = bool(self.record and self.record.get("status") == STATUS_PRESENT)
        if recorded and self.record and self.record.get("pending"):
            self._settle_pending()
        key_match = self._key_params_match(desired, instance)
        changed_params = self._changed_params(desired, instance, recorded)
        revision = self.params.get("git_revision")
        revision_changed = bool(
            recorded
            and self.ctx.lifecycle.get("redeploy")
            and revision is not None
            and self.record is not None
            and str(revision) != str(self.record.get("git_revision") or "")
        )
        situation = Situation(
            state="present",
            status=status,
            recorded=recorded,
            record_creating=found["record_creating"],
            live_matches=found["live_matches"] if not recorded else 0,
            adopt=self.ctx.flag("adopt_existing_on_create", False),
            key_params_match=key_match,
            params_changed=bool(changed_params),
            revision_changed=revision_changed,
            suspendable=bool(self.ctx.lifecycle.get("suspendable")),
            deletable=bool(self.ctx.lifecycle.get("deletable", True)),
            named_uid=bool(self.task_uid),
            live_uids=self.live_uids,
        )
        decision = decide(situation)
        if recorded and not key_match and not decision.error:
            decision = Decision(
                error=True,
                reason="create-only (key) params cannot change on an existing instance: {}. Change resource_name to "
                "create a new resource, or restore the old values".format(
                    ", ".join(self._key_mismatches(desired, instance))
                ),
                rule="P23",
            )
        self.diagnostics = self._diagnostics(decision, status)
        if decision.error:
            raise NubesError(self.diagnostics, diagnostics=self.diagnostics)
        self._plan_diff(desired, decision, instance)
        if self.ctx.check_mode:
            self.changed = bool(decision.operations) or decision.record == RECORD_WRITE
            self.operations_run = list(decision.operations)
            return decision
        for operation in decision.operations:
            if not self._apply(operation, desired):
                break  # wait=false: return after starting the operation
        if decision.record == RECORD_WRITE and not (self.last_operation and not self.last_operation.finished):
            self._write_present(desired, decision)
        if decision.operations or decision.record == RECORD_WRITE:
            self.changed = True
        last_read_by_create = bool(decision.operations) and decision.operations[-1] == "create"
        finished = self.last_operation is None or self.last_operation.finished
        if decision.operations and self.instance is not None and not last_read_by_create and finished:
            self.instance = self.ctx.api.get_instance(self.instance.uid) or self.instance  # final status, outputs
        return decision

    def _key_mismatches(self, desired: Dict[str, str], instance: Optional[Instance]) -> List[str]:
        """Immutable params whose task value differs from the instance's (or the record's) value."""
        if instance is None:
            return []
        current = instance.params()
        recorded = (self.record or {}).get("digests") or {}
        salt = str((self.record or {}).get("salt") or "")
        wrong: List[str] = []
        for code in self.converter.immutable_codes():
            if code not in desired:
                continue
            if code in current and current[code] is not None:
                if not equivalent(current[code], desired[code]):
                    wrong.append(code)
            elif code in recorded and recorded[code] != digest(salt, code, desired[code]):
                wrong.append(code)
        return wrong

    def _key_params_match(self, desired: Dict[str, str], instance: Optional[Instance]) -> bool:
        return not self._key_mismatches(desired, instance)

    def _changed_params(self, desired: Dict[str, str], instance: Optional[Instance], recorded: bool) -> List[str]:
        """Modifiable params that differ: vs the record's digests, or vs the instance's params when adopting."""
        modifiable = {c for c in desired if c not in set(self.converter.immutable_codes())}
        if instance is None:
            return []
        if recorded and self.record is not None:
            codes = changed_codes(
                {c: v for c, v in desired.items() if c in modifiable},
                self.record.get("digests") or {},
                str(self.record.get("salt") or ""),
                self.types,
            )
            return codes
        current = instance.params()
        return sorted(
            c
            for c in modifiable
            if c not in self.secret_codes and c in current and not equivalent(current[c], desired[c])
        )

    # -- operations ------------------------------------------------------------------------------

    def _apply(self, operation: str, desired: Dict[str, str]) -> bool:
        """Run one operation; False when it was only started (wait=false)."""
        if operation == "create":
            return self._create(desired)
        if self.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.instance is unset; please report this bug")
        values: Dict[str, str] = {}
        if operation == "modify":
            values = dict(desired)  # P38: the op's other params keep their values/defaults (value_plan)
        elif operation == "redeploy":
            values = self._redeploy_values()
        return self._execute(self.instance.uid, operation, values)

    def _execute(
        self, instance_uid: str, operation: str, values: Dict[str, str], existing: Optional[str] = None
    ) -> bool:
        timeout = self.ctx.timeout(operation)
        op_id = self.ctx.svc_operation_id(operation, self.instance)
        on_created = None
        if operation != "create" and self.record is not None:
            on_created = self._remember_pending(operation, values)
        elif operation == "create":
            on_created = self._remember_create_op
        op_uid = self.ctx.executor.start(instance_uid, operation, op_id, values, on_created, existing)
        self.operations_run.append(operation)
        if not self.ctx.flag("wait", True):
            self.last_operation = OperationResult(op_uid, operation, False)
            return False
        self.last_operation = self.ctx.executor.wait(op_uid, operation, timeout)
        return True

    def _redeploy_values(self) -> Dict[str, str]:
        """P14: git_revision goes into the redeploy action's param mapped to that option (gitRevision)."""
        revision = self.params.get("git_revision")
        if revision is None:
            return {}
        for param in self.ctx.operation_spec("redeploy").get("params") or []:
            if (param.get("option") or "") == "git_revision":
                return {str(param["code"]): str(revision)}
        return {"gitRevision": str(revision)}

    def _create(self, desired: Dict[str, str]) -> bool:
        """P20: POST /instances (K3: no id), record the uid at once, then the create operation."""
        values = self.converter.for_create(desired)  # P35/P36; fails on missing required before any write
        self._create_values = values
        existing_op: Optional[str] = None
        if self.instance is None:
            self._put_record({"status": STATUS_CREATE_REQUESTED, "instance_uid": ""})
            try:
                uid = self.ctx.api.create_instance(self.ctx.service_id, self.resource_name)
            except OutcomeUnknownError as exc:
                found = self.ctx.api.find_live_by_name(self.ctx.service_id, self.resource_name)
                if len(found) != 1:
                    raise NubesError(
                        f"{exc.msg}; no instance named {self.resource_name!r} appeared, so nothing was created: "
                        "re-run the task"
                    ) from None
                uid = found[0].uid
            self._put_record({"status": STATUS_CREATING, "instance_uid": uid})  # recorded before anything else
            self.instance = Instance({"instanceUid": uid, "displayName": self.resource_name, "explainedStatus": ""})
        else:
            existing_op = self._resumable_create_op()
            self._put_record(
                {"status": STATUS_CREATING, "instance_uid": self.instance.uid, "operation_uid": existing_op}
            )
        finished = self._execute(self.instance.uid, "create", values, existing_op)
        if finished:
            instance = self.ctx.api.get_instance(self.instance.uid)
            if instance is None or instance.status in (DELETED, NOT_CREATED):
                raise NubesError(
                    f"the create operation finished but instance {self.instance.uid} is "
                    f"{instance.status_raw if instance else 'gone'}; check it in the Cloud Console and re-run"
                )
            self.instance = instance
        return finished

    def _resumable_create_op(self) -> Optional[str]:
        """The recorded create operation, when it is still usable (not finished unsuccessfully)."""
        op_uid = (self.record or {}).get("operation_uid")
        if not op_uid:
            return None
        operation = self.ctx.api.get_operation(str(op_uid))
        if operation.finished and operation.is_successful is not True:
            return None
        return str(op_uid)

    def _remember_create_op(self, op_uid: str) -> None:
        if self.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.instance is unset; please report this bug")
        self._put_record({"status": STATUS_CREATING, "instance_uid": self.instance.uid, "operation_uid": op_uid})

    def _remember_pending(self, operation: str, values: Dict[str, str]) -> Callable[[str], None]:
        """Before the operation runs, note it in the record with what it will apply (digests, params,
        git_revision), so a run that does not wait (wait=false, timeout, crash) is settled by the next one."""

        def remember(op_uid: str) -> None:
            if self.record is None or self.record.get("status") != STATUS_PRESENT:
                return
            record = dict(self.record)
            salt = str(record.get("salt") or "")
            pending: Dict[str, Any] = {
                "operation_uid": op_uid,
                "name": operation,
                "digests": {code: digest(salt, code, value) for code, value in values.items()},
                "params": self.converter.public(values),
            }
            if operation == "redeploy" and self.params.get("git_revision") is not None:
                pending["git_revision"] = str(self.params["git_revision"])
            record["pending"] = pending
            self._store(record)

        return remember

    def _settle_pending(self) -> None:
        """An operation an earlier run did not wait for: wait for it now; record what it applied on success."""
        if self.record is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.record is unset; please report this bug")
        pending = dict(self.record.get("pending") or {})
        op_uid = str(pending.get("operation_uid") or "")
        name = str(pending.get("name") or "operation")
        record = dict(self.record)
        record.pop("pending", None)
        if op_uid and not self.ctx.check_mode:
            try:
                if not self.ctx.api.get_operation(op_uid).started:
                    # the earlier run stopped before `run` (e.g. a param push failed): nothing was applied
                    raise OperationFailedError(f"operation {name!r} ({op_uid}) was never started")
                self.ctx.executor.wait(op_uid, name, self.ctx.timeout(name))
            except OperationFailedError as exc:
                self.ctx.warn(f"the earlier {name} operation did not succeed, it is applied again: {exc.msg}")
            else:
                record["digests"] = dict(record.get("digests") or {}, **(pending.get("digests") or {}))
                record["params"] = dict(record.get("params") or {}, **(pending.get("params") or {}))
                if "git_revision" in pending:
                    record["git_revision"] = pending["git_revision"]
            self._store(record)
        self.record = record

    # -- records -------------------------------------------------------------------------------

    def _put_record(self, fields: Dict[str, Any]) -> None:
        record = dict(self.record or {})
        record.update({k: v for k, v in fields.items() if v is not None or k == "operation_uid"})
        record["service_id"] = self.ctx.service_id
        self._store(record)

    def _store(self, record: Dict[str, Any]) -> None:
        if self.ctx.check_mode:
            return
        self.ctx.store.put_instance(self.ctx.service_name, self.resource_name, record)
        self.record = record

    def _write_present(self, desired: Dict[str, str], decision: Decision) -> None:
        """What was applied: public params, salted digests (secrets included), git_revision."""
        if self.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: self.instance is unset; please report this bug")
        record = dict(self.record or {})
        salt = str(record.get("salt") or new_salt())
        applied: Dict[str, str] = dict(record.get("params") or {})
        digests: Dict[str, str] = dict(record.get("digests") or {}) if record.get("status") == STATUS_PRESENT else {}
        if record.get("salt") != salt:
            digests = {}
        values = dict(self._create_values)
        values.update(desired)
        for code, value in values.items():
            digests[code] = digest(salt, code, value)
            if code not in self.secret_codes:
                applied[code] = value
        record.update(
            {
                "status": STATUS_PRESENT,
                "instance_uid": self.instance.uid,
                "service_id": self.ctx.service_id,
                "salt": salt,
                "digests": digests,
                "params": applied,
                "operation_uid": self.last_operation.uid if self.last_operation else record.get("operation_uid"),
            }
        )
        if self.params.get("git_revision") is not None:
            record["git_revision"] = str(self.params["git_revision"])
        record.pop("pending", None)
        self._store(record)

    # -- absent ----------------------------------------------------------------------------------

    def _absent(self) -> Decision:
        self.record = self.ctx.store.get_instance(self.ctx.service_name, self.resource_name)
        uid = identity.resolve_identity(
            self.task_uid, self.record, {"service_id": self.ctx.service_id, "workspace": self.ctx.store.workspace}
        )
        recorded = self.record is not None and bool(uid)
        suspendable = bool(self.ctx.lifecycle.get("suspendable"))
        suspend_on_destroy = self.ctx.flag("suspend_on_destroy", True)  # P19
        status = MISSING
        live_matches = 0
        forget_only = suspendable and not suspend_on_destroy and (recorded or bool(self.task_uid))
        if not forget_only:  # P29: state-only removal makes no API call at all
            self.instance = identity.find(self.ctx.api, uid)
            if self.instance is not None and self.instance.busy:
                self.instance = self.ctx.executor.wait_idle(self.instance, self.ctx.timeout("delete"))
            status = self.instance.status if self.instance else MISSING
            if not uid:
                live_matches = len(self.ctx.api.find_live_by_name(self.ctx.service_id, self.resource_name))
        elif uid:
            self.instance = Instance({"instanceUid": uid, "displayName": self.resource_name})
            self.status_read = False
        decision = decide(
            Situation(
                state="absent",
                status=status,
                recorded=recorded,
                live_matches=live_matches,
                suspendable=suspendable,
                deletable=bool(self.ctx.lifecycle.get("deletable", True)),
                suspend_on_destroy=suspend_on_destroy,
                named_uid=bool(self.task_uid),
            )
        )
        self.diagnostics = self._diagnostics(decision, status if not forget_only else "unknown (not read)")
        if decision.error:
            raise NubesError(self.diagnostics, diagnostics=self.diagnostics)
        if decision.warning:
            self.ctx.warn(decision.warning)
        if self.instance is not None and status not in (MISSING, DELETED):
            self.before = self.instance.params()
        elif self.record:
            self.before = dict(self.record.get("params") or {})
        self.after = {}
        self.changed = bool(decision.operations) or (decision.record == RECORD_REMOVE and self.record is not None)
        if self.ctx.check_mode:
            self.operations_run = list(decision.operations)
            return decision
        for operation in decision.operations:
            if self.instance is None:  # internal invariant (ansible-test forbids assert)
                raise NubesError("internal error: self.instance is unset; please report this bug")
            if not self._execute(self.instance.uid, operation, {}):
                break
        if decision.record == RECORD_REMOVE and self.record is not None:
            self.ctx.store.delete_instance(self.ctx.service_name, self.resource_name)
        if decision.operations and self.instance is not None and self.last_operation and self.last_operation.finished:
            self.instance = self.ctx.api.get_instance(self.instance.uid) or self.instance
        return decision

    # -- reporting -------------------------------------------------------------------------------

    def _diagnostics(self, decision: Decision, status: str) -> str:
        return diagnostics.render(
            self.ctx.module_name, decision, self.resource_name, self.ctx.service_id, self.instance, status
        )

    def _plan_diff(self, desired: Dict[str, str], decision: Decision, instance: Optional[Instance]) -> None:
        if "create" in decision.operations and (instance is None or instance.status in (NOT_CREATED, CREATING)):
            self.before = {}
            try:
                self.after = dict(self.converter.for_create(desired))
            except InputError:
                if self.ctx.check_mode:
                    raise
                self.after = dict(desired)
            return
        current: Dict[str, Optional[str]] = dict((self.record or {}).get("params") or {})
        if instance is not None:
            current.update({k: v for k, v in instance.params().items() if k in self.converter.by_code})
        self.before = current
        self.after = dict(current)
        self.after.update(desired)

    def _result(self, decision: Decision) -> Dict[str, Any]:
        instance = self.instance
        if instance is None:
            status = MISSING
        elif not self.status_read:
            status = "unknown"  # P29 state-only removal: the instance was not read
        else:
            status = instance.status
        view = {
            "instance_uid": instance.uid if instance else "",
            "resource_name": self.resource_name,
            "service_id": self.ctx.service_id,
            "status": status,
            "status_raw": instance.status_raw if instance else "",
            "operation_pending": bool(instance and instance.operation_pending),
            "operation_in_progress": bool(instance and instance.operation_in_progress),
            "params": self.converter.options_view(instance.params() if instance else {}),
            "outputs": self.ctx.outputs(instance),
        }
        result: Dict[str, Any] = {
            "changed": self.changed,
            "instance": view,
            "instance_uid": view["instance_uid"],
            "status": status,
            "status_raw": view["status_raw"],
            "outputs": view["outputs"],
            "operations": self.operations_run,
            "operation": self.last_operation.as_dict() if self.last_operation else None,
            "diagnostics": self.diagnostics,
            "decision": decision.action,
        }
        if self.ctx.diff_mode:
            result["diff"] = {
                "before": self.converter.options_view(self.before, mask=True),
                "after": self.converter.options_view(self.after, mask=True),
            }
        return result
