# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A sub-resource module's task (P13, P17): identity = {parent instance uid, key}.

Sub-resources are created, modified and deleted by operations on the parent instance (`create_<sub>`,
`modify_<sub>`, `delete_<sub>`) and listed live in the parent's `state.subresources.<sub>` (secrets omitted).
The skeleton is the instance task's: lock (the parent), find, read live, decide (lifecycle.decide), plan,
execute, record.
"""

from __future__ import annotations

from typing import Any, ContextManager, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import diagnostics, identity, records
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    RECORD_REMOVE,
    RECORD_WRITE,
    Decision,
    SubSituation,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import MISSING, Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import STATUS_CREATING, STATUS_PRESENT
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import Task, run_task
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import differing


class SubresourceTask(Task):
    """present / absent of one sub-resource of a parent instance."""

    def __init__(self, ctx: TaskContext, sub: str) -> None:
        super().__init__(ctx)
        self.spec = ctx.spec
        self.sub = ctx.spec.subresource(sub)
        self.opts = ctx.options
        self.converter = ParamConverter(self.sub.params, resolver=ctx.resolve_name)
        self.placeholders = self.converter.placeholder_codes()
        self.key = identity.task_name(ctx.params.get(self.sub.key))  # issue 24: blank is no key, like ""
        self.ref = identity.ResourceRef(
            self.spec.name, self.spec.service_id, self.opts.workspace, sub=sub, key=self.key
        )
        self.desired: Dict[str, str] = {}
        self.secrets: Dict[str, str] = {}
        self.secrets_to_set: List[str] = []
        self.parent: Optional[Instance] = None
        self.current: Optional[Dict[str, Optional[str]]] = None  # the live sub-resource (secrets omitted)
        self.exists_after = False
        self.before: Dict[str, Optional[str]] = {}
        self.after: Dict[str, Any] = {}

    @property
    def module_name(self) -> str:
        return f"{self.ctx.module_name}_{self.sub.name}"

    def run(self) -> Dict[str, Any]:
        if not self.key:
            raise InputError(
                f"{self.sub.key} is required and must not be blank (empty or only whitespace): it identifies the "
                f"{self.sub.name} inside the parent instance"
            )
        self.ctx.warn_if_state_is_ephemeral()
        secret = [p for p in self.sub.params if p.secret]
        self.ctx.register_secrets({p.code: self.ctx.params.get(p.option) for p in secret})
        if self.opts.state == "present":
            self.desired = self.converter.desired(self.ctx.params)  # validates the input before any write
            self.desired[self.sub.key_code] = self.key
            self.secrets = {p.code: self.desired.pop(p.code) for p in secret if p.code in self.desired}
        parent_uid = self._parent_uid()
        self.ref = identity.ResourceRef(
            self.spec.name,
            self.spec.service_id,
            self.opts.workspace,
            sub=self.sub.name,
            key=self.key,
            parent_uid=parent_uid,
        )
        return run_task(self)

    def _parent_uid(self) -> str:
        """K1: from parent_instance_uid, else the parent's record, else its unique live display name.

        Check mode (issue 16): an empty parent_instance_uid (the uid a planned create of an earlier task returns)
        or a parent_resource_name nothing has yet is a parent that would be created first: "" here, and the task
        predicts the create of its sub-resource. A real run fails on both."""
        given = self.ctx.params.get("parent_instance_uid")
        explicit = identity.task_id(given)
        if explicit:
            return explicit
        name = str(self.ctx.params.get("parent_resource_name") or "")
        if given is not None and not name:
            if self.ctx.check_mode:
                self.ctx.pending_reference(f"the parent {self.spec.name} instance (parent_instance_uid is empty)")
                return ""
            raise NubesError(
                "parent_instance_uid is empty: give the uid of the parent instance (for example from the registered "
                "result of the task that created it) or its parent_resource_name"
            )
        record = self.ctx.store.get_instance(self.spec.name, name)
        if record and record.get("instance_uid"):
            return str(record["instance_uid"])
        found = self.ctx.api.find_live_by_name(self.spec.service_id, name)
        if not found and self.ctx.check_mode:
            self.ctx.pending_reference(f"the parent {self.spec.name} instance named {name!r}")
            return ""
        if len(found) != 1:
            raise NubesError(
                f"parent_resource_name {name!r} matches {len(found)} live instances of {self.spec.name}; "
                "give parent_instance_uid instead"
            )
        return found[0].uid

    # -- the skeleton's steps ---------------------------------------------------------------------

    def lock(self) -> ContextManager[None]:
        return self.ctx.store.parent_lock(self.ref.parent_uid)  # serialises the operations on one parent

    def what_exists(self) -> str:
        return f"{self.sub.name} {self.key!r} of instance {self.ref.parent_uid}"

    def store(self, record: Optional[records.Record]) -> None:
        if not self.ctx.check_mode:
            args = (self.spec.name, self.ref.parent_uid, self.sub.name, self.key)
            if record is None:
                self.ctx.store.delete_sub(*args)
            else:
                self.ctx.store.put_sub(*args, record)
        self.record = record

    def find(self) -> None:
        self.in_flight = ""
        self.record = records.normalise(
            self.ctx.store.get_sub(self.spec.name, self.ref.parent_uid, self.sub.name, self.key)
        )
        self.parent = identity.find(self.ctx.api, self.ref.parent_uid)  # K2: no call for a pending parent ("")
        if self.parent is not None and self.foreign_parent():
            return  # K4a: decided (an error) before anything else is read
        if self.parent is not None and self.settle(self.parent):
            self.parent = self.ctx.api.get_instance(self.ref.parent_uid) or self.parent
        self.current = self._live_item()

    def foreign_parent(self) -> str:
        """K4a: the parent must be an instance of this module's service; else both services, for the error."""
        parent = self.parent
        if parent is None or parent.service_id in (None, self.spec.service_id):
            return ""
        return f"{parent.service_label}, not {self.spec.name} (service {self.spec.service_id})"

    def _live_item(self) -> Optional[Dict[str, Optional[str]]]:
        for item in self.parent.subresources(self.sub.name) if self.parent is not None else []:
            if as_text(item.get(self.sub.key_code)) == self.key:
                return {str(k): as_text(v) for k, v in item.items()}
        return None

    def situation(self) -> SubSituation:
        parent = self.parent
        live = self.current or {}
        self.secrets_to_set = []
        if self.current is not None and self.secrets:
            # always: unknown (adopted) -> set it; on_create: a changed one is named in a warning
            self.secrets_to_set = self.secrets_to_send(self.record, self.secrets, self.converter.options)
        params = self.sub.params
        return SubSituation(
            sub=self.sub.name,
            key_option=self.sub.key,
            state=self.opts.state,
            parent_status=(parent.status if parent is not None and parent.live else MISSING),
            in_flight=self.in_flight,
            parent_busy=bool(parent is not None and parent.busy),
            foreign_service=self.foreign_parent(),
            parent_pending=not self.ref.parent_uid,
            exists=self.current is not None,
            recorded=self.record is not None,
            adopt=self.opts.adopt,
            changed=tuple(differing(params, self.desired, live, immutable=False) + self.secrets_to_set),
            key_mismatches=tuple(differing(params, self.desired, live, immutable=True)),
            create=self.sub.create,
            modify=self.sub.modify,
            delete=self.sub.delete,
            ephemeral_state=self.ctx.ephemeral_job,
        )

    def describe(self, decision: Decision) -> str:
        parent = self.parent
        lines = [
            *self.ctx.pending_references,
            f"{self.sub.key}: {self.key}",
            f"parent_instance_uid: {self.ref.parent_uid}",
        ]
        return diagnostics.render(
            self.module_name,
            decision,
            parent.display_name if parent is not None else str(self.ctx.params.get("parent_resource_name") or ""),
            self.spec.service_id,
            parent,
            parent.status if parent is not None else MISSING,
            extra=lines,
        )

    def refusal(self, decision: Decision) -> str:
        target = f"{self.sub.name} {self.key!r} of parent instance {self.ref.parent_uid or '(none)'}"
        return diagnostics.summary(self.module_name, decision, target)

    def plan(self, decision: Decision) -> None:
        self.before = dict(self.current or {})
        if decision.in_flight:  # P27: only reported; what the task wants is decided once that operation is done
            self.after = dict(self.before)
        elif self.opts.state == "absent":
            self.after = {}
        elif decision.operations == (self.sub.create,):
            self.after = dict(self.converter.for_create(dict(self.desired, **self.secrets)))  # before any write
        else:
            self.after = dict(self.before)
            self.after.update(self.desired)
            self.after.update({c: self.secrets[c] for c in self.secrets_to_set})
        self.exists_after = self.current is not None if decision.in_flight else self.opts.state == "present"
        # issue 27: `changed` is about the cloud; adopting (a record write alone) changes nothing there
        self.changed = bool(decision.operations) or (decision.record == RECORD_REMOVE and self.record is not None)

    def execute(self, decision: Decision) -> None:
        for operation in decision.operations:
            if operation == self.sub.create:
                self._run(operation, self.after, self.secrets, {})
            elif operation == self.sub.delete:
                self._run(operation, {self.sub.key_code: self.key}, {}, {})
            else:  # modify: the task's values, the live ones for the rest (never locks a user out), no secret reset
                secrets = {c: self.secrets[c] for c in self.secrets_to_set}
                self._run(operation, dict(self.desired, **secrets), secrets, self.current or {})
        finished = self.last_operation is None or self.last_operation.finished
        if not finished:
            self.exists_after = self.exists_after and self.current is not None
        elif decision.record == RECORD_REMOVE and self.record is not None:
            self.store(None)
        elif decision.record == RECORD_WRITE or (self.record and self.record.get("status") != STATUS_PRESENT):
            # written, or found done by a re-run after an interrupted create: the record is now complete
            self.store(records.present(self.record, [p.code for p in self.sub.params if p.secret]))

    def _run(self, name: str, values: Dict[str, Any], secrets: Dict[str, str], current: Dict[str, Any]) -> None:
        if self.parent is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no parent instance; please report this bug")
        if self.record is None:
            self.record = {"status": STATUS_CREATING}  # stored when the operation starts (P27)
        self.run_operation(self.parent, name, values, secrets, None, current)

    def result(self, decision: Decision) -> Dict[str, Any]:
        result: Dict[str, Any] = {
            "changed": self.changed,
            "subresource": {
                "parent_instance_uid": self.ref.parent_uid,
                "name": self.sub.name,
                "key": self.key,
                "exists": self.exists_after,  # after the run (in check mode: as planned)
                "params": self.converter.options_view(self.after if self.exists_after else self.before),
            },
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
