# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Writes to dependents: create, the four update policies, delete, finalizer handling (reference 3.3, 3.4)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, Conflict
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError, FieldConflictError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import (
    apply_conflicts,
    conflict_message,
    foreign_managers,
    takeover_managed_fields,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import split_api_version
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ordering import API_SERVICE, CRD


def _metadata(obj: Mapping[str, Any]) -> Dict[str, Any]:
    return dict(obj.get("metadata") or {})


def desired_body(manifest: Mapping[str, Any], digest: str, group: str, kind: str, ctx: EngineContext) -> Dict[str, Any]:
    """The object as written: owner label and annotation, digest annotation, finalizer on type definitions (3.1).
    Only the metadata is copied: the rest (a CRD's schema) is shared with the desired object and never changed."""
    body: Dict[str, Any] = dict(manifest)
    metadata = dict(body.get("metadata") or {})
    body["metadata"] = metadata
    metadata["labels"] = {**(metadata.get("labels") or {}), ctx.markers.owner_label: ctx.hashed_owner_id}
    metadata["annotations"] = {
        **(metadata.get("annotations") or {}),
        ctx.markers.owner_label: ctx.owner_id,
        ctx.markers.digest_annotation: digest,
    }
    if (group, kind) in (CRD, API_SERVICE):
        finalizers = list(metadata.get("finalizers") or [])
        if ctx.markers.finalizer not in finalizers:
            finalizers.append(ctx.markers.finalizer)
        metadata["finalizers"] = finalizers
    return body


def create(
    api: KubeApi, res: ResourceInfo, body: Dict[str, Any], update_policy: str, ctx: EngineContext
) -> Dict[str, Any]:
    """Create an absent object; returns the object as written. SSA policies use an apply PATCH that fails if the
    object appeared meanwhile."""
    metadata = body["metadata"]
    namespace = str(metadata.get("namespace") or "")
    if update_policy in (c.UPDATE_SSA_MERGE, c.UPDATE_SSA_OVERRIDE) and ctx.ssa_create_with_precondition:
        guarded = dict(body)
        guarded["metadata"] = dict(metadata, resourceVersion="1")
        try:
            return api.server_side_apply(
                res, namespace, metadata["name"], guarded, ctx.markers.field_manager, force=True
            )
        except ApiError as exc:
            if exc.status != 409 or "resourceVersion" not in str(exc):
                raise
            # The API server refuses apply-create with a precondition: fall back to POST (same guarantee).
    return api.create(res, namespace, body, field_manager=ctx.markers.field_manager)


def update(
    api: KubeApi,
    res: ResourceInfo,
    body: Dict[str, Any],
    live: Mapping[str, Any],
    update_policy: str,
    ctx: EngineContext,
) -> Optional[Dict[str, Any]]:
    """Update an existing object according to its update policy (reference 3.3 step 12); returns the object as
    written (None for Recreate, which only deletes: the object is created again by a later step)."""
    metadata = body["metadata"]
    namespace = str(metadata.get("namespace") or "")
    name = str(metadata["name"])
    live_meta = _metadata(live)
    if update_policy == c.UPDATE_RECREATE:
        api.delete(res, namespace, name, resource_version=live_meta.get("resourceVersion"))
        return None
    if update_policy == c.UPDATE_REPLACE:
        replaced = dict(body)
        replaced["metadata"] = dict(metadata, resourceVersion=live_meta.get("resourceVersion"))
        finalizers: List[str] = list(live_meta.get("finalizers") or [])
        for finalizer in metadata.get("finalizers") or []:
            if finalizer not in finalizers:
                finalizers.append(finalizer)
        if finalizers:
            replaced["metadata"]["finalizers"] = finalizers
        return api.replace(res, namespace, name, replaced, field_manager=ctx.markers.field_manager)
    prefixes = ctx.reclaimed_managers if update_policy == c.UPDATE_SSA_OVERRIDE else []
    new_fields = takeover_managed_fields(
        live_meta.get("managedFields") or [], ctx.markers.field_manager, str(body.get("apiVersion")), prefixes
    )
    if new_fields is not None and not api.dry_run:
        api.json_patch(
            res,
            namespace,
            name,
            [
                {"op": "test", "path": "/metadata/resourceVersion", "value": live_meta.get("resourceVersion")},
                {"op": "replace", "path": "/metadata/managedFields", "value": new_fields},
            ],
        )
    # Issue 25, the conflict policy (C15 ssa-override): once the reclaimed managers' fields are folded into ours, an
    # object that another manager also writes is applied without force, so a field that manager holds is a conflict
    # that names it, not a silent takeover. ssa-merge keeps component-operator-runtime's forced apply.
    foreign = foreign_managers(live_meta.get("managedFields") or [], ctx.markers.field_manager, prefixes)
    force = update_policy != c.UPDATE_SSA_OVERRIDE or not foreign
    try:
        return api.server_side_apply(res, namespace, name, body, ctx.markers.field_manager, force=force)
    except Conflict as exc:
        conflicts = apply_conflicts(exc.body)
        if not conflicts:
            raise
        what = f"{body.get('kind')} {namespace + '/' if namespace else ''}{name}"
        raise FieldConflictError(conflict_message(what, conflicts)) from None


def delete(api: KubeApi, res: ResourceInfo, live: Mapping[str, Any]) -> None:
    """DELETE with background propagation and a resourceVersion precondition."""
    meta = _metadata(live)
    api.delete(res, str(meta.get("namespace") or ""), str(meta["name"]), resource_version=meta.get("resourceVersion"))


def remove_finalizer(api: KubeApi, res: ResourceInfo, live: Mapping[str, Any], finalizer: str) -> None:
    """Remove the engine's finalizer (3 attempts on conflicts)."""
    current: Optional[Mapping[str, Any]] = live
    for attempt in range(3):
        if current is None:
            return
        meta = _metadata(current)
        finalizers = list(meta.get("finalizers") or [])
        if finalizer not in finalizers:
            return
        remaining = [f for f in finalizers if f != finalizer]
        try:
            api.json_patch(
                res,
                str(meta.get("namespace") or ""),
                str(meta["name"]),
                [
                    {"op": "test", "path": "/metadata/finalizers", "value": finalizers},
                    {"op": "replace", "path": "/metadata/finalizers", "value": remaining},
                ],
                field_manager=finalizer.partition("/")[0],
            )
            return
        except ApiError as exc:
            if exc.status not in (409, 422) or attempt == 2:
                raise
            current = api.get(res, str(meta.get("namespace") or ""), str(meta["name"]))


def instance_resources(api: KubeApi, type_object: Mapping[str, Any]) -> List[ResourceInfo]:
    """Resources whose instances a CRD (first served version) or an APIService (all kinds of its version) defines."""
    group = split_api_version(str(type_object.get("apiVersion", "")))[0]
    spec = type_object.get("spec") or {}
    if (group, type_object.get("kind")) == CRD:
        served = [v for v in spec.get("versions") or [] if v.get("served")]
        if not served:
            return []
        names = spec.get("names") or {}
        return [
            ResourceInfo(
                str(spec.get("group")),
                str(served[0].get("name")),
                str(names.get("kind")),
                str(names.get("plural")),
                spec.get("scope") == "Namespaced",
            )
        ]
    api.discovery.invalidate(str(spec.get("group", "")), str(spec.get("version", "")))
    resources = api.discovery.resources_of(str(spec.get("group", "")), str(spec.get("version", "")))
    return list((resources or {}).values())


def find_instances(api: KubeApi, type_object: Mapping[str, Any], label_selector: Optional[str] = None) -> List[str]:
    """Names of (at most one per resource) existing instances of a managed type; empty when there are none."""
    found: List[str] = []
    for res in instance_resources(api, type_object):
        try:
            items = api.list(res, "", label_selector=label_selector, limit=1, metadata_only=True)
        except ApiError as exc:
            if exc.status in (404, 503):
                continue
            raise
        for item in items:
            meta = _metadata(item)
            where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
            found.append(f"{res.kind} {where}{meta.get('name')}")
    return found


def ensure_type_released(api: KubeApi, res: ResourceInfo, live: Mapping[str, Any], ctx: EngineContext) -> bool:
    """After DELETE of a CRD/APIService: remove our finalizer once no instances (of any owner) remain; True when
    it was removed now."""
    if ctx.markers.finalizer not in (_metadata(live).get("finalizers") or []):
        return False
    instances = find_instances(api, live)
    if instances:
        raise EngineError(
            f"cannot delete {live.get('kind')} {_metadata(live).get('name')}: existing instances found "
            f"({', '.join(instances)}); delete them first, or set the delete-policy annotation to orphan"
        )
    remove_finalizer(api, res, live, ctx.markers.finalizer)
    return True
