# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What apply waves and delete waves share: live-object accessors, a bounded worker pool, the working inventory."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, TypeVar

from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem, ObjectKey, TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import ListKey, LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ordering import (
    delete_sort_key,
    is_managed_instance,
)

T = TypeVar("T")
R = TypeVar("R")


def meta_of(obj: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """``metadata`` of a live object (empty when absent)."""
    return dict((obj or {}).get("metadata") or {})


def labels_of(obj: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """Labels of a live object."""
    return dict(meta_of(obj).get("labels") or {})


def annotations_of(obj: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """Annotations of a live object."""
    return dict(meta_of(obj).get("annotations") or {})


def terminating(obj: Optional[Dict[str, Any]]) -> bool:
    """Has the object a deletionTimestamp?"""
    return bool(meta_of(obj).get("deletionTimestamp"))


def is_ours(ctx: EngineContext, live: Optional[Dict[str, Any]]) -> bool:
    """Does the live object carry this component's owner label?"""
    return labels_of(live).get(ctx.markers.owner_label) == ctx.hashed_owner_id


def owner_of(ctx: EngineContext, live: Optional[Dict[str, Any]]) -> str:
    """The readable owner id of a live object (its annotation, else its hashed label)."""
    return annotations_of(live).get(ctx.markers.owner_label) or labels_of(live).get(ctx.markers.owner_label, "")


def run_all(ctx: EngineContext, func: Callable[[T], R], inputs: Sequence[T]) -> List[R]:
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
        first = errors[0]
        if isinstance(first, EngineError):
            # every object that failed blocks, though the message tells the first failure (issue 25)
            named = (name for error in errors if isinstance(error, EngineError) for name in error.objects)
            first.objects = tuple(dict.fromkeys(named))
        raise first
    return results


def prefetch(ctx: EngineContext, reader: LiveReader, keys: Iterable[ListKey], unfiltered: bool = False) -> None:
    """One LIST per (type, namespace), concurrently."""
    unique = list(set(keys))
    if not unique:
        return
    with ThreadPoolExecutor(max_workers=max(1, min(ctx.max_workers, len(unique)))) as pool:
        reader.prefetch(unique, pool, unfiltered=unfiltered)


def owned_reader(ctx: EngineContext) -> LiveReader:
    """A per-step reader whose LISTs select this component's objects."""
    return LiveReader(ctx.api, ctx.markers.owned_selector(ctx.hashed_owner_id))


def item_resource(ctx: EngineContext, item: InventoryItem) -> Optional[ResourceInfo]:
    """The REST resource of an inventory item, whatever version is served now."""
    return ctx.api.discovery.resource_any_version(item.group, item.kind, item.version)


class WorkingInventory:
    """Index over a working copy of the inventory."""

    def __init__(self, items: List[InventoryItem]) -> None:
        self.items = items
        self.by_key: Dict[ObjectKey, InventoryItem] = {item.key: item for item in items}

    def add(self, item: InventoryItem) -> None:
        """Append a new item."""
        self.items.append(item)
        self.by_key[item.key] = item

    def drop(self, keys: Set[ObjectKey]) -> None:
        """Forget items (deleted or orphaned)."""
        self.items[:] = [item for item in self.items if item.key not in keys]
        for key in keys:
            self.by_key.pop(key, None)

    def managed_types(self, extra: Iterable[TypeInfo]) -> List[TypeInfo]:
        """Types defined by the inventory's CRDs and APIServices, plus the additional managed types."""
        types = [t for item in self.items for t in item.managedTypes]
        return [*types, *extra]

    def sort_for_deletion(self, extra: List[TypeInfo]) -> None:
        """Delete order: waves, managed instances first, kind priority, previous position (reference 3.5)."""
        types = self.managed_types(extra)
        position = {id(item): n for n, item in enumerate(self.items)}
        self.items.sort(
            key=lambda item: delete_sort_key(
                item.deleteOrder,
                item.group,
                item.kind,
                is_managed_instance(item.group, item.version, item.kind, types),
                position[id(item)],
            )
        )
