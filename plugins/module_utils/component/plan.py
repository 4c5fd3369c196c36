# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check mode and diff mode: what an apply would create, update, adopt, prune or orphan, with server-side dry-run
results as the ``after`` of each changed object (Secret data masked). Nothing is written."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.k8s import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.k8s import writer
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import APPLY_PATCH
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.digest import item_digest
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import ApiError, OwnerConflictError
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.normalize import DesiredObject, normalise_objects
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.policies import orphans_on_apply, orphans_on_delete

MASK = "********"
NOISE_METADATA = ("managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink")


@dataclass
class Plan:
    """Object references per action, and the object-level diff of changed objects."""

    create: List[str] = field(default_factory=list)
    update: List[str] = field(default_factory=list)
    adopt: List[str] = field(default_factory=list)
    prune: List[str] = field(default_factory=list)
    orphan: List[str] = field(default_factory=list)
    before: Dict[str, Any] = field(default_factory=dict)
    after: Dict[str, Any] = field(default_factory=dict)

    @property
    def changes(self) -> bool:
        """Would anything be written?"""
        return bool(self.create or self.update or self.adopt or self.prune)

    def summary(self) -> Dict[str, List[str]]:
        """The action lists."""
        return {
            "create": self.create,
            "update": self.update,
            "adopt": self.adopt,
            "prune": self.prune,
            "orphan": self.orphan,
        }

    def diff(self) -> Dict[str, Any]:
        """Ansible's ``diff`` result: before/after keyed by object."""
        return {"before": self.before, "after": self.after}


def clean(obj: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """An object as shown in a diff: no server bookkeeping, no status, Secret values masked."""
    if obj is None:
        return None
    data: Dict[str, Any] = copy.deepcopy(dict(obj))
    metadata = data.get("metadata") or {}
    for key in NOISE_METADATA:
        metadata.pop(key, None)
    data.pop("status", None)
    if data.get("kind") == "Secret" and str(data.get("apiVersion")) == "v1":
        for key in ("data", "stringData"):
            if isinstance(data.get(key), dict):
                data[key] = {name: MASK for name in data[key]}
    return data


def mask_changed_secret(
    before: Optional[Dict[str, Any]], after: Optional[Dict[str, Any]], raw_before: Any, raw_after: Any
) -> None:
    """Mark masked Secret values that differ, so a diff still shows which keys changed."""
    if not before or not after or after.get("kind") != "Secret":
        return
    old = (raw_before or {}).get("data") or {}
    new = (raw_after or {}).get("data") or {}
    for name in after.get("data") or {}:
        if old.get(name) != new.get(name):
            after["data"][name] = MASK + " (changed)"


def _dry_run_apply(ctx: EngineContext, desired: DesiredObject, digest: str) -> Optional[Dict[str, Any]]:
    res = ctx.api.discovery.resource(desired.group, desired.version, desired.kind)
    if res is None:
        return None
    body = writer.desired_body(desired.manifest, digest, desired.group, desired.kind, ctx)
    query = {"fieldManager": ctx.markers.field_manager, "force": "true", "dryRun": "All"}
    try:
        result = ctx.api.connection.request(
            "PATCH", res.path(desired.namespace, desired.name), query=query, body=body, content_type=APPLY_PATCH
        )
    except ApiError as exc:
        if exc.status == 404:
            return body  # its namespace does not exist yet: it would be created first
        raise
    return dict(result)


def _owner(ctx: EngineContext, live: Mapping[str, Any]) -> str:
    return str(((live.get("metadata") or {}).get("labels") or {}).get(ctx.markers.owner_label, ""))


def _adoption_check(ctx: EngineContext, desired: DesiredObject, live: Mapping[str, Any]) -> None:
    owner = _owner(ctx, live)
    policy = desired.policies.adoption_policy
    if not owner and policy == c.ADOPTION_NEVER:
        raise OwnerConflictError(
            f"{desired.describe()} already exists and is not owned by any component; adoption policy is Never"
        )
    if owner and policy != c.ADOPTION_ALWAYS:
        foreign = ((live.get("metadata") or {}).get("annotations") or {}).get(ctx.markers.owner_label) or owner
        raise OwnerConflictError(f"owner conflict; object {desired.describe()} is owned by {foreign}")


def plan_apply(ctx: EngineContext, inventory: Sequence[InventoryItem], objects: Sequence[Any], with_diff: bool) -> Plan:
    """Compare desired objects with the live ones (reads and dry-runs only)."""
    api = ctx.api
    desired = normalise_objects(objects, ctx.namespace, ctx.markers, ctx.effective_defaults, api.discovery.scope)
    by_key = {item.key: item for item in inventory}
    result = Plan()
    for d in desired:
        ref = d.describe()
        digest = item_digest(d.manifest, d.policies.reconcile_policy, ctx.component_digest)
        res = api.discovery.resource(d.group, d.version, d.kind)
        live = api.get(res, d.namespace, d.name) if res is not None else None
        if live is None:
            result.create.append(ref)
        elif _owner(ctx, live) != ctx.hashed_owner_id:
            if d.key not in by_key:
                _adoption_check(ctx, d, live)
            result.adopt.append(ref)
        elif ((live.get("metadata") or {}).get("annotations") or {}).get(ctx.markers.digest_annotation) != digest:
            result.update.append(ref)
        else:
            continue
        if with_diff:
            after_raw = _dry_run_apply(ctx, d, digest)
            before, after = clean(live), clean(after_raw or d.manifest)
            mask_changed_secret(before, after, live, after_raw)
            result.before[ref], result.after[ref] = before, after
    wanted = {d.key for d in desired}
    for item in inventory:
        if item.key in wanted:
            continue
        target = result.orphan if orphans_on_apply(item.deletePolicy) else result.prune
        target.append(item.describe())
        if with_diff and target is result.prune:
            result.before[item.describe()], result.after[item.describe()] = {"exists": True}, None
    return result


def plan_delete(inventory: Sequence[InventoryItem]) -> Plan:
    """What deleting the component would delete and orphan."""
    result = Plan()
    for item in inventory:
        (result.orphan if orphans_on_delete(item.deletePolicy) else result.prune).append(item.describe())
    return result
