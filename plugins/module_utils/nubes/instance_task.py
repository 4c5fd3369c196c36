# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An instance module's task (the skeleton's steps for one instance of the service).

Find (instance_find.py): the identity, the record and the live instance. Compare and situation: pure functions of
what was found and the task's input; decide on live data (lifecycle.py). Plan: the values and the diff. Execute
(instance_apply.py): the operations, the record written through. Result: built from those values.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import diagnostics, revision, settle
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.instance_apply import InstanceApply, InstancePlan
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.instance_find import InstanceFound
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    DELETE_PLACEHOLDER,
    RECORD_REMOVE,
    Decision,
    InstanceSituation,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import MISSING, RUNNING, Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import STATUS_PRESENT
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import Compared, Outcome, run_task
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import (
    create_only_subs_unset,
    differing,
    without_create_only_subs,
)


class InstanceTask(InstanceApply):
    """present / absent / deleted of one instance of the service."""

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

    # -- compare and situation: pure ----------------------------------------------------------------

    def compare(self, found: InstanceFound) -> Compared:
        """The params whose live value is left alone (ignore_changes, an autoScale disk) and the secrets to send,
        with the warnings they give."""
        warnings: List[str] = []
        left_alone: Dict[str, str] = {}
        if found.instance is not None:
            left_alone, warnings = settle.left_alone(self.converter, self.opts.ignore_changes, self.desired, found.live)
            warnings += create_only_subs_unset(self.spec.params, self.desired, found.live)  # issue 23 (P41)
        secrets, secret_warnings = self._secrets_to_set(found)
        return Compared(tuple(secrets), left_alone, tuple(warnings + secret_warnings))

    def _secrets_to_set(self, found: InstanceFound) -> Tuple[List[str], List[str]]:
        """The secrets to send to the existing instance (Task.secrets_to_send), less those the API takes on create
        only (named in a warning)."""
        if not self.secrets or found.instance is None:
            return [], []
        record = found.record if found.own_record else None
        codes, warnings = self.secrets_to_send(record, self.secrets, self.converter.options)
        fixed = [c for c in codes if self.converter.by_code[c].immutable]
        if fixed:
            warnings.append(f"{', '.join(fixed)}: set on create only; the API cannot change it on an existing instance")
        return [c for c in codes if c not in fixed], warnings

    def situation(self, found: InstanceFound, compared: Compared) -> InstanceSituation:
        instance = found.instance
        status = instance.status if instance is not None else MISSING
        own = found.own_record
        creating = own and found.record is not None and found.record.status != STATUS_PRESENT
        live = found.live
        record = found.record if own else None  # issue 23: only this instance's own record says what it deployed
        wanted = {code: value for code, value in self.desired.items() if code not in compared.left_alone}
        foreign = ""
        if instance is not None and instance.service_id not in (None, self.spec.service_id):
            foreign = f"{instance.service_label}, not {self.spec.name} (service {self.spec.service_id})"  # K4a
        return InstanceSituation(
            state=self.opts.state,
            status=status if found.live_read else MISSING,
            identity_conflict=found.resolved.conflict,  # K4a / K4b
            identity_rule=found.resolved.rule,
            live_read=found.live_read,  # P29
            in_flight=found.own.in_flight,  # P27
            busy=bool(instance is not None and instance.busy),
            available=instance.available_names() if instance is not None else None,
            foreign_service=foreign,
            recorded=found.recorded and not creating,
            record_creating=creating,
            lost_uid=found.lost_uid,
            named_uid=bool(self.ref.task_uid),
            live_matches=len(found.live_uids),
            live_uids=found.live_uids,
            name_taken_by=found.name_taken_by,  # issue 14
            adopt=self.opts.adopt,
            key_mismatches=tuple(differing(self.spec.params, self.desired, live, immutable=True)),
            changed=tuple(differing(self.spec.params, wanted, live, immutable=False) + list(compared.secrets_to_set)),
            revision_changed=instance is not None and revision.changed(self.spec, self.opts.git_revision, live, record),
            revision_unknown=instance is not None and revision.unknown(self.spec, self.opts.git_revision, live, record),
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

    def describe(self, found: InstanceFound, decision: Decision) -> str:
        instance = found.instance
        status = (instance.status if instance else MISSING) if found.live_read else "unknown (not read)"
        return diagnostics.render(
            self.ctx.module_name,
            decision,
            self.ref.resource_name,
            self.spec.service_id,
            instance,
            status,
            extra=self.ctx.pending_references,
        )

    def refusal(self, found: InstanceFound, decision: Decision) -> str:
        target = repr(self.ref.resource_name)
        if found.instance is not None and found.instance.uid:
            target += f" (instance_uid {found.instance.uid})"
        return diagnostics.summary(self.ctx.module_name, decision, target)

    # -- plan --------------------------------------------------------------------------------------

    def plan(self, found: InstanceFound, compared: Compared, decision: Decision) -> InstancePlan:
        ops = decision.operations
        instance = found.instance
        live = instance.params() if instance is not None and found.live_read else {}
        known = {k: v for k, v in live.items() if k in self.converter.by_code}
        create_values: Dict[str, str] = {}
        if decision.in_flight:  # P27: only reported; what the task wants is decided once that operation is done
            before, after = known, dict(known)
        elif "create" in ops:
            create_values = self.converter.for_create(dict(self.desired, **self.secrets))  # before any write
            before, after = {}, dict(create_values)
            self.ctx.check_references(self.converter.uid_references(create_values))  # issue 23: before any write
        elif self.opts.state == "present":
            before, after = known, dict(known)
            # only what differs: a value equal to the live one in another spelling (a map-fixed object without a
            # sub-field the API fills with ""; P39) is shown as it is live, so a no-op shows no difference
            wanted = {k: v for k, v in self.desired.items() if k not in compared.left_alone}
            after.update({k: wanted[k] for k in differing(self.spec.params, wanted, live, immutable=False)})
            after.update({c: self.secrets[c] for c in compared.secrets_to_set})
            if "modify" in ops:  # the diff shows what the modify sends, defaults and zero values included
                after = without_create_only_subs(self.spec.params, self.converter.with_defaults(after, "modify"))
            sent = {k: v for k, v in after.items() if v != before.get(k)}
            self.ctx.check_references(self.converter.uid_references(sent))
        else:
            before, after = known, {}
        revisions = revision.diff(
            self.spec, "create" in ops, self.opts.state == "present", self.opts.git_revision, live, found.record
        )
        remove = decision.record == RECORD_REMOVE and found.record is not None
        # issue 27: `changed` is about the cloud; adopting (a record write alone) changes nothing there
        changed = bool(ops) or remove
        return InstancePlan(
            decision,
            before,
            after,
            changed,
            create_values=create_values,
            secrets_to_set=compared.secrets_to_set,
            left_alone=compared.left_alone,
            revisions=revisions,
        )

    # -- result ----------------------------------------------------------------------------------

    def result(self, found: InstanceFound, plan: InstancePlan, outcome: Outcome, diagnosis: str) -> Dict[str, Any]:
        instance = outcome.instance
        decision = plan.decision
        status = "unknown" if not found.live_read else instance.status if instance is not None else MISSING
        if decision.operations and decision.operations[-1] == DELETE_PLACEHOLDER and not self.ctx.check_mode:
            status = MISSING
        recorded_uid = (outcome.record.instance_uid if outcome.record is not None else None) or ""
        view = {
            "instance_uid": instance.uid if instance else recorded_uid,
            "resource_name": self.ref.resource_name,
            "service_id": self.spec.service_id,
            "status": status,
            "status_raw": instance.status_raw if instance else "",
            "operation_pending": bool(instance and instance.operation_pending),
            "operation_in_progress": bool(instance and instance.operation_in_progress),
            "params": self.converter.options_view(instance.params() if instance and found.live_read else {}),
            "outputs": self.ctx.outputs(instance),
        }
        result: Dict[str, Any] = {
            "changed": plan.changed,
            "instance": view,
            "instance_uid": view["instance_uid"],
            "status": status,
            "status_raw": view["status_raw"],
            "outputs": view["outputs"],
            "operations": outcome.operations,
            "operation": outcome.last_operation.as_dict() if outcome.last_operation else None,
            "diagnostics": diagnosis,
            "decision": decision.action,
        }
        if self.ctx.diff_mode:
            before = dict(self.converter.options_view(plan.before, mask=True), **plan.revisions[0])
            after = dict(self.converter.options_view(plan.after, mask=True), **plan.revisions[1])
            if "resume" in decision.operations and found.instance is not None:
                before["status"], after["status"] = found.instance.status, RUNNING  # issue 27: a resume shows it
            if "delete" in decision.operations and found.instance is not None:
                before.update(self._subresources_view(found.instance))  # issue 27: they go with the instance
            result["diff"] = {"before": before, "after": after}
        return result

    def _subresources_view(self, instance: Instance) -> Dict[str, Any]:
        """`subresources`: the keys of the instance's live sub-resources by kind (a PostgreSQL's users and
        databases), which the API deletes with it; empty when it has none."""
        listed = {
            sub.name: [str(item.get(sub.key_code)) for item in instance.subresources(sub.name)]
            for sub in self.spec.subresources
        }
        listed = {name: keys for name, keys in listed.items() if keys}
        return {"subresources": listed} if listed else {}
