# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The apply engine: ``apply``, ``delete`` and ``is_deletion_allowed`` on an inventory (reference 3.3, 3.4, 7.6).

Every call is one step: it does what it safely can and returns False to be called again. The caller persists the
inventory (a list of ``InventoryItem``) between calls. When an apply adds items it returns before creating anything
(write-ahead), so a crash never leaves an untracked object behind (C8).

Use (a module would call ``run.run_until_done`` instead of looping itself)::

    api = KubeApi(Connection.from_kubeconfig(path))
    ctx = EngineContext(api=api, namespace="team-a", owner_id=component_owner_id(api, "team-a", "web"))
    inventory = inventory_from_list(stored)          # [] the first time
    while not apply(inventory, objects, ctx):        # or: delete(inventory, ctx) after is_deletion_allowed()
        store(inventory_to_list(inventory)); time.sleep(backoff)
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, TypeVar

from ansible_collections.nubes.cloud.plugins.module_utils.k8s import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.k8s import writer
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.context import EngineContext, format_time, parse_time
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.digest import item_digest
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import (
    ApiError,
    EngineError,
    MissingNamespaceError,
    OwnerConflictError,
    ValidationError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.inventory import InventoryItem, ObjectKey, TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.live import STORAGE_NOT_READY, ListKey, LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.normalize import DesiredObject, normalise_objects
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.ordering import (
    API_SERVICE,
    CRD,
    NAMESPACE,
    STAGE_LATE,
    STAGE_MANAGED_INSTANCE,
    STAGE_REGULAR,
    apply_priority,
    apply_sort_key,
    apply_stage,
    delete_sort_key,
    group_matches,
    is_managed_instance,
    is_type_definition,
    type_matches,
)
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.policies import orphans_on_apply, orphans_on_delete

T = TypeVar("T")
R = TypeVar("R")

_ADOPTION_LIST_THRESHOLD = 2  # new objects of one type/namespace from which one LIST beats GETs


def _meta(obj: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    return dict((obj or {}).get("metadata") or {})


def _labels(obj: Optional[Dict[str, Any]]) -> Dict[str, str]:
    return dict(_meta(obj).get("labels") or {})


def _annotations(obj: Optional[Dict[str, Any]]) -> Dict[str, str]:
    return dict(_meta(obj).get("annotations") or {})


def _terminating(obj: Optional[Dict[str, Any]]) -> bool:
    return bool(_meta(obj).get("deletionTimestamp"))


def _run_all(ctx: EngineContext, func: Callable[[T], R], inputs: Sequence[T]) -> List[R]:
    """Run ``func`` on independent inputs with a bounded pool; raise the first error after all finished."""
    if not inputs:
        return []
    if len(inputs) == 1 or ctx.max_workers <= 1:
        return [func(value) for value in inputs]
    results: List[R] = []
    errors: List[BaseException] = []
    with ThreadPoolExecutor(max_workers=min(ctx.max_workers, len(inputs))) as pool:
        futures = [pool.submit(func, value) for value in inputs]
        for future in futures:
            exc = future.exception()
            if exc is not None:
                errors.append(exc)
            else:
                results.append(future.result())
    if errors:
        raise errors[0]
    return results


def _prefetch(ctx: EngineContext, reader: LiveReader, keys: Iterable[ListKey], unfiltered: bool = False) -> None:
    unique = list(set(keys))
    if not unique:
        return
    with ThreadPoolExecutor(max_workers=max(1, min(ctx.max_workers, len(unique)))) as pool:
        reader.prefetch(unique, pool, unfiltered=unfiltered)


class _Inventory:
    """Index over a working copy of the inventory."""

    def __init__(self, items: List[InventoryItem]) -> None:
        self.items = items
        self.by_key: Dict[ObjectKey, InventoryItem] = {item.key: item for item in items}

    def add(self, item: InventoryItem) -> None:
        self.items.append(item)
        self.by_key[item.key] = item

    def drop(self, keys: Set[ObjectKey]) -> None:
        self.items[:] = [item for item in self.items if item.key not in keys]
        for key in keys:
            self.by_key.pop(key, None)

    def managed_types(self, extra: Iterable[TypeInfo]) -> List[TypeInfo]:
        types = [t for item in self.items for t in item.managedTypes]
        return [*types, *extra]


def _item_resource(ctx: EngineContext, item: InventoryItem) -> Optional[ResourceInfo]:
    return ctx.api.discovery.resource_any_version(item.group, item.kind, item.version)


def _is_ours(ctx: EngineContext, live: Optional[Dict[str, Any]]) -> bool:
    return _labels(live).get(ctx.markers.owner_label) == ctx.hashed_owner_id


# ---------------------------------------------------------------------------------------------------------------
# apply


def _check_adoption(ctx: EngineContext, desired: DesiredObject, live: Dict[str, Any]) -> None:
    """C15: adoption check for objects new to the inventory (reference 4, adoption-policy)."""
    policy = desired.policies.adoption_policy
    owner = _labels(live).get(ctx.markers.owner_label, "")
    if owner == ctx.hashed_owner_id:
        return  # ours already, e.g. after the inventory was lost
    if not owner:
        if policy in (c.ADOPTION_IF_UNOWNED, c.ADOPTION_ALWAYS):
            return
        raise OwnerConflictError(
            f"{desired.describe()} already exists and is not owned by any component; adoption policy is Never. "
            "Delete the object, or set the adoption-policy annotation to if-unowned to take it over"
        )
    if policy == c.ADOPTION_ALWAYS:
        return
    foreign = _annotations(live).get(ctx.markers.owner_label) or owner
    raise OwnerConflictError(
        f"owner conflict; object {desired.describe()} is owned by {foreign}. Remove it from one of the components, "
        "or set the adoption-policy annotation to always to take it over"
    )


def _read_new_objects(
    ctx: EngineContext, new: List[DesiredObject], resources: Dict[ObjectKey, Optional[ResourceInfo]]
) -> Dict[ObjectKey, Optional[Dict[str, Any]]]:
    """Live state of objects new to the inventory: one metadata LIST per type/namespace where there are several."""
    reader = LiveReader(ctx.api, ctx.markers.owned_selector(ctx.hashed_owner_id))
    counts: Dict[ListKey, int] = {}
    for desired in new:
        res = resources[desired.key]
        if res is not None:
            key = (res, desired.namespace if res.namespaced else "")
            counts[key] = counts.get(key, 0) + 1
    _prefetch(ctx, reader, [k for k, n in counts.items() if n >= _ADOPTION_LIST_THRESHOLD], unfiltered=True)

    def read(desired: DesiredObject) -> Tuple[ObjectKey, Optional[Dict[str, Any]]]:
        return desired.key, reader.get(resources[desired.key], desired.namespace, desired.name)

    return dict(_run_all(ctx, read, new))


def _validate_set(inv: _Inventory, desired_by_key: Dict[ObjectKey, DesiredObject]) -> None:
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


def _sort_for_deletion(inv: _Inventory, extra: List[TypeInfo]) -> None:
    types = inv.managed_types(extra)
    position = {id(item): n for n, item in enumerate(inv.items)}
    inv.items.sort(
        key=lambda item: delete_sort_key(
            item.deleteOrder,
            item.group,
            item.kind,
            is_managed_instance(item.group, item.version, item.kind, types),
            position[id(item)],
        )
    )


def _ensure_namespaces(ctx: EngineContext, desired: List[DesiredObject]) -> None:
    """Missing-namespaces policy Create: create referenced namespaces that are not part of the set (step 9)."""
    if ctx.effective_defaults.missing_namespaces_policy != c.MISSING_NAMESPACES_CREATE:
        return
    in_set = {d.name for d in desired if (d.group, d.kind) == NAMESPACE}
    wanted = sorted({d.namespace for d in desired if d.namespace and d.namespace not in in_set})
    res = ctx.api.discovery.resource("", "v1", "Namespace")
    if res is None:  # pragma: no cover - every API server serves namespaces
        raise EngineError("the API server does not serve v1 Namespaces")

    def ensure(name: str) -> None:
        if ctx.namespace_known(name):
            return
        if ctx.api.get(res, "", name) is None:
            try:
                ctx.api.create(res, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
            except EngineError as exc:
                if getattr(exc, "status", 0) != 409:
                    raise
        ctx.remember_namespace(name)

    _run_all(ctx, ensure, wanted)


def _reapply_due(ctx: EngineContext, item: InventoryItem, interval: float) -> bool:
    """C17: force a reapply when the object was never written by us or its reapply interval has passed."""
    if not item.lastAppliedAt:
        return True
    try:
        last = parse_time(item.lastAppliedAt)
    except ValueError:
        return True
    return (ctx.clock() - last).total_seconds() >= interval


def _apply_object(
    ctx: EngineContext, reader: LiveReader, desired: DesiredObject, item: InventoryItem, res: Optional[ResourceInfo]
) -> bool:
    """Create, update or check one object; True when it is ready (reference 3.3 step 12)."""
    if res is None:
        # The type is not served yet (a CRD of the set is not established): wait.
        ctx.api.discovery.invalidate(desired.group, desired.version)
        return False
    now = format_time(ctx.clock())
    never_written = item.lastAppliedAt is None and item.phase == c.PHASE_SCHEDULED_FOR_APPLICATION
    try:
        # An object we never wrote and that is not in the owner-label LIST is created right away (no GET): if it
        # exists after all, the create fails with a conflict and the normal path below reads it.
        live = reader.get(res, desired.namespace, desired.name, owned_only=never_written)
    except ApiError as exc:
        if exc.status in STORAGE_NOT_READY:
            return False  # the type's storage is still initialising: not ready yet
        raise
    if live is None:
        body = writer.desired_body(desired.manifest, item.digest, desired.group, desired.kind, ctx)
        try:
            writer.create(ctx.api, res, body, item.updatePolicy, ctx)
        except ApiError as exc:
            if exc.status == 404 and (exc.body.get("details") or {}).get("kind") == "namespaces":
                raise MissingNamespaceError(
                    f"cannot create {desired.describe()}: namespace {desired.namespace} does not exist and the "
                    "missing-namespaces policy is DoNotCreate; create the namespace, add it to the objects, or set "
                    "the policy to Create"
                ) from None
            if exc.status != 409 or not never_written:
                raise
            live = ctx.api.get(res, desired.namespace, desired.name)
            if live is None:
                raise
        else:
            item.phase = c.PHASE_CREATING
            item.lastAppliedAt = now
            return False
    live_digest = _annotations(live).get(ctx.markers.digest_annotation, "")
    both_once = live_digest == c.ONCE_DIGEST and item.digest == c.ONCE_DIGEST
    stale = live_digest != item.digest or _reapply_due(ctx, item, desired.policies.reapply_interval)
    if not _terminating(live) and stale and not both_once:
        body = writer.desired_body(desired.manifest, item.digest, desired.group, desired.kind, ctx)
        writer.update(ctx.api, res, body, live, item.updatePolicy, ctx)
        item.phase = c.PHASE_UPDATING
        item.lastAppliedAt = now
        return False
    status, _message = ctx.analyzer(live, desired.policies.status_hints)
    item.status = status
    if not _terminating(live) and status == c.STATUS_CURRENT:
        item.phase = c.PHASE_READY
        return True
    return False


def _complete_purges(ctx: EngineContext, inv: _Inventory) -> int:
    """ScheduledForCompletion -> DELETE -> Completing -> Completed (step 11). Returns the pending count."""
    todo = [i for i in inv.items if i.phase in (c.PHASE_SCHEDULED_FOR_COMPLETION, c.PHASE_COMPLETING)]
    if not todo:
        return 0
    reader = LiveReader(ctx.api, ctx.markers.owned_selector(ctx.hashed_owner_id))

    def complete(item: InventoryItem) -> int:
        res = _item_resource(ctx, item)
        live = reader.get(res, item.namespace, item.name)
        if item.phase == c.PHASE_SCHEDULED_FOR_COMPLETION:
            if live is not None and res is not None and _is_ours(ctx, live) and not _terminating(live):
                writer.delete(ctx.api, res, live)
            item.phase, item.status = c.PHASE_COMPLETING, c.STATUS_TERMINATING
            return 1
        if live is None:
            item.phase, item.status = c.PHASE_COMPLETED, ""
            return 0
        return 1

    return sum(_run_all(ctx, complete, todo))


def apply(inventory: List[InventoryItem], objects: Sequence[Any], ctx: EngineContext) -> bool:
    """Apply the desired objects one step further; True when everything is applied, ready and pruned.

    ``inventory`` is updated in place (only when the step succeeds up to the inventory build; a validation or owner
    error leaves it unchanged). Persist it after every call.
    """
    api = ctx.api
    api.discovery.reset_misses()
    desired = normalise_objects(objects, ctx.namespace, ctx.markers, ctx.effective_defaults, api.discovery.scope)
    resources: Dict[ObjectKey, Optional[ResourceInfo]] = {
        d.key: api.discovery.resource(d.group, d.version, d.kind) for d in desired
    }
    desired_by_key = {d.key: d for d in desired}
    inv = _Inventory(copy.deepcopy(list(inventory)))
    digests = {d.key: item_digest(d.manifest, d.policies.reconcile_policy, ctx.component_digest) for d in desired}

    # Step 5: adoption checks for objects new to the inventory, then the new inventory.
    new = [d for d in desired if d.key not in inv.by_key]
    if new:
        live_new = _read_new_objects(ctx, new, resources)
        for d in new:
            live = live_new.get(d.key)
            if live is not None:
                _check_adoption(ctx, d, live)
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
    _sort_for_deletion(inv, ctx.additional_managed_types)
    inventory[:] = inv.items
    inv = _Inventory(inventory)
    if new:
        return False  # Step 8: write-ahead, persist before creating anything.

    _ensure_namespaces(ctx, desired)
    if _complete_purges(ctx, inv) > 0:
        return False

    types = inv.managed_types(ctx.additional_managed_types)
    managed = {
        d.key: is_managed_instance(d.group, d.version, d.kind, types) and not is_type_definition(d.group, d.kind)
        for d in desired
    }
    ordered = sorted(
        desired, key=lambda d: apply_sort_key(d.policies.apply_order, d.group, d.kind, managed[d.key], d.index)
    )
    reader = LiveReader(api, ctx.markers.owned_selector(ctx.hashed_owner_id))
    waves: List[List[DesiredObject]] = []
    for d in ordered:
        if waves and waves[-1][0].policies.apply_order == d.policies.apply_order:
            waves[-1].append(d)
        else:
            waves.append([d])
    # One LIST per type and namespace for the objects this step may look at.
    list_keys: List[ListKey] = []
    for d in desired:
        res = resources[d.key]
        if res is not None and inv.by_key[d.key].phase != c.PHASE_COMPLETED:
            list_keys.append((res, d.namespace if res.namespaced else ""))
    _prefetch(ctx, reader, list_keys)
    processed: List[DesiredObject] = []
    for number, wave in enumerate(waves):
        unready = 0
        for stage in (STAGE_REGULAR, STAGE_LATE, STAGE_MANAGED_INSTANCE):
            members = [
                d
                for d in wave
                if apply_stage(d.group, d.kind, managed[d.key]) == stage
                and inv.by_key[d.key].phase != c.PHASE_COMPLETED
            ]
            if stage != STAGE_REGULAR and unready > 0:
                unready += len(members)  # deferred objects count as un-ready
                continue
            # Objects of one kind priority are independent: apply them concurrently; priorities in sequence, so a
            # Namespace is created before the objects in it, a CRD before RoleBindings, and so on (3.5).
            for priority in sorted({apply_priority(d.group, d.kind) for d in members}):
                batch = [d for d in members if apply_priority(d.group, d.kind) == priority]
                ready = _run_all(
                    ctx, lambda d: _apply_object(ctx, reader, d, inv.by_key[d.key], resources[d.key]), batch
                )
                unready += sum(1 for r in ready if not r)
        processed.extend(wave)
        if unready > 0:
            return False
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
    return _delete_waves(ctx, inv, for_component_deletion=False)


# ---------------------------------------------------------------------------------------------------------------
# deletion (redundant items on apply, everything on delete)

_DROP = "drop"
_PENDING = "pending"


def _delete_item(ctx: EngineContext, reader: LiveReader, item: InventoryItem, for_component_deletion: bool) -> str:
    res = _item_resource(ctx, item)
    is_type = is_type_definition(item.group, item.kind)
    # Absent and "not ours" both end in dropping the item (orphaning a foreign object needs no write unless it is
    # a type definition carrying our finalizer), so the owner-label LIST suffices for everything else.
    live = reader.get(res, item.namespace, item.name, owned_only=not is_type)
    if live is None or res is None:
        return _DROP
    if item.phase == c.PHASE_DELETING:
        if _terminating(live):
            if is_type and _is_ours(ctx, live):
                writer.ensure_type_released(ctx.api, res, live, ctx)
            return _PENDING
        if not _is_ours(ctx, live):
            return _DROP  # resurrected by someone else
        raise EngineError(
            f"{item.describe()} was deleted but still exists without a deletionTimestamp; check for controllers "
            "that recreate it, then re-run"
        )
    orphan = orphans_on_delete(item.deletePolicy) if for_component_deletion else orphans_on_apply(item.deletePolicy)
    if orphan or not _is_ours(ctx, live):
        # Orphan (policy) or auto-orphan (foreign owner): release our finalizer and forget the object.
        if is_type:
            writer.remove_finalizer(ctx.api, res, live, ctx.markers.finalizer)
        return _DROP
    if not _terminating(live):
        writer.delete(ctx.api, res, live)
    item.phase, item.status = c.PHASE_DELETING, c.STATUS_TERMINATING
    if is_type:
        refreshed = ctx.api.get(res, item.namespace, item.name)
        if refreshed is not None:
            writer.ensure_type_released(ctx.api, res, refreshed, ctx)
    return _PENDING


def _delete_waves(ctx: EngineContext, inv: _Inventory, for_component_deletion: bool) -> bool:
    """Delete waves in ascending delete-order; managed instances first; namespaces when empty (step 14, 3.4)."""
    if for_component_deletion:
        candidates = list(inv.items)
    else:
        candidates = [i for i in inv.items if i.phase in (c.PHASE_SCHEDULED_FOR_DELETION, c.PHASE_DELETING)]
    if not candidates:
        return True
    types = inv.managed_types(ctx.additional_managed_types)
    reader = LiveReader(ctx.api, ctx.markers.owned_selector(ctx.hashed_owner_id))
    resources = {item.key: _item_resource(ctx, item) for item in candidates}
    _prefetch(
        ctx,
        reader,
        [
            (res, item.namespace if res.namespaced else "")
            for item in candidates
            for res in [resources[item.key]]
            if res is not None
        ],
    )
    orders = sorted({item.deleteOrder for item in candidates})
    for order in orders:
        wave = [i for i in candidates if i.deleteOrder == order]
        instances = [
            i
            for i in wave
            if is_managed_instance(i.group, i.version, i.kind, types) and not is_type_definition(i.group, i.kind)
        ]
        others = [i for i in wave if i not in instances]
        pending = 0
        outcome = _run_all(ctx, lambda i: (i.key, _delete_item(ctx, reader, i, for_component_deletion)), instances)
        inv.drop({key for key, result in outcome if result == _DROP})
        pending += sum(1 for _key, result in outcome if result == _PENDING)
        ready_others: List[InventoryItem] = []
        for item in others:
            if is_type_definition(item.group, item.kind) and any(
                is_managed_instance(i.group, i.version, i.kind, item.managedTypes) for i in inv.items if i is not item
            ):
                pending += 1  # instances of this type are still being deleted
            elif (item.group, item.kind) == NAMESPACE and any(i.namespace == item.name for i in inv.items):
                pending += 1  # a namespace goes only when no inventory item lives in it
            else:
                ready_others.append(item)
        outcome = _run_all(ctx, lambda i: (i.key, _delete_item(ctx, reader, i, for_component_deletion)), ready_others)
        inv.drop({key for key, result in outcome if result == _DROP})
        pending += sum(1 for _key, result in outcome if result == _PENDING)
        if pending:
            return False
    return not (
        inv.items
        if for_component_deletion
        else [i for i in inv.items if i.phase in (c.PHASE_SCHEDULED_FOR_DELETION, c.PHASE_DELETING)]
    )


def delete(inventory: List[InventoryItem], ctx: EngineContext) -> bool:
    """Delete (or orphan) every inventory item one step further; True when the inventory is empty (reference 3.4).

    Call ``is_deletion_allowed`` first. Orphan and OrphanOnDelete items, and items whose live object is owned by
    someone else, are orphaned.
    """
    ctx.api.discovery.reset_misses()
    inv = _Inventory(inventory)
    _sort_for_deletion(inv, ctx.additional_managed_types)
    for item in inv.items:
        if item.phase != c.PHASE_DELETING:
            item.phase, item.status = c.PHASE_SCHEDULED_FOR_DELETION, c.STATUS_TERMINATING
    return _delete_waves(ctx, inv, for_component_deletion=True)


def _expand_type_patterns(ctx: EngineContext, patterns: List[TypeInfo]) -> List[ResourceInfo]:
    """Resources matching additional managed types (``*`` and ``*.suffix`` groups, ``*`` kinds) (reference 7.5)."""
    found: List[ResourceInfo] = []
    groups = ctx.api.discovery.group_versions()
    for group in groups:
        if not any(group_matches(p.group, group) for p in patterns):
            continue
        for res in ctx.api.discovery.resources_in_group(group):
            if any(type_matches(p, res.group, res.version, res.kind) for p in patterns) and res not in found:
                found.append(res)
    return found


def is_deletion_allowed(inventory: List[InventoryItem], ctx: EngineContext) -> Tuple[bool, str]:
    """May the component be deleted now? Foreign instances of managed types block it (reference 7.6, C16)."""
    foreign = ctx.markers.foreign_selector(ctx.hashed_owner_id)
    if ctx.additional_managed_types:
        for res in _expand_type_patterns(ctx, ctx.additional_managed_types):
            items = ctx.api.list(res, "", label_selector=foreign, limit=1, metadata_only=True)
            if items:
                meta = _meta(items[0])
                where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
                return False, (
                    f"Deletion blocked: found instance {res.kind} {where}{meta.get('name')} of managed type "
                    f"{res.kind}.{res.group} that is not owned by this component; delete such instances first"
                )
    if all(orphans_on_delete(item.deletePolicy) for item in inventory):
        return True, ""
    for item in inventory:
        if (item.group, item.kind) not in (CRD, API_SERVICE):
            continue
        type_res = _item_resource(ctx, item)
        live = ctx.api.get(type_res, "", item.name) if type_res is not None else None
        if live is None:
            continue
        instances = writer.find_instances(ctx.api, live, label_selector=foreign)
        if instances:
            return False, (
                f"Deletion blocked: {item.describe()} has instances not owned by this component "
                f"({', '.join(instances)}); delete them first"
            )
    return True, ""


__all__ = ["apply", "delete", "is_deletion_allowed"]
