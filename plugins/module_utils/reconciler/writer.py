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
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers


def _metadata(obj: Mapping[str, Any]) -> Dict[str, Any]:
    return dict(obj.get("metadata") or {})


def desired_body(manifest: Mapping[str, Any], digest: str, group: str, kind: str, ctx: EngineContext) -> Dict[str, Any]:
    """The object as written: owner label and annotation, digest annotation (3.1). Only the metadata is copied: the
    rest (a CRD's schema) is shared with the desired object and never changed.

    Issue 25: type definitions (CRDs, APIServices) no longer get the engine's finalizer when applied (reference 3.1
    adds it). component-operator-runtime is a controller that is always running, so its finalizer on a type is
    removed by its next reconcile; an Ansible run ends, and a finalizer it leaves can only be removed by a later run
    of the same component. Once the record was gone (its namespace deleted with kubectl), every ``kubectl delete
    crd`` of the component's CRDs stayed ``Terminating`` until the finalizer was removed by hand. It never protected
    the instances either: the apiextensions cleanup deletes them regardless of other finalizers. The engine holds a
    type with its finalizer only while it deletes the type itself (``hold_for_deletion``), and drops one a
    component applied before (``drop_applied_finalizer``)."""
    del group, kind  # every kind is written the same way
    body: Dict[str, Any] = dict(manifest)
    metadata = dict(body.get("metadata") or {})
    body["metadata"] = metadata
    metadata["labels"] = {**(metadata.get("labels") or {}), ctx.markers.owner_label: ctx.hashed_owner_id}
    metadata["annotations"] = {
        **(metadata.get("annotations") or {}),
        ctx.markers.owner_label: ctx.owner_id,
        ctx.markers.digest_annotation: digest,
    }
    return body


def hold_for_deletion(api: KubeApi, res: ResourceInfo, live: Mapping[str, Any], finalizer: str) -> Dict[str, Any]:
    """Before the engine DELETEs a type definition of its component: add its finalizer, so the type stays (as
    ``Terminating``) until the engine has checked that no instances are left and releases it in the same run
    (``ensure_type_released``; reference 3.3, 7.6). Returns the object as patched (its resourceVersion is the
    DELETE's precondition)."""
    current: Mapping[str, Any] = live
    for attempt in range(3):
        meta = _metadata(current)
        namespace, name = str(meta.get("namespace") or ""), str(meta["name"])
        finalizers = list(meta.get("finalizers") or [])
        if finalizer in finalizers:
            return dict(current)
        try:
            return api.json_patch(
                res,
                namespace,
                name,
                [
                    {"op": "test", "path": "/metadata/resourceVersion", "value": meta.get("resourceVersion")},
                    {"op": "add", "path": "/metadata/finalizers", "value": [*finalizers, finalizer]},
                ],
                field_manager=finalizer.partition("/")[0],
            )
        except ApiError as exc:
            fresh = api.get(res, namespace, name) if exc.status in (409, 422) and attempt < 2 else None
            if fresh is None:
                raise
            current = fresh
    return dict(current)  # pragma: no cover - the loop returns or raises


def drop_applied_finalizer(
    api: KubeApi, res: ResourceInfo, live: Dict[str, Any], group: str, kind: str, finalizer: str
) -> Optional[Dict[str, Any]]:
    """Issue 25: a type definition that still carries the finalizer a component applied before (see
    ``desired_body``) loses it on the next apply, also while it is being deleted out-of-band (then the deletion
    completes). Returns the live object, read again when it was patched (None when it is gone now)."""
    if (group, kind) not in (CRD, API_SERVICE) or finalizer not in (_metadata(live).get("finalizers") or []):
        return live
    if api.dry_run:
        return live  # check mode: the write that would drop it is not sent
    remove_finalizer(api, res, live, finalizer)
    meta = _metadata(live)
    return api.get(res, str(meta.get("namespace") or ""), str(meta["name"]))


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


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def release(api: KubeApi, res: ResourceInfo, live: Mapping[str, Any], markers: Markers) -> bool:
    """Orphaning by policy (issue 25): remove every mark of the component from an object it keeps on purpose (Helm's
    ``keep``, delete policy orphan): its finalizer and every label and annotation under the engine's prefix (the
    owner label, the owner and digest annotations, the policy annotations), in one JSON patch (3 attempts on
    conflicts). Left on, they named a component whose record is gone, blocked a later component's
    ``if-unowned`` adoption as an owner conflict, and matched the owner's selectors. True when a patch was sent."""
    current: Optional[Mapping[str, Any]] = live
    for attempt in range(3):
        if current is None:
            return False
        meta = _metadata(current)
        ops: List[Dict[str, Any]] = []
        finalizers = list(meta.get("finalizers") or [])
        if markers.finalizer in finalizers:
            remaining = [f for f in finalizers if f != markers.finalizer]
            ops += [
                {"op": "test", "path": "/metadata/finalizers", "value": finalizers},
                {"op": "replace", "path": "/metadata/finalizers", "value": remaining},
            ]
        for where in ("labels", "annotations"):
            for key in sorted(meta.get(where) or {}):
                if key.startswith(markers.prefix + "/"):
                    ops.append({"op": "remove", "path": f"/metadata/{where}/{_pointer_token(key)}"})
        if not ops:
            return False
        namespace, name = str(meta.get("namespace") or ""), str(meta["name"])
        try:
            api.json_patch(res, namespace, name, ops, field_manager=markers.field_manager)
            return True
        except ApiError as exc:
            if exc.status not in (409, 422) or attempt == 2:
                raise
            current = api.get(res, namespace, name)
    return False  # pragma: no cover - the loop returns or raises


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
