# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One component task: render, then loop the engine (apply or delete) until Ready or the timeout, persisting the
record after every step; or, in check mode, plan with reads and server-side dry-run only."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import plan as planning
from ansible_collections.nubes.cloud.plugins.module_utils.component.connection import (
    ConnectionOptions,
    build_api,
    store_api,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import (
    CommandRunner,
    RenderInput,
    inline_definitions,
    render_files,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentRecord
from ansible_collections.nubes.cloud.plugins.module_utils.component.store import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.k8s import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.k8s import engine
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import Connection, KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.context import EngineContext, format_time, utc_now
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.digest import component_digest
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import ApiError
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.inventory import (
    InventoryItem,
    TypeInfo,
    inventory_from_list,
    inventory_to_list,
)
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.normalize import split_api_version
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.ownership import Markers, hash_owner_id, owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.policies import Defaults
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.readiness import analyze
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.run import ComponentStatus, run_until_done

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
NOT_READY_SHOWN = 20


class ComponentFailed(Exception):
    """The task fails; ``result`` holds what is known (status, summary)."""

    def __init__(self, message: str, result: Dict[str, Any]) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class ComponentTask:
    """The module's options, validated."""

    name: str
    namespace: str
    state: str = "present"
    spec: Dict[str, Any] = field(default_factory=dict)
    templates: Optional[Dict[str, str]] = None
    definitions: Any = None
    placement_namespace: str = ""
    placement_name: str = ""
    connection: ConnectionOptions = field(default_factory=ConnectionOptions)
    suspend: bool = False
    policies: Dict[str, str] = field(default_factory=dict)
    additional_managed_types: List[Dict[str, str]] = field(default_factory=list)
    timeout: float = 600.0
    reapply_interval: float = c.DEFAULT_REAPPLY_INTERVAL_SECONDS
    wait: bool = True
    annotation_prefix: str = c.DEFAULT_PREFIX
    check_mode: bool = False
    diff: bool = False
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
            "templates": hashlib.sha256(json.dumps(self.templates or {}, sort_keys=True).encode()).hexdigest(),
            "definitions": self.definitions,
            "placement": [self.deploy_namespace, self.deploy_name],
            "policies": self.policies,
            "types": self.additional_managed_types,
            "prefix": self.annotation_prefix,
        }
        return component_digest(self.spec, extra)


class _StopWaiting(Exception):
    """wait=false: a step changed nothing, return the current state."""


def _now() -> str:
    return format_time(utc_now())


def _writes(api: KubeApi) -> int:
    snapshot = api.calls.snapshot()
    return sum(snapshot.get(method, 0) for method in WRITE_METHODS)


def _cluster_uid(api: KubeApi) -> str:
    """kube-system UID through the un-impersonated identity (reference 7.1); the API host when that is denied."""
    conn = api.connection
    plain = KubeApi(Connection(conn.api_client, None, None, conn.request_timeout))
    try:
        return plain.cluster_uid()
    except ApiError as exc:
        if exc.status != 403:
            raise
        return "host-" + hashlib.sha256(conn.host.encode("utf-8")).hexdigest()[:16]


class ComponentRun:
    """Run one task; ``execute`` returns the result dict or raises ComponentFailed."""

    def __init__(self, task: ComponentTask, api: Optional[KubeApi] = None) -> None:
        self.task = task
        self.api = api or build_api(task.connection)
        self.markers = Markers(task.annotation_prefix)
        self.store = ComponentStore(store_api(self.api), task.namespace, task.name, task.annotation_prefix)
        self.owner_id = owner_id(_cluster_uid(self.api), task.namespace, task.name)
        self.store.owner_labels = {self.markers.owner_label: hash_owner_id(self.owner_id)}
        self.record = ComponentRecord()
        self.existed = False
        self.created: List[str] = []
        self.updated: List[str] = []
        self.deleted: List[str] = []
        self.orphaned: List[str] = []

    # --- shared ------------------------------------------------------------------------------------------------

    def context(self, digest: str) -> EngineContext:
        """Engine context for this component (C10, C15, C16, C17)."""
        task = self.task
        defaults = Defaults(
            adoption_policy=task.policies.get("adoption") or "",
            update_policy=task.policies.get("update") or "",
            delete_policy=task.policies.get("delete") or "",
            missing_namespaces_policy=task.policies.get("missing_namespaces") or "",
            reapply_interval=task.reapply_interval,
        )
        types = [
            TypeInfo(str(t.get("group") or ""), str(t.get("version") or "*"), str(t.get("kind") or "*"))
            for t in task.additional_managed_types
        ]
        return EngineContext(
            api=self.api,
            namespace=task.deploy_namespace,
            owner_id=self.owner_id,
            component_digest=digest,
            markers=self.markers,
            defaults=defaults,
            additional_managed_types=types,
        )

    def result(self, changed: bool, **extra: Any) -> Dict[str, Any]:
        """The module result: changed, status (C5) and what happened to which object."""
        data: Dict[str, Any] = {
            "changed": changed,
            "status": self.record.status(),
            "state": self.record.state or "Absent",
            "component": {
                "name": self.task.name,
                "namespace": self.task.namespace,
                "deployment_namespace": self.task.deploy_namespace,
                "deployment_name": self.task.deploy_name,
                "record": f"ConfigMap {self.task.namespace}/{self.store.object_name}",
            },
            "objects": {
                "created": self.created,
                "updated": self.updated,
                "deleted": self.deleted,
                "orphaned": self.orphaned,
            },
            "api_calls": self.api.calls.snapshot(),
        }
        data.update(extra)
        return data

    def _track(self, before: Mapping[tuple, InventoryItem], inventory: List[InventoryItem]) -> None:
        now_keys = {item.key: item for item in inventory}
        for item in now_keys.values():
            ref = item.describe()
            if item.phase == c.PHASE_CREATING and ref not in self.created:
                self.created.append(ref)
            elif item.phase == c.PHASE_UPDATING and ref not in self.updated and ref not in self.created:
                self.updated.append(ref)
        for key, item in before.items():
            if key not in now_keys:
                target = self.deleted if item.phase == c.PHASE_DELETING else self.orphaned
                if item.describe() not in target:
                    target.append(item.describe())

    def _run(self, operation: str, inventory: List[InventoryItem], ctx: EngineContext, objects: Any) -> Any:
        record, store, task = self.record, self.store, self.task
        last: Dict[str, Any] = {"items": {i.key: _copy_item(i) for i in inventory}, "changed": True}

        def persist(items: List[InventoryItem], status: ComponentStatus) -> None:
            listed = inventory_to_list(items)
            last["changed"] = listed != record.inventory
            self._track(last["items"], items)
            last["items"] = {i.key: _copy_item(i) for i in items}
            record.absorb(status, listed, _now())
            store.save(record)

        def sleep(seconds: float) -> None:
            if not task.wait and not last["changed"]:
                raise _StopWaiting()
            time.sleep(seconds)

        try:
            return run_until_done(
                operation,
                inventory,
                ctx,
                persist,
                objects=objects,
                timeout=task.timeout,
                status=record.component_status(),
                sleep=sleep,
            )
        except _StopWaiting:
            return None

    # --- apply -------------------------------------------------------------------------------------------------

    def render(self, digest_revision: int) -> List[Dict[str, Any]]:
        """The desired objects (C2: the spec is passed read-only; C4/C10: placement namespace and name)."""
        task = self.task
        if task.templates:
            return render_files(
                RenderInput(
                    files=task.templates,
                    spec=task.spec,
                    namespace=task.deploy_namespace,
                    name=task.deploy_name,
                    component_namespace=task.namespace,
                    component_name=task.name,
                    revision=digest_revision,
                    lookup=self._lookup,
                    lookup_list=self._lookup_list,
                    run_command=task.run_command,
                )
            )
        return inline_definitions(task.definitions if task.definitions is not None else [])

    def _lookup(self, api_version: str, kind: str, name: str, namespace: str) -> Optional[Dict[str, Any]]:
        group, version = split_api_version(api_version)
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return None
        return self.api.get(res, namespace if res.namespaced else "", name)

    def _lookup_list(self, api_version: str, kind: str, namespace: str, selector: str) -> List[Dict[str, Any]]:
        group, version = split_api_version(api_version)
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            return []
        return self.api.list(res, namespace if res.namespaced else "", label_selector=selector or None)

    def apply(self) -> Dict[str, Any]:
        """state=present."""
        task, record, store = self.task, self.record, self.store
        loaded = store.load()
        if loaded is not None:
            self.record = record = loaded
            self.existed = True
        now = _now()
        digest = task.digest()
        if self.existed and record.placement and record.placement != self._placement():
            raise ComponentFailed(
                f"component {task.namespace}/{task.name} was deployed to {record.placement}; the placement must not "
                "change after the first apply (C10). Delete the component first, then apply it with the new placement",
                self.result(False),
            )
        record.placement = self._placement()
        if record.processingDigest != digest:
            record.generation += 1
            record.processingSince = None
        if task.suspend:  # C13: Pending/Suspended, nothing applied
            record.set_state(c.STATE_PENDING, c.REASON_SUSPENDED, "Reconciliation is suspended (suspend: true)", now)
            record.observedGeneration, record.lastObservedAt = record.generation, now
            if self.existed and not task.check_mode:
                store.save(record)
            return self.result(False)
        if digest != record.lastProcessingDigest:
            record.revision += 1
            record.lastProcessingDigest = digest
        if record.processingDigest != digest:
            record.set_state(c.STATE_PROCESSING, c.REASON_RESTARTING, "Restarting with changed input", now)
        record.processingDigest = digest
        objects = self.render(record.revision)
        ctx = self.context(digest)
        inventory = inventory_from_list(record.inventory)
        plan: Optional[planning.Plan] = None
        if task.check_mode or task.diff:
            plan = planning.plan_apply(ctx, inventory, objects, task.diff)
        if task.check_mode and plan is not None:
            extra: Dict[str, Any] = {"plan": plan.summary()}
            if task.diff:
                extra["diff"] = plan.diff()
            return self.result(plan.changes, **extra)
        writes_before = _writes(self.api)
        store.ensure_namespace(create=(task.policies.get("missing_namespaces") or "create") != "do-not-create")
        outcome = self._run("apply", inventory, ctx, objects)
        changed = _writes(self.api) > writes_before
        extra = {"diff": plan.diff()} if plan is not None and changed else {}
        if outcome is None or outcome.done:
            return self.result(changed, **extra)
        message = outcome.error or record.state
        if record.conditions and record.conditions[0].get("reason") == c.REASON_TIMEOUT:
            message = f"{message}\nNot ready:\n" + "\n".join(self._not_ready(inventory, ctx))
        raise ComponentFailed(f"component {task.namespace}/{task.name}: {message}", self.result(changed, **extra))

    def _placement(self) -> Dict[str, str]:
        return {"namespace": self.task.deploy_namespace, "name": self.task.deploy_name}

    def _not_ready(self, inventory: List[InventoryItem], ctx: EngineContext) -> List[str]:
        lines: List[str] = []
        pending = [i for i in inventory if i.phase not in (c.PHASE_READY, c.PHASE_COMPLETED)]
        for item in pending[:NOT_READY_SHOWN]:
            res = ctx.api.discovery.resource_any_version(item.group, item.kind, item.version)
            live = ctx.api.get(res, item.namespace, item.name) if res is not None else None
            if live is None:
                why = "does not exist yet" if res is not None else "its type is not served by the API server"
            else:
                status, message = analyze(live)
                why = f"{status}: {message}"
            lines.append(f"- {item.describe()} (phase {item.phase}): {why}")
        if len(pending) > NOT_READY_SHOWN:
            lines.append(f"- ... and {len(pending) - NOT_READY_SHOWN} more")
        return lines

    # --- delete ------------------------------------------------------------------------------------------------

    def delete(self) -> Dict[str, Any]:
        """state=absent: deletion gate, then the delete loop, then the record goes (reference 7.6, 3.4)."""
        task, store = self.task, self.store
        loaded = store.load()
        if loaded is None:
            return self.result(False)
        self.record = record = loaded
        self.existed = True
        ctx = self.context(record.processingDigest)
        inventory = inventory_from_list(record.inventory)
        allowed, why = engine.is_deletion_allowed(inventory, ctx)
        if not allowed:
            now = _now()
            record.set_state(c.STATE_DELETING, c.REASON_DELETION_BLOCKED, why, now)
            if not task.check_mode:
                store.save(record)
            raise ComponentFailed(f"component {task.namespace}/{task.name}: {why}", self.result(False))
        if task.check_mode:
            plan = planning.plan_delete(inventory)
            return self.result(True, plan=plan.summary())
        record.processingDigest = ""  # cleared when deletion starts (reference 1.2)
        record.processingSince = None
        outcome = self._run("delete", inventory, ctx, None)
        if outcome is not None and outcome.done:
            store.delete()
            record.state = ""
            return self.result(True)
        if outcome is None:
            return self.result(True)
        raise ComponentFailed(
            f"component {task.namespace}/{task.name}: {outcome.error or record.state}", self.result(True)
        )

    def execute(self) -> Dict[str, Any]:
        """Run the task."""
        return self.delete() if self.task.state == "absent" else self.apply()


def _copy_item(item: InventoryItem) -> InventoryItem:
    return InventoryItem.from_dict(item.to_dict())
