# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One component task: render its source, then loop the reconciler (apply or delete) until Ready or the timeout,
persisting the record after every step. A Helm chart's delete hooks run in the deletion as sets of their own,
through the same reconciler (``ComponentRun.delete``). Check mode is the same reconciler run once with a dry-run
client: every write is sent with ``dryRun=All`` (kubernetes.core's ``_ensure_dry_run``), so one copy of each rule
decides.

``ComponentRun.execute`` is the boundary where errors of the layers below (``kube.errors.KubeError``) become the
module's one error root, :class:`~.errors.ComponentError`, with the status known so far.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import report
from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
from ansible_collections.nubes.cloud.plugins.module_utils.component.loop import (
    APPLY,
    APPLY_DELETE_HOOKS,
    DELETE,
    RunResult,
    run_until_done,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import inline_definitions
from ansible_collections.nubes.cloud.plugins.module_utils.component.namespace import (
    delete_created_namespaces,
    delete_namespace_object,
    delete_own_namespace,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderInput
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import (
    DELETE_PHASES,
    render_delete_hooks,
    render_source,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import (
    REASON_DELETION_BLOCKED,
    REASON_NAMESPACE_STUCK,
    REASON_RESTARTING,
    REASON_SUSPENDED,
    REASON_TIMEOUT,
    STATE_DELETING,
    STATE_PENDING,
    STATE_PROCESSING,
    ComponentRecord,
    ComponentStatus,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import ConnectionOptions, connect
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Forbidden, KubeError, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.constants import DEFAULT_PREFIX
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.digest import component_digest
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_DISABLED, MODE_ENABLED, MODE_WARN
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import (
    InventoryItem,
    inventory_from_list,
    inventory_to_list,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers, hash_owner_id, owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler, describe_pending

DEFAULT_REAPPLY_INTERVAL_SECONDS = 3600.0
BLOCKING_SHOWN = 10


@dataclass
class ComponentTask:
    """The module's options, validated."""

    name: str
    namespace: str
    state: str = "present"
    spec: Dict[str, Any] = field(default_factory=dict)
    files: Optional[Dict[str, str]] = None
    source_kind: str = "templates"
    definitions: Any = None
    placement_namespace: str = ""
    placement_name: str = ""
    connection: ConnectionOptions = field(default_factory=ConnectionOptions)
    suspend: bool = False
    policies: Dict[str, str] = field(default_factory=dict)
    additional_managed_types: List[Dict[str, str]] = field(default_factory=list)
    health_rules: List[Dict[str, Any]] = field(default_factory=list)
    reclaim_field_managers: Optional[List[str]] = None
    timeout: float = 600.0
    reapply_interval: float = DEFAULT_REAPPLY_INTERVAL_SECONDS
    drift_mode: str = MODE_ENABLED  # issue 25: enabled, warn, disabled
    drift_ignore: List[Dict[str, Any]] = field(default_factory=list)
    wait: bool = True
    annotation_prefix: str = DEFAULT_PREFIX
    check_mode: bool = False
    diff: bool = False
    verbosity: int = 0
    run_command: Optional[CommandRunner] = None

    @property
    def deploy_namespace(self) -> str:
        """C10: the placement namespace, else the component's."""
        return self.placement_namespace or self.namespace

    @property
    def deploy_name(self) -> str:
        """C10: the placement name, else the component's."""
        return self.placement_name or self.name

    def digest(self) -> str:
        """Component digest over everything that shapes the objects (reference 5.1)."""
        extra = {
            "templates": hashlib.sha256(json.dumps(self.files or {}, sort_keys=True).encode()).hexdigest(),
            "source_kind": self.source_kind if self.files is not None else "",
            "definitions": self.definitions,
            "placement": [self.deploy_namespace, self.deploy_name],
            "policies": self.policies,
            "types": self.additional_managed_types,
            "prefix": self.annotation_prefix,
        }
        return component_digest(self.spec, extra)


class _StopWaiting(Exception):
    """wait=false: a step changed nothing, return the current state."""


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
    hooks'). ``name`` is what the record's ``deletePhase`` says while it runs."""

    name: str
    operation: str
    inventory: List[InventoryItem]
    objects: Optional[List[Dict[str, Any]]] = None
    hooks: bool = False  # the inventory is the hooks' (record.deleteHooksInventory)


def _now() -> str:
    return format_time()


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
        self.record = ComponentRecord()
        self.existed = False
        markers = Markers(task.annotation_prefix)
        self.writes = report.Writes(hidden=(markers.digest_annotation, markers.owner_label))
        self.inventory: List[InventoryItem] = []
        self.failed = False
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
            pending = describe_pending(self.inventory)
            data["summary"] = report.inventory_summary(
                self.inventory, [i.describe() for i in pending["blocking"][:BLOCKING_SHOWN]], len(pending["waiting"])
            )
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

    def fail(self, message: str, changed: bool, **extra: Any) -> ComponentError:
        """The task's failure, with the result known so far."""
        self.failed = True
        return ComponentError(
            f"component {self.task.namespace}/{self.task.name}: {message}", self.result(changed, **extra)
        )

    def _persist(
        self, last: Dict[str, Any], deleting: bool, hooks: bool
    ) -> Callable[[List[InventoryItem], ComponentStatus], None]:
        record, store = self.record, self.store

        def persist(items: List[InventoryItem], status: ComponentStatus) -> None:
            listed = inventory_to_list(items)
            if hooks:  # the delete hooks' own inventory (C8: write-ahead as the objects')
                last["changed"] = listed != record.deleteHooksInventory
                record.deleteHooksInventory = listed
                record.absorb(status, record.inventory, _now())
            else:
                last["changed"] = listed != record.inventory
                record.absorb(status, listed, _now())
            if last.get("gone"):
                return  # the record went with the component's own namespace: nothing left to write into
            try:
                store.save(record)
            except NotFound:
                if not deleting:
                    raise
                last["gone"] = True  # deleting: the namespace holding the record is being deleted

        return persist

    def _loop(
        self,
        operation: str,
        inventory: List[InventoryItem],
        reconciler: Reconciler,
        objects: Any,
        deadline: float,
        hooks: bool = False,
    ) -> Optional[RunResult]:
        """Loop the reconciler until done; None when ``wait: false`` and a step changed nothing."""
        task = self.task
        self.inventory = inventory
        last: Dict[str, Any] = {"changed": True}

        def sleep(seconds: float) -> None:
            if not task.wait and not last["changed"]:
                raise _StopWaiting()
            time.sleep(seconds)

        try:
            return run_until_done(
                operation,
                inventory,
                reconciler,
                self._persist(last, operation != APPLY, hooks),
                objects=objects,
                timeout=max(0.0, deadline - time.monotonic()),
                status=self.record.component_status(),
                sleep=sleep,
            )
        except _StopWaiting:
            return None

    # --- apply -------------------------------------------------------------------------------------------------

    def _render_input(self, revision: int) -> RenderInput:
        task = self.task
        return RenderInput(
            files=task.files or {},
            spec=task.spec,
            namespace=task.deploy_namespace,
            name=task.deploy_name,
            component_namespace=task.namespace,
            component_name=task.name,
            revision=revision,
            lookup=self._lookup,
            lookup_list=self._lookup_list,
            run_command=task.run_command,
            annotation_prefix=task.annotation_prefix,
        )

    def render(self, revision: int) -> List[Dict[str, Any]]:
        """The desired objects (C2: the spec is passed read-only; C4/C10: placement namespace and name)."""
        task = self.task
        if task.files is not None:
            return render_source(task.source_kind, task.files, self._render_input(revision))
        return inline_definitions(task.definitions if task.definitions is not None else [])

    def delete_hooks(self, revision: int) -> Dict[str, List[Dict[str, Any]]]:
        """The source's delete-phase sets (a Helm chart's ``pre-delete``/``post-delete`` hooks), {} for the others."""
        task = self.task
        if task.files is None:
            return {}
        return render_delete_hooks(task.source_kind, task.files, self._render_input(revision))

    def _lookup(self, api_version: str, kind: str, name: str, namespace: str) -> Optional[Dict[str, Any]]:
        group, _sep, version = api_version.rpartition("/")
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return None
        return self.api.get(res, namespace if res.namespaced else "", name)

    def _lookup_list(self, api_version: str, kind: str, namespace: str, selector: str) -> List[Dict[str, Any]]:
        group, _sep, version = api_version.rpartition("/")
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return []
        return self.api.list(res, namespace if res.namespaced else "", label_selector=selector or None)

    def apply(self) -> Dict[str, Any]:
        """state=present."""
        task, store = self.task, self.store
        loaded = store.load()
        if loaded is not None:
            self.record = loaded
            self.existed = True
        record = self.record
        now = _now()
        digest = task.digest()
        if self.existed and record.placement and record.placement != self._placement():
            raise self.fail(
                f"it was deployed to {record.placement}; the placement must not change after the first apply (C10). "
                "Delete the component first, then apply it with the new placement",
                False,
            )
        record.placement = self._placement()
        if record.processingDigest != digest:
            record.generation += 1
            record.processingSince = None
        if task.suspend:  # C13: Pending/Suspended, nothing applied
            record.set_state(STATE_PENDING, REASON_SUSPENDED, "Reconciliation is suspended (suspend: true)", now)
            record.observedGeneration, record.lastObservedAt = record.generation, now
            if self.existed and not task.check_mode:
                store.save(record)
            return self.result(False)
        if digest != record.lastProcessingDigest:
            record.revision += 1
            record.lastProcessingDigest = digest
        if record.processingDigest != digest:
            record.set_state(STATE_PROCESSING, REASON_RESTARTING, "Restarting with changed input", now)
        record.processingDigest = digest
        objects = self.render(record.revision)
        # kept for state=absent, as Helm keeps a release's hooks: a deletion runs the hooks of the last apply
        record.deleteHooks = self.delete_hooks(record.revision)
        reconciler = self.reconciler(digest)
        deadline = time.monotonic() + task.timeout
        self._remove_delete_hooks_left(reconciler, deadline)
        self.inventory = inventory = inventory_from_list(record.inventory)
        if task.check_mode:
            reconciler.apply(inventory, objects)  # one dry-run pass through every wave
            extra: Dict[str, Any] = {"plan": self.writes.plan()}
            if task.diff:
                extra["diff"] = self.writes.diff(task.verbosity)
            return self.result(self.api.calls.writes > 0, **extra)
        if store.ensure_namespace(create=(task.policies.get("missing_namespaces") or "create") != "do-not-create"):
            record.createdNamespace = True
        writes_before = self.api.calls.changes
        outcome = self._loop(APPLY, inventory, reconciler, objects, deadline)
        changed = self.api.calls.changes > writes_before  # issue 25: a no-op forced re-apply is no change
        shown = changed or bool(self.writes.drifted())
        extra = {"diff": self.writes.diff(task.verbosity)} if task.diff and shown else {}
        if outcome is None or outcome.done:
            return self.result(changed, **extra)
        message = outcome.error or record.state
        if record.conditions and record.conditions[0].get("reason") == REASON_TIMEOUT:
            message = f"{message}\n" + self._not_ready(inventory, reconciler)
        raise self.fail(message, changed, **extra)

    def _remove_delete_hooks_left(self, reconciler: Reconciler, deadline: float) -> None:
        """A deletion that stopped half-way (``state: absent`` failed or timed out) may have left delete hooks; an
        apply removes them first, so the next deletion runs them again from the start."""
        record = self.record
        record.deletePhase = ""
        if record.deleteHooksInventory:
            self._run_step(
                DeleteStep(HOOKS_STEP, DELETE, inventory_from_list(record.deleteHooksInventory), hooks=True),
                reconciler,
                deadline,
                record_phase=False,
            )

    def _placement(self) -> Dict[str, str]:
        return {"namespace": self.task.deploy_namespace, "name": self.task.deploy_name}

    def _not_ready(self, inventory: List[InventoryItem], reconciler: Reconciler) -> str:
        """The objects that block first (written, waiting for readiness), then how many wait behind them."""
        pending = describe_pending(inventory)
        blocking, waiting = pending["blocking"], pending["waiting"]
        lines = ["Blocking (not ready):"]
        for item in blocking[:BLOCKING_SHOWN]:
            lines.append(
                f"- {item.describe()} (apply wave {item.applyOrder}, phase {item.phase}): "
                f"{reconciler.why_not_ready(item)}"
            )
        if len(blocking) > BLOCKING_SHOWN:
            lines.append(f"- ... and {len(blocking) - BLOCKING_SHOWN} more")
        if waiting:
            lines.append(
                f"{len(waiting)} more object(s) wait behind them (later stages or waves), e.g. "
                f"{', '.join(i.describe() for i in waiting[:3])}"
            )
        return "\n".join(lines)

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
        self.inventory = inventory = inventory_from_list(record.inventory)
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
            record.processingDigest = ""  # cleared when deletion starts (reference 1.2)
            record.processingSince = None
        deadline = time.monotonic() + task.timeout
        for step in self._delete_steps(inventory if task.check_mode else rest):
            if not self._run_step(step, reconciler, deadline):
                return self.result(True)  # wait=false: returned with the current state
        if task.check_mode:
            return self.result(True, plan=self.writes.plan())
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
            self.inventory = own
            stuck = delete_namespace_object(  # wait=false: the DELETE is sent, nothing waited for
                lambda: reconciler.delete(own) or not task.wait,
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
        return self.result(True, **({"warnings": warnings} if warnings else {}))

    def _delete_steps(self, objects: List[InventoryItem]) -> List[DeleteStep]:
        """The steps of a deletion, from the one the record says a stopped run was in."""
        record = self.record
        hooks = record.deleteHooks
        hook_inventory = inventory_from_list(record.deleteHooksInventory)
        if not hooks and not hook_inventory:
            return [DeleteStep(OBJECTS_STEP, DELETE, objects)]
        steps = [
            DeleteStep(PRE_DELETE, APPLY_DELETE_HOOKS, hook_inventory, hooks.get(PRE_DELETE, []), hooks=True),
            DeleteStep(OBJECTS_STEP, DELETE, objects),
            DeleteStep(POST_DELETE, APPLY_DELETE_HOOKS, hook_inventory, hooks.get(POST_DELETE, []), hooks=True),
            DeleteStep(HOOKS_STEP, DELETE, hook_inventory, hooks=True),
        ]
        names = [step.name for step in steps]
        return steps[names.index(record.deletePhase) :] if record.deletePhase in names else steps

    def _run_step(self, step: DeleteStep, reconciler: Reconciler, deadline: float, record_phase: bool = True) -> bool:
        """Run one delete step to its end (check mode: one dry-run pass); False when ``wait: false`` returned early.

        With delete hooks, the step's name is written to the record before it starts (``deletePhase``)."""
        task, record = self.task, self.record
        self.inventory = step.inventory
        if task.check_mode:
            if step.operation == DELETE:
                reconciler.delete(step.inventory)
            else:
                reconciler.apply(step.inventory, step.objects or [])
            return True
        if record_phase and (record.deleteHooks or record.deleteHooksInventory):
            record.deletePhase = step.name
            self.store.save(record)
        outcome = self._loop(step.operation, step.inventory, reconciler, step.objects, deadline, hooks=step.hooks)
        if outcome is None:
            return False
        if not outcome.done:
            where = f" (while {STEP_ACTIVITIES[step.name]})" if record.deleteHooks or step.hooks else ""
            raise self.fail(f"{outcome.error or record.state}{where}", True)
        return True

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
