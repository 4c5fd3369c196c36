# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One component task: render its source, then reconcile (apply or delete) until Ready or the timeout, persisting
the status in the record after every step (``reconcile``: one reconcile function and one status type, as
component-operator-runtime's ``Reconcile``). A Helm chart's delete hooks run in the deletion as sets of their own,
through the same reconciler (``ComponentRun.delete``). Check mode is the same reconciler run once with a dry-run
client: every write is sent with ``dryRun=All`` (kubernetes.core's ``_ensure_dry_run``), so one copy of each rule
decides.

``ComponentRun.execute`` is the boundary where errors of the layers below (``kube.errors.KubeError``) become the
module's one error root, :class:`~.errors.ComponentError`, with the status known so far.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import first_apply, report
from ansible_collections.nubes.cloud.plugins.module_utils.component.desired import delete_hooks, desired_objects
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
from ansible_collections.nubes.cloud.plugins.module_utils.component.namespace import (
    delete_created_namespaces,
    delete_namespace_object,
    delete_own_namespace,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.reconcile import (
    APPLY,
    APPLY_DELETE_HOOKS,
    DELETE,
    Result,
    Target,
    begin,
    begin_deletion,
    run,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import DELETE_PHASES
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import (
    REASON_DELETION_BLOCKED,
    REASON_NAMESPACE_STUCK,
    REASON_TIMEOUT,
    STATE_DELETING,
    ComponentStatus,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.task import ComponentTask
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Forbidden, KubeError, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_DISABLED, MODE_WARN
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers, hash_owner_id, owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler

PRE_DELETE, POST_DELETE = DELETE_PHASES
OBJECTS_STEP, HOOKS_STEP = "objects", "hooks"
STEP_ACTIVITIES = {
    PRE_DELETE: "running the pre-delete hooks",
    OBJECTS_STEP: "deleting the objects",
    POST_DELETE: "running the post-delete hooks",
    HOOKS_STEP: "deleting the delete hooks",
}


@dataclass
class DeleteStep:
    """One step of ``state: absent``: apply a delete phase's hooks, or delete an inventory (the objects', the
    hooks'). ``name`` is what the record's ``deletePhase`` says while it runs; ``inventory``, when given, becomes the
    record's inventory as the step starts (the objects' step: all but the component's own namespace)."""

    name: str
    operation: str
    inventory: Optional[List[InventoryItem]] = None
    objects: Optional[List[Dict[str, Any]]] = None
    hooks: bool = False  # the inventory is the hooks' (record.deleteHooksInventory)


def _now() -> str:
    return format_time()


def _copies(items: List[InventoryItem]) -> List[InventoryItem]:
    return [item.copy() for item in items]


def _cluster_uid(api: KubeApi) -> str:
    """kube-system UID through the un-impersonated identity (reference 7.1); the API host when that is denied."""
    try:
        return api.sibling(impersonate=False).cluster_uid()
    except Forbidden:
        return "host-" + hashlib.sha256(api.connection.host.encode("utf-8")).hexdigest()[:16]


class ComponentRun:
    """Run one task; ``execute`` returns the result dict or raises ComponentError."""

    def __init__(self, task: ComponentTask, api: Optional[KubeApi] = None) -> None:
        self.task = task
        self._api = api
        self.record = ComponentStatus()  # the component's status, as its record in the cluster holds it
        self.existed = False
        markers = Markers(task.annotation_prefix)
        self.writes = report.Writes(hidden=(markers.digest_annotation, markers.owner_label))
        self.target: Optional[Target] = None  # what the last reconcile worked on
        self.blocking: List[str] = []  # the objects a failed reconcile's error is about
        self.failed = False
        self.record_gone = False
        self._scratch: Optional[ComponentStatus] = None  # check mode's copy of the inventories
        self._store: Optional[ComponentStore] = None

    # --- shared ------------------------------------------------------------------------------------------------

    def connect(self) -> None:
        """The target cluster's client (dry-run in check mode), the record store and the owner id."""
        task = self.task
        if self._api is None:
            options = task.connection
            options.dry_run = task.check_mode
            self._api = connect(options)
        self.owner_id = owner_id(_cluster_uid(self.api), task.namespace, task.name)
        self._store = ComponentStore(self.api.sibling(dry_run=False), task.namespace, task.name, task.annotation_prefix)
        self._store.owner_labels = {f"{task.annotation_prefix}/owner-id": hash_owner_id(self.owner_id)}

    @property
    def store(self) -> ComponentStore:
        """The component's record in the cluster."""
        if self._store is None:
            raise ComponentError("not connected")  # pragma: no cover - execute() connects first
        return self._store

    @property
    def api(self) -> KubeApi:
        """The client of the target cluster."""
        if self._api is None:
            raise ComponentError("not connected")  # pragma: no cover - execute() connects first
        return self._api

    def reconciler(self, digest: str) -> Reconciler:
        """The reconciler for this component (C10, C15, C16, C17)."""
        task = self.task
        return Reconciler(
            self.api,
            self.owner_id,
            task.deploy_namespace,
            component_digest=digest,
            prefix=task.annotation_prefix,
            policies=task.policies,
            reapply_interval=task.reapply_interval,
            # A deletion runs its delete hooks once, as helm does: it never reverts a hand fix of a stuck hook (the
            # drift a deletion meets is not the task's to correct), so live drift is only corrected on apply.
            drift_mode=task.drift_mode if task.state == "present" else MODE_DISABLED,
            drift_ignore=task.drift_ignore,
            additional_managed_types=task.additional_managed_types,
            observer=self.writes,
            health_rules=task.health_rules,  # issue 25: readiness of custom resources per group/kind
            reclaimed_managers=task.reclaim_field_managers,  # issue 25: the conflict policy (C15)
        )

    def result(self, changed: bool, **extra: Any) -> Dict[str, Any]:
        """The module result: changed, status (C5) and what happened to which object."""
        task = self.task
        record_name = self._store.object_name if self._store else ""
        status = self.record.status()
        objects = self.writes.objects()
        data: Dict[str, Any] = {
            "changed": changed,
            "state": self.record.state or "Absent",
            "component": {
                "name": task.name,
                "namespace": task.namespace,
                "deployment_namespace": task.deploy_namespace,
                "deployment_name": task.deploy_name,
                "record": f"ConfigMap {task.namespace}/{record_name}",
            },
            "api_calls": self.api.calls.snapshot() if self._api is not None else {"total": 0},
        }
        if self.failed and task.verbosity < report.FULL_VERBOSITY:
            # the error and a summary first; the inventory stays in the record (and in the result with -vv)
            status.pop("inventory", None)
            data["summary"] = report.failure_summary(self._inventory(), self.blocking)
            objects = report.shorten_lists(objects, task.verbosity)
        data["status"] = status
        data["objects"] = objects
        data["drift"] = self.writes.drifted()
        if data["drift"] and task.drift_mode == MODE_WARN:
            data["warnings"] = [
                f"drift found and not corrected (drift_detection mode warn): {', '.join(data['drift'])}; run with "
                "--diff to see it, or set drift_detection.mode to enabled to correct it"
            ]
        data.update(extra)
        return data

    def _inventory(self) -> List[InventoryItem]:
        """The inventory the last reconcile worked on (the objects', or the delete hooks')."""
        return self.target.inventory(self.record) if self.target is not None else self.record.inventory

    def fail(self, message: str, changed: bool, **extra: Any) -> ComponentError:
        """The task's failure, with the result known so far."""
        self.failed = True
        return ComponentError(
            f"component {self.task.namespace}/{self.task.name}: {message}", self.result(changed, **extra)
        )

    def _save(self, status: ComponentStatus) -> None:
        """Persist the status after every reconcile (C8). While deleting, the namespace holding the record may be
        going (the component's own namespace is one of its objects): nothing is left to write into then."""
        if self.record_gone:
            return
        try:
            self.store.save(status)
        except NotFound:
            if self.target is None or not self.target.deleting:
                raise
            self.record_gone = True

    def _run(self, target: Target, deadline: float) -> Result:
        """Reconcile ``target`` until done, failed, or (``wait: false``) a step that changed nothing."""
        self.target = target
        result = run(self.record, target, self._save, max(0.0, deadline - time.monotonic()), wait=self.task.wait)
        self.blocking = result.blocking
        return result

    def _dry_run(self, target: Target, inventory: Optional[List[InventoryItem]] = None) -> None:
        """Check mode: one dry-run pass of ``target`` (every write sent with ``dryRun=All``) on a scratch copy of the
        inventories, kept from step to step: nothing is persisted, and the status reported is the record's."""
        if self._scratch is None:
            self._scratch = ComponentStatus(
                inventory=_copies(self.record.inventory), deleteHooksInventory=_copies(self.record.deleteHooksInventory)
            )
        if inventory is not None:
            self._scratch.inventory = _copies(inventory)
        items = target.inventory(self._scratch)
        if target.operation == DELETE:
            target.reconciler.delete(items)
        else:
            target.reconciler.apply(items, target.objects)

    # --- apply -------------------------------------------------------------------------------------------------

    def apply(self) -> Dict[str, Any]:
        """state=present: begin the run (C13: a suspended component is not applied; a changed input restarts it),
        render, then reconcile until Ready, failed or the timeout."""
        task, store = self.task, self.store
        loaded = store.load()
        if loaded is not None:
            self.record = loaded
            self.existed = True
        record = self.record
        digest = task.digest()
        if self.existed and record.placement and record.placement != self._placement():
            raise self.fail(
                f"it was deployed to {record.placement}; the placement must not change after the first apply (C10). "
                "Delete the component first, then apply it with the new placement",
                False,
            )
        record.placement = self._placement()
        if not begin(record, digest, task.suspend, _now()):
            if self.existed and not task.check_mode:
                store.save(record)
            return self.result(False)
        objects = desired_objects(task, self.api, record.revision)
        # kept for state=absent, as Helm keeps a release's hooks: a deletion runs the hooks of the last apply
        record.deleteHooks = delete_hooks(task, self.api, record.revision)
        reconciler = self.reconciler(digest)
        deadline = time.monotonic() + task.timeout
        self._remove_delete_hooks_left(reconciler, deadline)
        target = Target(APPLY, reconciler, objects)
        if task.check_mode:
            self._dry_run(target)  # one dry-run pass through every wave
            extra: Dict[str, Any] = {"plan": self.writes.plan()}
            if task.diff:
                extra["diff"] = self.writes.diff(task.verbosity)
            return self.result(self.api.calls.writes > 0, **extra)
        created = self._ensure_namespace()
        writes_before = self.api.calls.changes
        result = self._run(target, deadline)
        changed = created or self.api.calls.changes > writes_before  # issue 25: a no-op forced re-apply is no change
        if result.error is None:
            return self.result(changed, **self._diff(changed))  # Ready, or wait=false: the current state
        message = result.error
        if record.reason == REASON_TIMEOUT:
            message = f"{message}\n" + report.not_ready(self._inventory(), reconciler.why_not_ready)
        raise self._apply_failed(message, changed, deadline)

    def _diff(self, changed: bool) -> Dict[str, Any]:
        """The ``diff`` result in diff mode, when the run wrote something or found drift."""
        shown = changed or bool(self.writes.drifted())
        return {"diff": self.writes.diff(self.task.verbosity)} if self.task.diff and shown else {}

    def _apply_failed(self, message: str, changed: bool, deadline: float) -> ComponentError:
        """The failed apply's error. Issue 27 (C8, C15): the component's first apply (no record before this run)
        with no object of its set in the cluster removes what it created (``first_apply``) and says so. Once an
        object is in the cluster the record stays, its inventory and the error in its status, so that
        ``state: absent`` or the next run can finish."""
        own = self.task.namespace if self.record.createdNamespace else ""
        if not self.existed and first_apply.nothing_in_cluster(self.record.inventory, own):
            undo = first_apply.FirstApplyUndo(self.api, self.store, self.writes, deadline - time.monotonic())
            message += "\n" + undo.run(bool(own), Markers(self.task.annotation_prefix), hash_owner_id(self.owner_id))
            changed = changed or self.store.writes > 0  # it wrote (the record, a namespace), then undid
        return self.fail(message, changed, **self._diff(changed))

    def _ensure_namespace(self) -> bool:
        """The component's namespace, which holds its record, is created first when missing (unless the
        missing-namespaces policy is do-not-create). It is reported as created, also when it is one of the objects
        and the reconciler then only adds its markers (issue 25: it was reported as updated)."""
        policy = self.task.policies.get("missing_namespaces") or "create"
        created = self.store.ensure_namespace(create=policy != "do-not-create")
        if created is None:
            return False
        self.record.createdNamespace = True
        self.writes("created", f"Namespace {self.task.namespace}", None, created)
        return True

    def _remove_delete_hooks_left(self, reconciler: Reconciler, deadline: float) -> None:
        """A deletion that stopped half-way (``state: absent`` failed or timed out) may have left delete hooks; an
        apply removes them first, so the next deletion runs them again from the start."""
        record = self.record
        record.deletePhase = ""
        if record.deleteHooksInventory:
            self._run_step(DeleteStep(HOOKS_STEP, DELETE, hooks=True), reconciler, deadline, record_phase=False)

    def _placement(self) -> Dict[str, str]:
        return {"namespace": self.task.deploy_namespace, "name": self.task.deploy_name}

    # --- delete ------------------------------------------------------------------------------------------------

    def delete(self) -> Dict[str, Any]:
        """state=absent: the deletion gate, then the delete steps, then the record goes (reference 7.6, 3.4).

        A Helm chart's delete hooks (kept in the record by the last apply, as Helm keeps a release's hooks) run
        around the deletion of the objects: the ``pre-delete`` set is applied and waited for, the objects are
        deleted, the ``post-delete`` set is applied and waited for (which prunes the ``pre-delete`` hooks), then
        the hooks are deleted. The hooks have an inventory of their own in the record, written ahead like the
        objects', and the record names the step (``deletePhase``), so a run that stopped resumes where it was.

        The component's own namespace, when it is one of its objects or when the component created it, goes last:
        everything else is deleted while the record is kept in it, then the namespace (and the record with it).
        Check mode is one dry-run pass of every step, in the same order.
        """
        task, store = self.task, self.store
        loaded = store.load()
        if loaded is None:
            return self.result(False)
        self.record = record = loaded
        self.existed = True
        reconciler = self.reconciler(record.processingDigest)
        inventory = record.inventory
        try:
            allowed, why = reconciler.is_deletion_allowed(inventory)
        except KubeError as exc:
            if not exc.retriable or task.check_mode:
                raise
            allowed, why = True, ""  # transient (a type's storage still initialising): the loop checks again
        if not allowed:
            record.set_state(STATE_DELETING, REASON_DELETION_BLOCKED, why, _now())
            if not task.check_mode:
                store.save(record)
            raise self.fail(why, False)
        own = [i for i in inventory if (i.group, i.kind, i.name) == ("", "Namespace", task.namespace)]
        rest = [i for i in inventory if i not in own]
        if not task.check_mode:
            begin_deletion(record)
        deadline = time.monotonic() + task.timeout
        for step in self._delete_steps(inventory if task.check_mode else rest):
            if not self._run_step(step, reconciler, deadline):
                return self.result(True)  # wait=false: returned with the current state
        if task.check_mode:
            shown = {"diff": self.writes.diff(task.verbosity)} if task.diff else {}  # issue 27: what would go
            return self.result(True, plan=self.writes.plan(), **shown)
        # issue 25, C15: the namespaces the missing-namespaces policy created go too (bounded wait, the record kept)
        markers = reconciler.markers
        warnings, stuck = delete_created_namespaces(
            self.api,
            markers.created_selector(hash_owner_id(self.owner_id)),
            markers.owner_label,
            max(0.0, deadline - time.monotonic()),
        )
        if stuck:
            record.set_state(STATE_DELETING, REASON_NAMESPACE_STUCK, stuck, _now())
            store.save(record)
            raise self.fail(stuck, True)
        kept = ""
        if own:  # one of its objects: one delete step, then the bounded wait (issue 25); the record goes with it
            record.inventory = own
            stuck = delete_namespace_object(  # wait=false: the DELETE is sent, nothing waited for
                lambda: reconciler.delete(record.inventory) or not task.wait,
                self.api,
                task.namespace,
                max(0.0, deadline - time.monotonic()),
            )
        elif record.createdNamespace:
            kept, stuck = delete_own_namespace(self.api, store, max(0.0, deadline - time.monotonic()))
        if stuck:  # issue 25: a namespace that cannot finalise is no plain success
            store.delete()  # the record went with the namespace's content, or goes now
            record.set_state(STATE_DELETING, REASON_NAMESPACE_STUCK, stuck, _now())
            raise self.fail(stuck, True)
        store.delete()
        record.state = ""
        warnings += [kept] if kept else []
        extra: Dict[str, Any] = {"warnings": warnings} if warnings else {}
        if task.diff:
            extra["diff"] = self.writes.diff(task.verbosity)  # issue 27: what went, as an apply shows what changed
        return self.result(True, **extra)

    def _delete_steps(self, objects: List[InventoryItem]) -> List[DeleteStep]:
        """The steps of a deletion, from the one the record says a stopped run was in."""
        record = self.record
        hooks = record.deleteHooks
        if not hooks and not record.deleteHooksInventory:
            return [DeleteStep(OBJECTS_STEP, DELETE, objects)]
        steps = [
            DeleteStep(PRE_DELETE, APPLY_DELETE_HOOKS, objects=hooks.get(PRE_DELETE, []), hooks=True),
            DeleteStep(OBJECTS_STEP, DELETE, objects),
            DeleteStep(POST_DELETE, APPLY_DELETE_HOOKS, objects=hooks.get(POST_DELETE, []), hooks=True),
            DeleteStep(HOOKS_STEP, DELETE, hooks=True),
        ]
        names = [step.name for step in steps]
        return steps[names.index(record.deletePhase) :] if record.deletePhase in names else steps

    def _run_step(self, step: DeleteStep, reconciler: Reconciler, deadline: float, record_phase: bool = True) -> bool:
        """Run one delete step to its end (check mode: one dry-run pass); False when ``wait: false`` returned early.

        With delete hooks, the step's name is written to the record before it starts (``deletePhase``)."""
        task, record = self.task, self.record
        target = Target(step.operation, reconciler, step.objects or [], hooks=step.hooks)
        if task.check_mode:
            self._dry_run(target, step.inventory)
            return True
        if step.inventory is not None:
            record.inventory = step.inventory
        if record_phase and (record.deleteHooks or record.deleteHooksInventory):
            record.deletePhase = step.name
            self.store.save(record)
        result = self._run(target, deadline)
        if result.error is not None:
            where = f" (while {STEP_ACTIVITIES[step.name]})" if record.deleteHooks or step.hooks else ""
            raise self.fail(f"{result.error}{where}", True)
        return result.done

    def execute(self) -> Dict[str, Any]:
        """Run the task; errors of the layers below become a ComponentError (the module's one error root)."""
        try:
            self.connect()
            return self.delete() if self.task.state == "absent" else self.apply()
        except ComponentError as exc:
            if not exc.result:
                exc.result = self.result(False)
            raise
        except KubeError as exc:
            raise self.fail(str(exc), self.api.calls.writes > 0 if self._api is not None else False) from None
