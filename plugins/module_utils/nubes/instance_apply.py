# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execute step of an instance task: what the plan holds (:class:`InstancePlan`) and how it is carried out.

Create (P20, K3; the uid recorded the moment the API returns it), modify with defaults (P38), resume, suspend,
delete, redeploy (P14), placeholder removal; the record written through into the :class:`~.task.Outcome`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Dict, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import records, revision, settle
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError, OutcomeUnknownError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.instance_find import InstanceFind, InstanceFound
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    DELETE_PLACEHOLDER,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import DELETED, MISSING, NOT_CREATED, Instance
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.placeholder import Placeholder
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import (
    STATUS_CREATE_REQUESTED,
    STATUS_CREATING,
    STATUS_PRESENT,
    Record,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.task import Outcome, Plan, Settled


@dataclass(frozen=True)
class InstancePlan(Plan):
    """Besides the decision and the diff: the create's values, the secrets to send, the params left alone, and
    git_revision in the diff (P14)."""

    create_values: Dict[str, str] = field(default_factory=dict)
    secrets_to_set: Tuple[str, ...] = ()
    left_alone: Mapping[str, str] = field(default_factory=dict)  # codes whose live value is kept (issue 23)
    revisions: Tuple[Dict[str, str], Dict[str, str]] = ({}, {})


class InstanceApply(InstanceFind):
    """The execute step: `apply(found, plan, outcome)`."""

    def what_exists(self, outcome: Outcome) -> str:
        uid = outcome.instance.uid if outcome.instance is not None else ""
        name = self.ref.resource_name
        return f"{self.spec.name} instance {uid} ({name!r})" if uid else f"a {self.spec.name} instance named {name!r}"

    def apply(self, found: InstanceFound, plan: InstancePlan, outcome: Outcome) -> None:
        decision = plan.decision
        final = len(decision.operations) - 1
        for index, operation in enumerate(decision.operations):
            if operation == DELETE_PLACEHOLDER:
                self.ctx.api.delete_instance(self._uid(outcome))
                outcome.operations.append(operation)
            elif not self._operation(found, plan, outcome, operation, wait=self.opts.wait or index < final):
                break  # wait=false: return once the last one runs (the ones before it are waited for)
        finished = outcome.finished
        if "delete" in decision.operations and finished and outcome.instance is not None:
            self._forget_subresources(outcome.instance.uid)
        if decision.record == RECORD_REMOVE and outcome.record is not None and finished:
            self.write(outcome, None)
        elif decision.record == RECORD_WRITE and finished and outcome.instance is not None:
            self.write(outcome, self._present_record(outcome))
        elif decision.record == RECORD_KEEP and found.own.reusable is not None and outcome.record is not None:
            self.write(outcome, records.settled(outcome.record, False))  # an abandoned draft: forget it
        last = decision.operations[-1] if decision.operations else ""
        if last not in ("", DELETE_PLACEHOLDER) and outcome.instance is not None and (last != "create" or not finished):
            # status and outputs as they are now (with wait=false: right after the operation was started)
            outcome.instance = self.ctx.api.get_instance(outcome.instance.uid) or outcome.instance

    def settle(self, record: Optional[records.Record]) -> Settled:
        """P27, issue 27: a delete this record started and a later run settles (after `wait: false` or a timed-out
        wait) forgets the instance's sub-resource records as well, as a delete that finishes in its own run does."""
        operation = records.open_operation(record)
        result = super().settle(record)
        if result.waited and result.record is None and operation is not None and operation.name == "delete":
            self._forget_subresources(str(record.instance_uid or "") if record is not None else "")
        return result

    def _forget_subresources(self, parent_uid: str) -> None:
        """issue 27: the API deletes an instance's sub-resources with it, so their records go too (a record left
        behind would name a user of an instance that no longer exists). Called once the delete has finished: in
        its own run (`apply`) or in the later run that settles it (`settle`); never in check mode."""
        if self.ctx.check_mode or not parent_uid:
            return
        store = self.ctx.store
        for ref, _record in store.subresources_of(self.ref, parent_uid):
            store.delete(ref)

    def _present_record(self, outcome: Outcome) -> Record:
        return records.present(
            outcome.record,
            [p.code for p in self.spec.params if p.secret],
            instance_uid=self._uid(outcome),
            git_revision=self.opts.git_revision,
        )

    @staticmethod
    def _uid(outcome: Outcome) -> str:
        if outcome.instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no instance to operate on; please report this bug")
        return outcome.instance.uid

    def _operation(self, found: InstanceFound, plan: InstancePlan, outcome: Outcome, name: str, wait: bool) -> bool:
        """Run one operation; False when it was only started (wait=false)."""
        if name == "create":
            return self._create(found, plan, outcome, wait)
        values: Dict[str, str] = {}
        secrets: Dict[str, str] = {}
        current: Dict[str, Optional[str]] = {}
        if name == "modify":
            secrets = {c: self.secrets[c] for c in plan.secrets_to_set}
            values = {k: v for k, v in dict(self.desired, **secrets).items() if k not in plan.left_alone}
            current = outcome.instance.params() if outcome.instance is not None else {}  # P38: the rest keeps its value
        elif name == "redeploy" and self.opts.git_revision is not None:
            values = {revision.param_code(self.spec): self.opts.git_revision}
        deploys = self.opts.git_revision if name == "redeploy" else None  # P14: recorded once the redeploy succeeded
        return self._execute(found, plan, outcome, name, values, secrets, deploys, wait, current)

    def _execute(
        self,
        found: InstanceFound,
        plan: InstancePlan,
        outcome: Outcome,
        name: str,
        values: Dict[str, str],
        secrets: Dict[str, str],
        deploys: Optional[str],
        wait: bool,
        current: Optional[Dict[str, Optional[str]]] = None,
    ) -> bool:
        instance = outcome.instance
        if instance is None:  # internal invariant (ansible-test forbids assert)
            raise NubesError("internal error: no instance to operate on; please report this bug")
        if outcome.record is None:  # adopting: the record starts with the operation (P27: a re-run waits for it)
            outcome.record = Record(status=STATUS_PRESENT, instance_uid=instance.uid)
        return self.run_operation(outcome, found, plan, instance, name, values, secrets, deploys, current, wait)

    def _create(self, found: InstanceFound, plan: InstancePlan, outcome: Outcome, wait: bool) -> bool:
        """P20: POST /instances (K3: no id), the uid recorded at once, then the create operation on it."""
        instance = outcome.instance
        if instance is None or instance.status in (DELETED, MISSING):
            self._new_instance(outcome)
        elif outcome.record is None or outcome.record.instance_uid != instance.uid:
            self.write(outcome, replace(outcome.record or Record(), status=STATUS_CREATING, instance_uid=instance.uid))
        # P14 (issue 23): the create records git_revision only where its operation takes it; otherwise the redeploy
        # that follows records it once it succeeded, so a failed (or never run) redeploy leaves it undeployed
        deploys = self.opts.git_revision if settle.create_deploys(self.spec) else None
        finished = self._execute(found, plan, outcome, "create", plan.create_values, self.secrets, deploys, wait)
        if finished:
            uid = self._uid(outcome)
            created = self.ctx.api.get_instance(uid)
            if created is None or created.status in (DELETED, NOT_CREATED):
                raise NubesError(
                    f"the create operation finished but instance {uid} is "
                    f"{created.status_raw if created else 'gone'}; check it in the Cloud Console and re-run"
                )
            outcome.instance = created
        return finished

    def _new_instance(self, outcome: Outcome) -> None:
        prior = outcome.record
        requested_at = time.time()
        # The moment the request leaves is recorded with it: a re-run reads the name until the request's outcome
        # window has passed before it sends another (issue 24).
        self.write(outcome, Record(status=STATUS_CREATE_REQUESTED, instance_uid="", requested_at=requested_at))
        placeholder = Placeholder(self.ctx.api, self.spec.service_id, self.ref.resource_name)
        try:
            uid = placeholder.post()
        except OutcomeUnknownError as exc:
            try:
                uid = placeholder.read_back(exc, requested_at)  # the record keeps the request if none is found
            except NubesError:
                # read to the end of the request's outcome window: a re-run need not wait for it again
                self.write(outcome, replace(outcome.record or Record(), window_passed=True))
                raise
        except NubesError:
            self.write(outcome, prior)  # refused: nothing was made
            raise
        outcome.instance = Instance({"instanceUid": uid, "displayName": placeholder.name, "explainedStatus": ""})
        self.write(outcome, Record(status=STATUS_CREATING, instance_uid=uid))  # recorded before anything else
