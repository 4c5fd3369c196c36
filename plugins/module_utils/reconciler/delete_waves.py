# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Delete waves: pruning redundant items after an apply, deleting a whole component, and the deletion gate
(reference 3.3 step 14, 3.4, 7.6).

Waves run in ascending delete-order; within a wave managed instances go first, then the other objects by kind
priority (the objects of one priority concurrently), CRDs and APIServices once their instances are gone, and a
namespace only when no inventory item lives in it. Orphan policies (the *last known*
policy of the item) and a foreign owner label orphan the object instead. In a dry run (check mode) every wave is
sent as ``dryRun=All`` DELETEs in one call, nothing waits.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import parse_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import writer
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError, ObjectError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem, TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ordering import (
    API_SERVICE,
    CRD,
    NAMESPACE,
    delete_priority,
    group_matches,
    is_managed_instance,
    is_type_definition,
    type_matches,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import orphans_on_apply, orphans_on_delete
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.steps import (
    WorkingInventory,
    is_ours,
    item_resource,
    meta_of,
    owned_reader,
    prefetch,
    run_all,
    terminating,
)

_DROP = "drop"
_PENDING = "pending"
NAMESPACE_FAILURE_GRACE_SECONDS = 10.0  # as component.namespace's wait for the namespaces the component created


def _delete_item(
    ctx: EngineContext, reader: LiveReader, item: InventoryItem, for_component_deletion: bool, wave: str
) -> str:
    try:
        return _delete_one(ctx, reader, item, for_component_deletion)
    except ApiError as exc:
        raise ObjectError(item.describe(), wave, "delete", exc) from None


def _delete_one(ctx: EngineContext, reader: LiveReader, item: InventoryItem, for_component_deletion: bool) -> str:
    res = item_resource(ctx, item)
    is_type = is_type_definition(item.group, item.kind)
    # Absent and "not ours" both end in dropping the item (orphaning a foreign object needs no write unless it is
    # a type definition carrying our finalizer), so the owner-label LIST suffices for everything else.
    live = reader.get(res, item.namespace, item.name, owned_only=not is_type)
    if live is None or res is None:
        return _DROP
    if item.phase == c.PHASE_DELETING:
        if terminating(live):
            if is_type and is_ours(ctx, live) and not ctx.dry_run:
                _release_type(ctx, res, live, item)
            if (item.group, item.kind) == NAMESPACE and not ctx.dry_run:
                _check_namespace_finalises(ctx, item, live)
            return _PENDING
        if not is_ours(ctx, live):
            return _DROP  # resurrected by someone else
        raise EngineError(
            f"{item.describe()} was deleted but still exists without a deletionTimestamp; check for controllers "
            "that recreate it, then re-run"
        )
    orphan = orphans_on_delete(item.deletePolicy) if for_component_deletion else orphans_on_apply(item.deletePolicy)
    if orphan and is_ours(ctx, live):
        # Orphan (policy, e.g. Helm's keep): kept on purpose, so no mark of the component stays on it (issue 25): its
        # finalizer and every label and annotation under the prefix go, and the object is forgotten.
        writer.release(ctx.api, res, live, ctx.markers)
        ctx.observe("orphaned", item.describe(), live, None)
        return _DROP
    if orphan or not is_ours(ctx, live):
        # Auto-orphan (foreign owner): the marks are the other owner's; release only our finalizer, forget it.
        if is_type:
            writer.remove_finalizer(ctx.api, res, live, ctx.markers.finalizer)
        ctx.observe("orphaned", item.describe(), live, None)
        return _DROP
    if not terminating(live):
        held = live
        if is_type and not ctx.dry_run:
            # issue 25: a type carries the engine's finalizer only from here until it is released below
            held = writer.hold_for_deletion(ctx.api, res, live, ctx.markers.finalizer)
        writer.delete(ctx.api, res, held)
        ctx.observe("deleted", item.describe(), live, None)
    if ctx.dry_run:
        return _DROP  # check mode: it would go; nothing waits
    item.phase, item.status = c.PHASE_DELETING, c.STATUS_TERMINATING
    if is_type:
        refreshed = ctx.api.get(res, item.namespace, item.name)
        if refreshed is not None:
            _release_type(ctx, res, refreshed, item)
    return _PENDING


def _check_namespace_finalises(ctx: EngineContext, item: InventoryItem, live: Dict[str, Any]) -> None:
    """Issue 25: a deleted Namespace of the set whose deletion fails (a ``NamespaceDeletion...Failure`` condition,
    e.g. ``NamespaceDeletionDiscoveryFailure`` while an aggregated API is down) for ``NAMESPACE_FAILURE_GRACE_SECONDS``
    by the condition's own ``lastTransitionTime`` ends the deletion with the namespace's conditions, which also say
    what is left in it, instead of a wait to the timeout. A failure that clears within the grace (an API that was
    starting) is waited for."""
    conditions = [cond for cond in (live.get("status") or {}).get("conditions") or [] if isinstance(cond, dict)]
    failing = [
        cond for cond in conditions if str(cond.get("type", "")).endswith("Failure") and cond.get("status") == "True"
    ]
    if not failing:
        return
    try:
        since = min(parse_time(str(cond.get("lastTransitionTime"))) for cond in failing)
    except ValueError:
        return  # no usable time: the timeout bounds the wait
    if (ctx.clock() - since).total_seconds() < NAMESPACE_FAILURE_GRACE_SECONDS:
        return
    said = "; ".join(
        f"{cond.get('type')}: {cond.get('message') or cond.get('reason') or ''}".rstrip(": ")
        for cond in conditions
        if cond.get("status") == "True"
    )
    raise EngineError(
        f"{item.describe()} was deleted but cannot finalise: {said}. Fix what the condition names (a "
        "NamespaceDeletionDiscoveryFailure: the unavailable APIService, see `kubectl get apiservices`); the namespace "
        f"then finishes by itself (`kubectl get namespace {item.name} -o yaml`)"
    )


def _release_type(ctx: EngineContext, res: ResourceInfo, live: Dict[str, Any], item: InventoryItem) -> None:
    if writer.ensure_type_released(ctx.api, res, live, ctx):
        ctx.observe("released", item.describe(), live, None)


def _remover(
    ctx: EngineContext, reader: LiveReader, for_component_deletion: bool, wave: str
) -> Callable[[InventoryItem], Tuple[Any, str]]:
    def remove(item: InventoryItem) -> Tuple[Any, str]:
        return item.key, _delete_item(ctx, reader, item, for_component_deletion, wave)

    return remove


def _in_priority_order(
    ctx: EngineContext, remove: Callable[[InventoryItem], Tuple[Any, str]], items: List[InventoryItem]
) -> List[Tuple[Any, str]]:
    """Kind priorities in sequence (3.5: CRDs, then most kinds, then Services, ConfigMaps and Secrets, then
    namespaces, ...), the objects of one priority concurrently."""
    outcome: List[Tuple[Any, str]] = []
    for priority in sorted({delete_priority(i.group, i.kind) for i in items}):
        outcome += run_all(ctx, remove, [i for i in items if delete_priority(i.group, i.kind) == priority])
    return outcome


def _delete_by_priority(
    ctx: EngineContext, remove: Callable[[InventoryItem], Tuple[Any, str]], items: List[InventoryItem]
) -> List[Tuple[Any, str]]:
    """Delete the objects of a wave that are free to go; ``(key, drop or pending)`` for each.

    issue 25: the type definitions (CRDs and APIServices, delete priority -1) go alongside the other kinds, not
    before them. Nothing else in the wave waits for a type to be gone (its instances went first), and a type's
    step takes several calls (DELETE, a re-read of a possibly huge CRD, the instance check, the finalizer release,
    each retried on 429), which held every Deployment, Service and RBAC object of the wave. The other kinds keep
    their priorities in sequence. A dry run (check mode) keeps the reference's one sequence.
    """
    types = [i for i in items if is_type_definition(i.group, i.kind)]
    if ctx.dry_run or not types or len(types) == len(items):
        return _in_priority_order(ctx, remove, items)
    rest = [i for i in items if i not in types]
    with ThreadPoolExecutor(max_workers=1) as side:
        released = side.submit(run_all, ctx, remove, types)
        outcome = _in_priority_order(ctx, remove, rest)
        return released.result() + outcome


def delete_waves(ctx: EngineContext, inv: WorkingInventory, for_component_deletion: bool) -> bool:
    """Delete waves in ascending delete-order; managed instances first; namespaces when empty (step 14, 3.4)."""
    if for_component_deletion:
        candidates = list(inv.items)
    else:
        candidates = [i for i in inv.items if i.phase in (c.PHASE_SCHEDULED_FOR_DELETION, c.PHASE_DELETING)]
    if not candidates:
        return True
    types = inv.managed_types(ctx.additional_managed_types)
    reader = owned_reader(ctx)
    resources = {item.key: item_resource(ctx, item) for item in candidates}
    prefetch(
        ctx,
        reader,
        [
            (res, item.namespace if res.namespaced else "")
            for item in candidates
            for res in [resources[item.key]]
            if res is not None
        ],
    )
    for order in sorted({item.deleteOrder for item in candidates}):
        wave_name = f"delete wave {order}"
        wave = [i for i in candidates if i.deleteOrder == order]
        instances = [
            i
            for i in wave
            if is_managed_instance(i.group, i.version, i.kind, types) and not is_type_definition(i.group, i.kind)
        ]
        others = [i for i in wave if i not in instances]
        pending = 0

        remove = _remover(ctx, reader, for_component_deletion, wave_name)
        outcome = run_all(ctx, remove, instances)
        inv.drop({key for key, result in outcome if result == _DROP})
        pending += sum(1 for _key, result in outcome if result == _PENDING)
        ready_others: List[InventoryItem] = []
        for item in others:
            if ctx.dry_run:
                ready_others.append(item)
            elif is_type_definition(item.group, item.kind) and any(
                is_managed_instance(i.group, i.version, i.kind, item.managedTypes) for i in inv.items if i is not item
            ):
                pending += 1  # instances of this type are still being deleted
            elif (item.group, item.kind) == NAMESPACE and any(i.namespace == item.name for i in inv.items):
                pending += 1  # a namespace goes only when no inventory item lives in it
            else:
                ready_others.append(item)
        outcome = _delete_by_priority(ctx, remove, ready_others)
        inv.drop({key for key, result in outcome if result == _DROP})
        pending += sum(1 for _key, result in outcome if result == _PENDING)
        if pending and not ctx.dry_run:
            return False
    if ctx.dry_run:
        return True
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
    inv = WorkingInventory(inventory)
    inv.sort_for_deletion(ctx.additional_managed_types)
    for item in inv.items:
        if item.phase != c.PHASE_DELETING:
            item.phase, item.status = c.PHASE_SCHEDULED_FOR_DELETION, c.STATUS_TERMINATING
    return delete_waves(ctx, inv, for_component_deletion=True)


def _expand_type_patterns(ctx: EngineContext, patterns: List[TypeInfo]) -> List[ResourceInfo]:
    """Resources matching additional managed types (``*`` and ``*.suffix`` groups, ``*`` kinds) (reference 7.5)."""
    found: List[ResourceInfo] = []
    for group in ctx.api.discovery.group_versions():
        if not any(group_matches(p.group, group) for p in patterns):
            continue
        for res in ctx.api.discovery.resources_in_group(group):
            if any(type_matches(p, res.group, res.version, res.kind) for p in patterns) and res not in found:
                found.append(res)
    return found


def is_deletion_allowed(inventory: List[InventoryItem], ctx: EngineContext) -> Tuple[bool, str]:
    """May the component be deleted now? Foreign instances of managed types block it (reference 7.6, C16).

    Every read honours 429/Retry-After (kube.client), so a type whose storage is still initialising right after
    its CRD was created does not fail the gate.
    """
    foreign = ctx.markers.foreign_selector(ctx.hashed_owner_id)
    if ctx.additional_managed_types:
        for res in _expand_type_patterns(ctx, ctx.additional_managed_types):
            items = ctx.api.list(res, "", label_selector=foreign, limit=1, metadata_only=True)
            if items:
                found = meta_of(items[0])
                where = f"{found.get('namespace')}/" if found.get("namespace") else ""
                return False, (
                    f"Deletion blocked: found instance {res.kind} {where}{found.get('name')} of managed type "
                    f"{res.kind}.{res.group} that is not owned by this component; delete such instances first"
                )
    if all(orphans_on_delete(item.deletePolicy) for item in inventory):
        return True, ""
    for item in inventory:
        if (item.group, item.kind) not in (CRD, API_SERVICE):
            continue
        type_res = item_resource(ctx, item)
        live: Optional[Dict[str, Any]] = ctx.api.get(type_res, "", item.name) if type_res is not None else None
        if live is None:
            continue
        instances = writer.find_instances(ctx.api, live, label_selector=foreign)
        if instances:
            return False, (
                f"Deletion blocked: {item.describe()} has instances not owned by this component "
                f"({', '.join(instances)}); delete them first"
            )
    return True, ""
