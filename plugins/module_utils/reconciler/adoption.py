# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Objects new to the inventory: their live state, read in as few calls as possible, and the adoption check that
decides whether the component may take an existing one over (reference 3.3 step 5; C15). The check runs only for
objects new to the inventory."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ObjectError, OwnerConflictError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import ObjectKey
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import ListKey
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import DesiredObject
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.steps import (
    labels_of,
    owned_reader,
    owner_of,
    prefetch,
    run_all,
)

_ADOPTION_LIST_THRESHOLD = 2  # new objects of one type/namespace from which one LIST beats GETs


def check_adoption(ctx: EngineContext, desired: DesiredObject, live: Dict[str, Any]) -> None:
    """C15: adoption check for objects new to the inventory (reference 4, adoption-policy)."""
    policy = desired.policies.adoption_policy
    owner = labels_of(live).get(ctx.markers.owner_label, "")
    if owner == ctx.hashed_owner_id:
        return  # ours already, e.g. after the inventory was lost
    if not owner:
        if policy in (c.ADOPTION_IF_UNOWNED, c.ADOPTION_ALWAYS):
            return
        raise OwnerConflictError(
            f"{desired.describe()} already exists and is not owned by any component; adoption policy is Never. "
            "Delete the object, or set the adoption-policy annotation to if-unowned to take it over",
            objects=[desired.describe()],
        )
    if policy == c.ADOPTION_ALWAYS:
        return
    raise OwnerConflictError(
        f"owner conflict; object {desired.describe()} is owned by {owner_of(ctx, live)}. Remove it from one of the "
        "components, or set the adoption-policy annotation to always to take it over",
        objects=[desired.describe()],
    )


def read_new_objects(
    ctx: EngineContext, new: List[DesiredObject], resources: Dict[ObjectKey, Optional[ResourceInfo]]
) -> Dict[ObjectKey, Optional[Dict[str, Any]]]:
    """Live state of objects new to the inventory: one metadata LIST per type/namespace where there are several."""
    reader = owned_reader(ctx)
    counts: Dict[ListKey, int] = {}
    for desired in new:
        res = resources[desired.key]
        if res is not None:
            key = (res, desired.namespace if res.namespaced else "")
            counts[key] = counts.get(key, 0) + 1
    prefetch(ctx, reader, [k for k, n in counts.items() if n >= _ADOPTION_LIST_THRESHOLD], unfiltered=True)

    def read(desired: DesiredObject) -> Tuple[ObjectKey, Optional[Dict[str, Any]]]:
        try:
            return desired.key, reader.get(resources[desired.key], desired.namespace, desired.name)
        except ApiError as exc:
            raise ObjectError(desired.describe(), None, "read", exc) from None

    return dict(run_all(ctx, read, new))
