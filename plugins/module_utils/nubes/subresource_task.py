# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A sub-resource module's task (P13, P17): identity = {parent instance uid, key}.

Sub-resources are created, modified and deleted by operations on the parent instance (`create_<sub>`,
`modify_<sub>`, `delete_<sub>`) and listed live in the parent's `state.subresources.<sub>` (secrets omitted).
The skeleton is the instance task's (task.py): lock (the parent), find, compare, decide (lifecycle.decide), plan,
execute, result, each step taking and returning values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

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
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import STATUS_CREATING, STATUS_PRESENT, Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import (
    Compared,
    Found,
    Outcome,
    Plan,
    Settled,
    Task,
    run_task,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import differing


@dataclass(frozen=True)
class SubFound(Found):
    """What a sub-resource task found: its record, the parent instance (`instance`), the record's own operation on
    it, and the live sub-resource (secrets omitted; None: it does not exist)."""

    current: Optional[Dict[str, Optional[str]]] = None


@dataclass(frozen=True)
class SubPlan(Plan):
    """Besides the decision and the diff: whether the sub-resource exists afterwards, and the secrets to send."""

    exists_after: bool = False
    secrets_to_set: Tuple[str, ...] = ()


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
            self.spec.name, self.spec.service_id, self.opts.workspace, sub=self.sub.name, key=self.key
        )
        self.desired: Dict[str, str] = {}

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
        self.ref = self.ref.in_parent(self._parent_uid())  # the identity, complete before the task starts
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
        parent = identity.ResourceRef(self.spec.name, self.spec.service_id, self.opts.workspace, name)
        record = self.ctx.store.get(parent)  # the parent task's record
        if record is not None and record.instance_uid:
            return record.instance_uid
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

    def what_exists(self, outcome: Outcome) -> str:
        return f"{self.sub.name} {self.key!r} of instance {self.ref.parent_uid}"

    def find(self) -> SubFound:
        record = self.ctx.store.get(self.ref)
        parent = identity.find(self.ctx.api, self.ref.parent_uid)  # K2: no call for a pending parent ("")
        if parent is not None and self.foreign_parent(parent):
            return SubFound(record, parent)  # K4a: decided (an error) before anything else is read
        own = Settled(record)
        if parent is not None:
            own = self.settle(record)
            if own.waited:
                parent = self.ctx.api.get_instance(self.ref.parent_uid) or parent
        return SubFound(own.record, parent, own, current=self._live_item(parent))

    def foreign_parent(self, parent: Optional[Instance]) -> str:
        """K4a: the parent must be an instance of this module's service; else both services, for the error."""
        if parent is None or parent.service_id in (None, self.spec.service_id):
            return ""
        return f"{parent.service_label}, not {self.spec.name} (service {self.spec.service_id})"

    def _live_item(self, parent: Optional[Instance]) -> Optional[Dict[str, Optional[str]]]:
        for item in parent.subresources(self.sub.name) if parent is not None else []:
            if as_text(item.get(self.sub.key_code)) == self.key:
                return {str(k): as_text(v) for k, v in item.items()}
        return None

    def compare(self, found: SubFound) -> Compared:
        """The secrets to send: always: unknown (adopted) -> set it; on_create: a changed one is named in a warning."""
        if found.current is None or not self.secrets:
            return Compared()
        codes, warnings = self.secrets_to_send(found.record, self.secrets, self.converter.options)
        return Compared(tuple(codes), warnings=tuple(warnings))

    def situation(self, found: SubFound, compared: Compared) -> SubSituation:
        parent = found.instance
        live = found.current or {}
        params = self.sub.params
        return SubSituation(
            sub=self.sub.name,
            key_option=self.sub.key,
            state=self.opts.state,
            parent_status=(parent.status if parent is not None and parent.live else MISSING),
            in_flight=found.own.in_flight,  # P27
            parent_busy=bool(parent is not None and parent.busy),
            foreign_service=self.foreign_parent(parent),  # K4a
            parent_pending=not self.ref.parent_uid,
            exists=found.current is not None,
            recorded=found.record is not None,
            adopt=self.opts.adopt,
            changed=tuple(differing(params, self.desired, live, immutable=False) + list(compared.secrets_to_set)),
            key_mismatches=tuple(differing(params, self.desired, live, immutable=True)),
            create=self.sub.create,
            modify=self.sub.modify,
            delete=self.sub.delete,
            ephemeral_state=self.ctx.ephemeral_job,
        )

    def describe(self, found: SubFound, decision: Decision) -> str:
        parent = found.instance
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

    def refusal(self, found: SubFound, decision: Decision) -> str:
        target = f"{self.sub.name} {self.key!r} of parent instance {self.ref.parent_uid or '(none)'}"
        return diagnostics.summary(self.module_name, decision, target)

    def plan(self, found: SubFound, compared: Compared, decision: Decision) -> SubPlan:
        before = dict(found.current or {})
        if decision.in_flight:  # P27: only reported; what the task wants is decided once that operation is done
            after: Dict[str, Any] = dict(before)
        elif self.opts.state == "absent":
            after = {}
        elif decision.operations == (self.sub.create,):
            after = dict(self.converter.for_create(dict(self.desired, **self.secrets)))  # before any write
        else:
            after = dict(before)
            after.update(self.desired)
            after.update({c: self.secrets[c] for c in compared.secrets_to_set})
        # issue 27: `changed` is about the cloud; adopting (a record write alone) changes nothing there
        changed = bool(decision.operations) or (decision.record == RECORD_REMOVE and found.record is not None)
        exists_after = found.current is not None if decision.in_flight else self.opts.state == "present"
        return SubPlan(decision, before, after, changed, exists_after, compared.secrets_to_set)

    def apply(self, found: SubFound, plan: SubPlan, outcome: Outcome) -> None:
        decision = plan.decision
        for operation in decision.operations:
            if operation == self.sub.create:
                self._run(found, plan, outcome, operation, plan.after, self.secrets, {})
            elif operation == self.sub.delete:
                self._run(found, plan, outcome, operation, {self.sub.key_code: self.key}, {}, {})
            else:  # modify: the task's values, the live ones for the rest (never locks a user out), no secret reset
                secrets = {c: self.secrets[c] for c in plan.secrets_to_set}
                self._run(found, plan, outcome, operation, dict(self.desired, **secrets), secrets, found.current or {})
        if not outcome.finished:
            return  # wait=false: the record holds the operation; a later run settles it (P27)
        unfinished = outcome.record is not None and outcome.record.status != STATUS_PRESENT
        if decision.record == RECORD_REMOVE and outcome.record is not None:
            self.write(outcome, None)
        elif decision.record == RECORD_WRITE or unfinished:
            # written, or found done by a re-run after an interrupted create: the record is now complete
            self.write(outcome, records.present(outcome.record, [p.code for p in self.sub.params if p.secret]))

    def _run(
        self,
        found: SubFound,
        plan: SubPlan,
        outcome: Outcome,
        name: str,
        values: Dict[str, Any],
        secrets: Dict[str, str],
        current: Dict[str, Any],
    ) -> None:
        if found.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no parent instance; please report this bug")
        if outcome.record is None:
            outcome.record = Record(status=STATUS_CREATING)  # stored when the operation starts (P27)
        self.run_operation(outcome, found, plan, found.instance, name, values, secrets, None, current)

    def result(self, found: SubFound, plan: SubPlan, outcome: Outcome, diagnosis: str) -> Dict[str, Any]:
        # wait=false: a create only started does not exist yet
        exists = plan.exists_after and (outcome.finished or found.current is not None)
        result: Dict[str, Any] = {
            "changed": plan.changed,
            "subresource": {
                "parent_instance_uid": self.ref.parent_uid,
                "name": self.sub.name,
                "key": self.key,
                "exists": exists,  # after the run (in check mode: as planned)
                "params": self.converter.options_view(plan.after if exists else plan.before),
            },
            "operations": outcome.operations,
            "operation": outcome.last_operation.as_dict() if outcome.last_operation else None,
            "diagnostics": diagnosis,
            "decision": plan.decision.action,
        }
        if self.ctx.diff_mode:
            result["diff"] = {
                "before": self.converter.options_view(plan.before, mask=True),
                "after": self.converter.options_view(plan.after, mask=True),
            }
        return result
