# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An instance module's task (the skeleton's steps for one instance of the service).

Find: the recorded identity (K1-K4b), else the display name (list items are only candidates: deck-api 4.1),
then the live instance itself, `GET /instances/{uid}` with its params. Decide on live data (lifecycle.py).
Execute: create (P20, K3; the uid recorded the moment the API returns it), modify with defaults (P38),
resume, suspend, delete, redeploy (P14), placeholder removal.
"""

from __future__ import annotations

import time
from typing import Any, ContextManager, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import (
    diagnostics,
    identity,
    records,
    revision,
    settle,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    InputError,
    NubesError,
    OutcomeUnknownError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    DELETE_PLACEHOLDER,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    Decision,
    InstanceSituation,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import DELETED, MISSING, NOT_CREATED, Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.placeholder import Placeholder
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    STATUS_CREATE_REQUESTED,
    STATUS_CREATING,
    STATUS_PRESENT,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import Task, run_task
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import differing


class InstanceTask(Task):
    """present / absent / deleted of one instance of the service."""

    def __init__(self, ctx: TaskContext) -> None:
        super().__init__(ctx)
        self.spec = ctx.spec
        self.opts = ctx.options
        self.converter = ParamConverter(self.spec.params, resolver=ctx.resolve_name)
        self.placeholders = self.converter.placeholder_codes()
        params = ctx.params
        self.ref = identity.ResourceRef(
            self.spec.name,
            self.spec.service_id,
            self.opts.workspace,
            identity.task_name(params.get("resource_name")),  # issue 24: a blank name is no name, like ""
            identity.task_id(params.get("instance_uid")),  # K1
        )
        self.desired: Dict[str, str] = {}
        self.secrets: Dict[str, str] = {}  # secret codes -> the task's values (never stored, never shown)
        self.instance: Optional[Instance] = None
        self.preloaded: Optional[Instance] = None
        self.status_read = True
        self.live_uids: List[str] = []
        self.lost_uid = ""
        self.create_values: Dict[str, str] = {}
        self.secrets_to_set: List[str] = []
        self.before: Dict[str, Optional[str]] = {}
        self.after: Dict[str, Optional[str]] = {}
        self.revisions: Tuple[Dict[str, str], Dict[str, str]] = ({}, {})  # git_revision in the diff (P14)
        self.left_alone: Dict[str, str] = {}  # codes whose live value is kept (ignore_changes, autoScale disk)

    def run(self) -> Dict[str, Any]:
        self.ctx.warn_if_state_is_ephemeral()
        secret = [p for p in self.spec.params if p.secret]
        self.ctx.register_secrets({p.code: self.ctx.params.get(p.option) for p in secret})
        if self.opts.state == "present":
            self.desired = self.converter.desired(self.ctx.params)  # validates the input before any write
            self.secrets = {p.code: self.desired.pop(p.code) for p in secret if p.code in self.desired}
        if not self.ref.resource_name:
            if not self.ref.task_uid:  # issue 24: refused before any request, "" and "   " alike
                raise InputError(
                    "resource_name is blank (empty or only whitespace) and no instance_uid is given: set resource_name "
                    "to the instance's display name, or instance_uid to the uid of an existing instance"
                )
            self.ref = self.ref.named(self._name_from_uid())
        return run_task(self)

    def _name_from_uid(self) -> str:
        """Only instance_uid given: the recorded resource_name, else the live instance's display name."""
        record = self.ctx.store.find_instance_by_uid(self.spec.name, self.ref.task_uid)
        if record:
            return str(record.get("resource_name") or self.ref.task_uid)
        self.preloaded = identity.find(self.ctx.api, self.ref.task_uid)
        if self.preloaded is None:
            raise NubesError(
                f"instance {self.ref.task_uid} (instance_uid) does not exist; check the uid, or give resource_name "
                "to create a new instance"
            )
        return self.preloaded.display_name or self.ref.task_uid

    # -- the skeleton's steps ---------------------------------------------------------------------

    def lock(self) -> ContextManager[None]:
        return self.ctx.store.instance_lock(self.spec.name, self.ref.resource_name)

    def what_exists(self) -> str:
        uid = self.instance.uid if self.instance is not None else ""
        name = self.ref.resource_name
        return f"{self.spec.name} instance {uid} ({name!r})" if uid else f"a {self.spec.name} instance named {name!r}"

    def store(self, record: Optional[records.Record]) -> None:
        if not self.ctx.check_mode:
            if record is None:
                self.ctx.store.delete_instance(self.spec.name, self.ref.resource_name)
            else:
                record["service_id"] = self.spec.service_id
                self.ctx.store.put_instance(self.spec.name, self.ref.resource_name, record)
        self.record = record

    def forget_only(self) -> bool:
        """P29: suspend_on_destroy=false on a suspendable service removes the record with no API call at all."""
        return (
            self.opts.state == "absent"
            and self.spec.lifecycle.suspendable
            and not self.opts.suspend_on_destroy
            and bool(self.record or self.ref.task_uid)
        )

    def find(self) -> None:
        self.instance, self.live_uids, self.lost_uid, self.reusable, self.in_flight = None, [], "", None, ""
        self.record = records.normalise(self.ctx.store.get_instance(self.spec.name, self.ref.resource_name))
        uid = identity.recorded_uid(self.ref, self.record)  # K4a / K4b
        if self.forget_only():  # P29: not even read; the result names the uid it forgets
            self.status_read = False
            if uid:
                self.instance = Instance({"instanceUid": uid, "displayName": self.ref.resource_name})
            return
        if self.preloaded is not None and uid and self.preloaded.uid.lower() == uid.lower():
            self.instance, self.preloaded = self.preloaded, None
        else:
            self.instance = identity.find(self.ctx.api, uid)  # K2: no HTTP call when uid is ""
        if not self.ref.task_uid and (self.instance is None or not self.instance.live):
            self._lookup_by_name(uid)
        if self.instance is not None and self._own_record() and self.settle(self.instance):
            if self.record is None:
                self.lost_uid = ""  # its own delete (or destroy) finished: gone as asked, nothing was lost
            self.instance = self.ctx.api.get_instance(self.instance.uid) or self.instance

    def _lookup_by_name(self, recorded: str) -> None:
        """No id, or the recorded instance is gone: live candidates by display name (list items carry no params,
        so the one candidate is then read by its uid). Never a deleted instance (issue 14)."""
        if recorded and self.record is not None and self.record.get("status") == STATUS_PRESENT:
            self.lost_uid = recorded  # P20: the recorded instance is missing or deleted
        if self.opts.state != "present" and recorded:
            return
        placeholder = Placeholder(self.ctx.api, self.spec.service_id, self.ref.resource_name)
        found = placeholder.live()
        if not found and not self.ctx.check_mode:
            found = placeholder.awaited(self.record)  # issue 24: a create whose outcome is still unknown
        self.live_uids = [i.uid for i in found]
        if len(found) != 1:
            return
        ours = self.record is not None and self.record.get("status") == STATUS_CREATE_REQUESTED
        if not ours:
            self.record = None  # another instance with the name: not this record's
        # present: the candidate to adopt or refuse; absent/deleted without a record: shown as it is (its uid and
        # status, suspended included: issue 23) and left alone by the decision, which says how to name it
        self.instance = self.ctx.api.get_instance(found[0].uid)

    def _own_record(self) -> bool:
        """The record belongs to the live instance (or is this task's create whose uid was lost)."""
        if self.record is None or self.instance is None:
            return False
        recorded = str(self.record.get("instance_uid") or "")
        return not recorded or recorded.lower() == self.instance.uid.lower()

    def _recorded(self) -> bool:
        """The record holds this resource: its instance is the live one, or none was read (gone, or not read)."""
        if self.record is None or not self.record.get("instance_uid"):
            return False
        return self.instance is None or self._own_record()

    def situation(self) -> InstanceSituation:
        instance = self.instance
        status = instance.status if instance is not None else MISSING
        own = self._own_record()
        creating = own and self.record is not None and self.record.get("status") != STATUS_PRESENT
        live = instance.params() if instance is not None else {}
        self.left_alone, warnings = (
            settle.left_alone(self.converter, self.opts.ignore_changes, self.desired, live)
            if instance is not None
            else ({}, [])
        )
        for warning in warnings:
            self.ctx.warn(warning)
        compared = {code: value for code, value in self.desired.items() if code not in self.left_alone}
        self.secrets_to_set = self._secrets_to_set()
        foreign = ""
        if instance is not None and instance.service_id not in (None, self.spec.service_id):
            foreign = f"{instance.service_label}, not {self.spec.name} (service {self.spec.service_id})"  # K4a
        return InstanceSituation(
            state=self.opts.state,
            status=status if self.status_read else MISSING,
            in_flight=self.in_flight,
            busy=bool(instance is not None and instance.busy),
            available=instance.available_names() if instance is not None else None,
            foreign_service=foreign,
            recorded=self._recorded() and not creating,
            record_creating=creating,
            lost_uid=self.lost_uid,
            named_uid=bool(self.ref.task_uid),
            live_matches=len(self.live_uids),
            live_uids=tuple(self.live_uids),
            adopt=self.opts.adopt,
            key_mismatches=tuple(differing(self.spec.params, self.desired, live, immutable=True)),
            changed=tuple(differing(self.spec.params, compared, live, immutable=False) + self.secrets_to_set),
            revision_changed=instance is not None
            and revision.changed(self.spec, self.opts.git_revision, live, self.record, own),
            after_create=settle.after_create(
                self.spec, self.converter, dict(self.desired, **self.secrets), self.opts.git_revision
            )
            if self.opts.state == "present"
            else (),
            suspendable=self.spec.lifecycle.suspendable,
            deletable=self.spec.lifecycle.deletable,
            suspend_on_destroy=self.opts.suspend_on_destroy,
            ephemeral_state=self.ctx.ephemeral_job,
        )

    def _secrets_to_set(self) -> List[str]:
        """The secrets to send to the existing instance (Task.secrets_to_send), less those the API takes on create
        only (named in a warning)."""
        if not self.secrets or self.instance is None:
            return []
        record = self.record if self._own_record() else None
        codes = self.secrets_to_send(record, self.secrets, self.converter.options)
        fixed = [c for c in codes if self.converter.by_code[c].immutable]
        if fixed:
            self.ctx.warn(f"{', '.join(fixed)}: set on create only; the API cannot change it on an existing instance")
        return [c for c in codes if c not in fixed]

    def describe(self, decision: Decision) -> str:
        status = (self.instance.status if self.instance else MISSING) if self.status_read else "unknown (not read)"
        return diagnostics.render(
            self.ctx.module_name,
            decision,
            self.ref.resource_name,
            self.spec.service_id,
            self.instance,
            status,
            extra=self.ctx.pending_references,
        )

    def refusal(self, decision: Decision) -> str:
        target = repr(self.ref.resource_name)
        if self.instance is not None and self.instance.uid:
            target += f" (instance_uid {self.instance.uid})"
        return diagnostics.summary(self.ctx.module_name, decision, target)

    def plan(self, decision: Decision) -> None:
        ops = decision.operations
        live = self.instance.params() if self.instance is not None and self.status_read else {}
        if decision.in_flight:  # P27: only reported; what the task wants is decided once that operation is done
            self.before = self.after = {k: v for k, v in live.items() if k in self.converter.by_code}
        elif "create" in ops:
            self.create_values = self.converter.for_create(dict(self.desired, **self.secrets))  # before any write
            self.before, self.after = {}, dict(self.create_values)
            self.ctx.check_references(self.converter.uid_references(self.create_values))  # issue 23: before any write
        elif self.opts.state == "present":
            self.before = {k: v for k, v in live.items() if k in self.converter.by_code}
            self.after = dict(self.before)
            # only what differs: a value equal to the live one in another spelling (a map-fixed object without a
            # sub-field the API fills with ""; P39) is shown as it is live, so a no-op shows no difference
            wanted = {k: v for k, v in self.desired.items() if k not in self.left_alone}
            self.after.update({k: wanted[k] for k in differing(self.spec.params, wanted, live, immutable=False)})
            self.after.update({c: self.secrets[c] for c in self.secrets_to_set})
            if "modify" in ops:  # the diff shows what the modify sends, defaults and zero values included
                self.after = self.converter.with_defaults(self.after, "modify")
            sent = {k: v for k, v in self.after.items() if v != self.before.get(k)}
            self.ctx.check_references(self.converter.uid_references(sent))
        else:
            self.before, self.after = {k: v for k, v in live.items() if k in self.converter.by_code}, {}
        self.revisions = revision.diff(
            self.spec, "create" in ops, self.opts.state == "present", self.opts.git_revision, live, self.record
        )
        remove = decision.record == RECORD_REMOVE and self.record is not None
        # issue 27: `changed` is about the cloud; adopting (a record write alone) changes nothing there
        self.changed = bool(ops) or remove

    # -- execution -------------------------------------------------------------------------------

    def execute(self, decision: Decision) -> None:
        final = len(decision.operations) - 1
        for index, operation in enumerate(decision.operations):
            if operation == DELETE_PLACEHOLDER:
                self.ctx.api.delete_instance(self._uid())
                self.operations_run.append(operation)
            elif not self._operation(operation, wait=self.opts.wait or index < final):
                break  # wait=false: return once the last one runs (the ones before it are waited for)
        finished = self.last_operation is None or self.last_operation.finished
        if decision.record == RECORD_REMOVE and self.record is not None and finished:
            self.store(None)
        elif decision.record == RECORD_WRITE and finished and self.instance is not None:
            self.store(self._present_record())
        elif decision.record == RECORD_KEEP and self.reusable is not None and self.record is not None:
            self.store(records.settled(self.record, False))  # an abandoned draft: forget it
        last = decision.operations[-1] if decision.operations else ""
        if last not in ("", DELETE_PLACEHOLDER) and self.instance is not None and (last != "create" or not finished):
            # status and outputs as they are now (with wait=false: right after the operation was started)
            self.instance = self.ctx.api.get_instance(self.instance.uid) or self.instance

    def _present_record(self) -> records.Record:
        return records.present(
            self.record,
            [p.code for p in self.spec.params if p.secret],
            instance_uid=self._uid(),
            git_revision=self.opts.git_revision,
        )

    def _uid(self) -> str:
        if self.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no instance to operate on; please report this bug")
        return self.instance.uid

    def _operation(self, name: str, wait: bool) -> bool:
        """Run one operation; False when it was only started (wait=false)."""
        if name == "create":
            return self._create(wait)
        values: Dict[str, str] = {}
        secrets: Dict[str, str] = {}
        current: Dict[str, Optional[str]] = {}
        if name == "modify":
            secrets = {c: self.secrets[c] for c in self.secrets_to_set}
            values = {k: v for k, v in dict(self.desired, **secrets).items() if k not in self.left_alone}
            current = self.instance.params() if self.instance is not None else {}  # P38: the rest keeps its value
        elif name == "redeploy" and self.opts.git_revision is not None:
            values = {revision.param_code(self.spec): self.opts.git_revision}
        deploys = self.opts.git_revision if name in ("create", "redeploy") else None
        return self._execute(name, values, secrets, deploys, wait, current)

    def _execute(
        self,
        name: str,
        values: Dict[str, str],
        secrets: Dict[str, str],
        revision: Optional[str],
        wait: bool,
        current: Optional[Dict[str, Optional[str]]] = None,
    ) -> bool:
        if self.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no instance to operate on; please report this bug")
        if self.record is None:  # adopting: the record starts with the operation (P27: a re-run waits for it)
            self.record = {"status": STATUS_PRESENT, "instance_uid": self.instance.uid}
        return self.run_operation(self.instance, name, values, secrets, revision, current, wait)

    def _create(self, wait: bool) -> bool:
        """P20: POST /instances (K3: no id), the uid recorded at once, then the create operation on it."""
        if self.instance is None or self.instance.status in (DELETED, MISSING):
            self._new_instance()
        elif self.record is None or self.record.get("instance_uid") != self.instance.uid:
            self.store({**(self.record or {}), "status": STATUS_CREATING, "instance_uid": self.instance.uid})
        finished = self._execute("create", self.create_values, self.secrets, self.opts.git_revision, wait)
        if finished:
            instance = self.ctx.api.get_instance(self._uid())
            if instance is None or instance.status in (DELETED, NOT_CREATED):
                raise NubesError(
                    f"the create operation finished but instance {self._uid()} is "
                    f"{instance.status_raw if instance else 'gone'}; check it in the Cloud Console and re-run"
                )
            self.instance = instance
        return finished

    def _new_instance(self) -> None:
        prior = self.record
        requested_at = time.time()
        # The moment the request leaves is recorded with it: a re-run reads the name until the request's outcome
        # window has passed before it sends another (issue 24).
        self.store({"status": STATUS_CREATE_REQUESTED, "instance_uid": "", "requested_at": requested_at})
        placeholder = Placeholder(self.ctx.api, self.spec.service_id, self.ref.resource_name)
        try:
            uid = placeholder.post()
        except OutcomeUnknownError as exc:
            try:
                uid = placeholder.read_back(exc, requested_at)  # the record keeps the request if none is found
            except NubesError:
                # read to the end of the request's outcome window: a re-run need not wait for it again
                self.store({**(self.record or {}), "window_passed": True})
                raise
        except NubesError:
            self.store(prior)  # refused: nothing was made
            raise
        self.instance = Instance({"instanceUid": uid, "displayName": placeholder.name, "explainedStatus": ""})
        self.store({"status": STATUS_CREATING, "instance_uid": uid})  # recorded before anything else

    # -- result ----------------------------------------------------------------------------------

    def result(self, decision: Decision) -> Dict[str, Any]:
        instance = self.instance
        status = "unknown" if not self.status_read else instance.status if instance is not None else MISSING
        if decision.operations and decision.operations[-1] == DELETE_PLACEHOLDER and not self.ctx.check_mode:
            status = MISSING
        view = {
            "instance_uid": instance.uid if instance else (str((self.record or {}).get("instance_uid") or "")),
            "resource_name": self.ref.resource_name,
            "service_id": self.spec.service_id,
            "status": status,
            "status_raw": instance.status_raw if instance else "",
            "operation_pending": bool(instance and instance.operation_pending),
            "operation_in_progress": bool(instance and instance.operation_in_progress),
            "params": self.converter.options_view(instance.params() if instance and self.status_read else {}),
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
                "before": dict(self.converter.options_view(self.before, mask=True), **self.revisions[0]),
                "after": dict(self.converter.options_view(self.after, mask=True), **self.revisions[1]),
            }
        return result
