# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Apply waves: ``apply`` brings the desired objects one step further (reference 3.3).

Every call is one step: it does what it safely can and returns False to be called again. The caller persists the
inventory (a list of ``InventoryItem``) between calls. When an apply adds items it returns before creating anything
(write-ahead), so a crash never leaves an untracked object behind (C8). Redundant items are pruned by the delete
waves (``delete_waves``) only after every apply wave is ready.

In a dry run (``ctx.dry_run``, check mode) one call goes through every wave: the same adoption checks, digests
and policies decide, every write is sent with ``dryRun=All`` (the server validates it, nothing is persisted), and
nothing waits for readiness.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import NAMESPACES, ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, Conflict
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import writer
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.adoption import check_adoption, read_new_objects
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.apply_object import apply_object
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.delete_waves import delete_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.digest import item_digest
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ObjectError, ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem, ObjectKey
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import ListKey, LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import DesiredObject, normalise_objects
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ordering import (
    NAMESPACE,
    STAGE_LATE,
    STAGE_MANAGED_INSTANCE,
    STAGE_REGULAR,
    apply_priority,
    apply_sort_key,
    apply_stage,
    holds_back_instances,
    is_managed_instance,
    is_type_definition,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.steps import (
    WorkingInventory,
    is_ours,
    owned_reader,
    prefetch,
    run_all,
    terminating,
)

_STAGE_NAMES = {STAGE_REGULAR: "", STAGE_LATE: ", APIServices", STAGE_MANAGED_INSTANCE: ", managed instances"}


def _validate_set(inv: WorkingInventory, desired_by_key: Dict[ObjectKey, DesiredObject]) -> None:
    """Instances after their types and namespace members after their namespace (reference 3.3 step 6)."""
    type_items = [item for item in inv.items if item.managedTypes]
    namespace_items = {item.name: item for item in inv.items if (item.group, item.kind) == NAMESPACE}
    live_phases = (c.PHASE_SCHEDULED_FOR_DELETION, c.PHASE_DELETING)
    for item in inv.items:
        parents: List[Tuple[str, InventoryItem]] = []
        for type_item in type_items:
            if type_item is item:
                continue
            if is_managed_instance(item.group, item.version, item.kind, type_item.managedTypes):
                parents.append(("type", type_item))
        if item.namespace and item.namespace in namespace_items:
            parents.append(("namespace", namespace_items[item.namespace]))
        for what, parent in parents:
            both_desired = item.key in desired_by_key and parent.key in desired_by_key
            if both_desired and (item.applyOrder < parent.applyOrder or item.deleteOrder > parent.deleteOrder):
                raise ValidationError(
                    f"{item.describe()} must have apply-order >= {parent.applyOrder} and delete-order <= "
                    f"{parent.deleteOrder} because its {what} {parent.describe()} is part of the set"
                )
            if parent.phase in live_phases and item.phase not in live_phases:
                raise ValidationError(
                    f"{parent.describe()} cannot be deleted while {item.describe()} is still part of the set; "
                    "remove both, or keep both"
                )


def _refresh_item(item: InventoryItem, desired: DesiredObject) -> None:
    item.group, item.version, item.kind = desired.group, desired.version, desired.kind
    item.namespace, item.name = desired.namespace, desired.name
    policies = desired.policies
    item.adoptionPolicy = policies.adoption_policy
    item.reconcilePolicy = policies.reconcile_policy
    item.updatePolicy = policies.update_policy
    item.deletePolicy = policies.delete_policy
    item.applyOrder = policies.apply_order
    item.deleteOrder = policies.delete_order
    item.managedTypes = list(desired.managed_types)


def _ensure_namespaces(ctx: EngineContext, desired: List[DesiredObject]) -> None:
    """Missing-namespaces policy Create: create referenced namespaces that are not part of the set (step 9)."""
    if ctx.effective_defaults.missing_namespaces_policy != c.MISSING_NAMESPACES_CREATE:
        return
    in_set = {d.name for d in desired if (d.group, d.kind) == NAMESPACE}
    wanted = sorted({d.namespace for d in desired if d.namespace and d.namespace not in in_set})

    def ensure(name: str) -> None:
        if ctx.namespace_known(name):
            return
        try:
            if ctx.api.get(NAMESPACES, "", name) is None:
                # issue 25, C15: labelled with the component that created it, so its deletion can remove it again
                labels = {ctx.markers.creator_label: ctx.hashed_owner_id}
                body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
                created = ctx.api.create(NAMESPACES, "", body)
                ctx.observe("created", f"Namespace {name}", None, created)
        except Conflict:
            pass
        except ApiError as exc:
            raise ObjectError(f"Namespace {name}", None, "create (missing-namespaces policy Create)", exc) from None
        ctx.remember_namespace(name)

    run_all(ctx, ensure, wanted)


def _complete_purges(ctx: EngineContext, inv: WorkingInventory) -> int:
    """ScheduledForCompletion -> DELETE -> Completing -> Completed (step 11). Returns the pending count."""
    todo = [i for i in inv.items if i.phase in (c.PHASE_SCHEDULED_FOR_COMPLETION, c.PHASE_COMPLETING)]
    if not todo or ctx.dry_run:
        return 0
    reader = owned_reader(ctx)

    def complete(item: InventoryItem) -> int:
        res = ctx.api.discovery.resource_any_version(item.group, item.kind, item.version)
        try:
            live = reader.get(res, item.namespace, item.name)
            if item.phase == c.PHASE_SCHEDULED_FOR_COMPLETION:
                if live is not None and res is not None and is_ours(ctx, live) and not terminating(live):
                    writer.delete(ctx.api, res, live)
                    ctx.observe("deleted", item.describe(), live, None)
                item.phase, item.status = c.PHASE_COMPLETING, c.STATUS_TERMINATING
                return 1
        except ApiError as exc:
            raise ObjectError(item.describe(), f"purge at apply wave {item.applyOrder}", "delete", exc) from None
        if live is None:
            item.phase, item.status = c.PHASE_COMPLETED, ""
            return 0
        return 1

    return sum(run_all(ctx, complete, todo))


def _waves(desired: Sequence[DesiredObject], managed: Dict[ObjectKey, bool]) -> List[List[DesiredObject]]:
    ordered = sorted(
        desired, key=lambda d: apply_sort_key(d.policies.apply_order, d.group, d.kind, managed[d.key], d.index)
    )
    waves: List[List[DesiredObject]] = []
    for d in ordered:
        if waves and waves[-1][0].policies.apply_order == d.policies.apply_order:
            waves[-1].append(d)
        else:
            waves.append([d])
    return waves


def _desired_set(objects: Sequence[Any], ctx: EngineContext) -> Tuple[List[DesiredObject], Dict[ObjectKey, str]]:
    """The normalised objects and their digests (steps 1 to 5). A run passes the same objects to every step and
    treats them as read-only (C2), so they are normalised and hashed once per run, not once per step; not cached
    while the API server does not know a type's scope yet (a type an APIService of the set will serve)."""
    cached = ctx.desired_cache
    if cached is not None and cached[0] is objects and cached[1] == (len(objects), ctx.component_digest):
        return cached[2], cached[3]
    desired = normalise_objects(objects, ctx.namespace, ctx.markers, ctx.effective_defaults, ctx.api.discovery.scope)
    digests = {d.key: item_digest(d.manifest, d.policies.reconcile_policy, ctx.component_digest) for d in desired}
    if all(d.namespaced is not None for d in desired):
        ctx.desired_cache = (objects, (len(objects), ctx.component_digest), desired, digests)
    return desired, digests


def apply(inventory: List[InventoryItem], objects: Sequence[Any], ctx: EngineContext) -> bool:
    """Apply the desired objects one step further; True when everything is applied, ready and pruned.

    ``inventory`` is updated in place (only when the step succeeds up to the inventory build; a validation or owner
    error leaves it unchanged). Persist it after every call.
    """
    api = ctx.api
    api.discovery.reset_misses()
    desired, digests = _desired_set(objects, ctx)
    resources: Dict[ObjectKey, Optional[ResourceInfo]] = {
        d.key: api.discovery.resource(d.group, d.version, d.kind) for d in desired
    }
    desired_by_key = {d.key: d for d in desired}
    inv = WorkingInventory([item.copy() for item in inventory])

    # Step 5: adoption checks for objects new to the inventory, then the new inventory.
    new = [d for d in desired if d.key not in inv.by_key]
    if new:
        live_new = read_new_objects(ctx, new, resources)
        for d in new:
            live = live_new.get(d.key)
            if live is not None:
                check_adoption(ctx, d, live)
        for d in new:
            inv.add(InventoryItem(group=d.group, version=d.version, kind=d.kind, name=d.name, namespace=d.namespace))
    for d in desired:
        item = inv.by_key[d.key]
        _refresh_item(item, d)
        if digests[d.key] != item.digest:
            item.digest = digests[d.key]
            item.phase, item.status = c.PHASE_SCHEDULED_FOR_APPLICATION, c.STATUS_IN_PROGRESS
    for item in inv.items:
        if item.key not in desired_by_key and item.digest != "":
            item.digest = ""
            item.phase, item.status = c.PHASE_SCHEDULED_FOR_DELETION, c.STATUS_TERMINATING
    _validate_set(inv, desired_by_key)
    inv.sort_for_deletion(ctx.additional_managed_types)
    inventory[:] = inv.items
    inv = WorkingInventory(inventory)
    if new and not ctx.dry_run:
        return False  # Step 8: write-ahead, persist before creating anything.

    _ensure_namespaces(ctx, desired)
    if _complete_purges(ctx, inv) > 0:
        return False
    types = inv.managed_types(ctx.additional_managed_types)
    managed = {
        d.key: is_managed_instance(d.group, d.version, d.kind, types) and not is_type_definition(d.group, d.kind)
        for d in desired
    }
    reader = owned_reader(ctx)
    # One LIST per type and namespace for the objects this step may look at.
    list_keys: List[ListKey] = []
    for d in desired:
        res = resources[d.key]
        if res is not None and inv.by_key[d.key].phase != c.PHASE_COMPLETED:
            list_keys.append((res, d.namespace if res.namespaced else ""))
    prefetch(ctx, reader, list_keys)
    waves = _waves(desired, managed)
    processed: List[DesiredObject] = []
    for number, wave in enumerate(waves):
        if not _apply_wave(ctx, reader, inv, wave, managed, resources) and not ctx.dry_run:
            return False
        processed.extend(wave)
        if ctx.dry_run:
            continue
        order = wave[0].policies.apply_order
        last = number == len(waves) - 1
        purged = 0
        for d in processed:
            item = inv.by_key[d.key]
            purge = d.policies.purge_order
            due = purge <= order or (last and purge != c.PURGE_ORDER_UNSET)
            if due and item.phase != c.PHASE_COMPLETED:
                item.phase = c.PHASE_SCHEDULED_FOR_COMPLETION
                purged += 1
        if purged:
            return False
    return delete_waves(ctx, inv, for_component_deletion=False)


def _apply_wave(
    ctx: EngineContext,
    reader: LiveReader,
    inv: WorkingInventory,
    wave: List[DesiredObject],
    managed: Dict[ObjectKey, bool],
    resources: Dict[ObjectKey, Optional[ResourceInfo]],
) -> bool:
    """One apply wave in its three sub-stages (regular, APIServices, managed instances); True when all are ready.

    Managed instances (custom resources of the set's own CRDs, additional managed types) wait until the regular
    objects of their wave are ready, except objects whose readiness only reports on pods that others create
    (PodDisruptionBudgets, HorizontalPodAutoscalers: ``ordering.holds_back_instances``): an operator may make
    those pods from the instances, so waiting for them first would deadlock. They still hold the wave itself.
    """
    order = wave[0].policies.apply_order
    unready = 0
    blocking = 0
    for stage in (STAGE_REGULAR, STAGE_LATE, STAGE_MANAGED_INSTANCE):
        members = [
            d
            for d in wave
            if apply_stage(d.group, d.kind, managed[d.key]) == stage and inv.by_key[d.key].phase != c.PHASE_COMPLETED
        ]
        if stage != STAGE_REGULAR and blocking > 0 and not ctx.dry_run:
            unready += len(members)  # deferred objects count as un-ready
            blocking += len(members)
            continue
        name = f"apply wave {order}{_STAGE_NAMES[stage]}"
        # Objects of one kind priority are independent: apply them concurrently; priorities in sequence, so a
        # Namespace is created before the objects in it, a CRD before RoleBindings, and so on (3.5).
        for priority in sorted({apply_priority(d.group, d.kind) for d in members}):
            batch = [d for d in members if apply_priority(d.group, d.kind) == priority]
            ready = run_all(
                ctx,
                lambda d, wave_name=name: (  # type: ignore[misc]
                    d,
                    apply_object(ctx, reader, d, inv.by_key[d.key], resources[d.key], wave_name),
                ),
                batch,
            )
            for d, is_ready in ready:
                if not is_ready:
                    unready += 1
                    blocking += 1 if holds_back_instances(d.group, d.kind) else 0
    return unready == 0
