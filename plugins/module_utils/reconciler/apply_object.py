# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One object of an apply wave: create it, update it when it is stale or drifted, or check its readiness
(reference 3.3 step 12). ``apply_object`` returns True when the object is ready; in a dry run (check mode) every
write is sent with ``dryRun=All`` and nothing waits for readiness."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_time, parse_time
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, Conflict, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import drift, live_drift, writer
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import MissingNamespaceError, ObjectError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import STORAGE_NOT_READY, LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import DesiredObject
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.steps import annotations_of, is_ours, terminating


def reapply_due(ctx: EngineContext, item: InventoryItem, interval: float) -> bool:
    """C17: force a reapply when the object was never written by us or its reapply interval has passed."""
    if not item.lastAppliedAt:
        return True
    try:
        last = parse_time(item.lastAppliedAt)
    except ValueError:
        return True
    return (ctx.clock() - last).total_seconds() >= interval


def gone_after_creation(desired: DesiredObject, item: InventoryItem) -> bool:
    """issue 25: an object with a purge order (a Helm ``hook-succeeded`` hook) that we created and that is gone now
    was removed by someone else once it had done its work (a Job's ``ttlSecondsAfterFinished``, as ingress-nginx's
    admission Jobs): it counts as purged (Completed), as Helm runs a hook once per install or upgrade, and is not
    created again until its digest changes (an upgrade hook on the next component change, a changed hook)."""
    return desired.policies.purge_order != c.PURGE_ORDER_UNSET and item.phase in (c.PHASE_CREATING, c.PHASE_READY)


def _namespace_missing(exc: ApiError) -> bool:
    return isinstance(exc, NotFound) and (exc.body.get("details") or {}).get("kind") == "namespaces"


def apply_object(
    ctx: EngineContext,
    reader: LiveReader,
    desired: DesiredObject,
    item: InventoryItem,
    res: Optional[ResourceInfo],
    wave: str,
) -> bool:
    """Create, update or check one object; True when it is ready (reference 3.3 step 12)."""
    if res is None:
        if ctx.dry_run:
            # its CRD or APIService is part of the set and would be created first: the server cannot validate it
            ctx.observe("created", desired.describe(), None, desired.manifest)
            return True
        # The type is not served yet (a CRD of the set is not established): wait.
        ctx.api.discovery.invalidate(desired.group, desired.version)
        return False
    try:
        return _write_or_check(ctx, reader, desired, item, res)
    except ApiError as exc:
        if _namespace_missing(exc) and ctx.dry_run:
            # its namespace would be created first (dry-run creates persist nothing): not validated by the server
            ctx.observe("created", desired.describe(), None, desired.manifest)
            return True
        if _namespace_missing(exc):
            raise MissingNamespaceError(
                f"cannot create {desired.describe()}: namespace {desired.namespace} does not exist and the "
                "missing-namespaces policy is DoNotCreate; create the namespace, add it to the objects, or set "
                "the policy to Create",
                objects=[desired.describe()],
            ) from None
        action = "read" if exc.method == "GET" else f"write ({item.updatePolicy or 'create'})"
        raise ObjectError(desired.describe(), wave, action, exc) from None


def _write_or_check(
    ctx: EngineContext, reader: LiveReader, desired: DesiredObject, item: InventoryItem, res: ResourceInfo
) -> bool:
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
    if live is None and gone_after_creation(desired, item):
        item.phase, item.status = c.PHASE_COMPLETED, ""
        return True
    if live is None:
        body = writer.desired_body(desired.manifest, item.digest, desired.group, desired.kind, ctx)
        try:
            created = writer.create(ctx.api, res, body, item.updatePolicy, ctx)
        except Conflict:
            if not never_written:
                raise
            live = ctx.api.get(res, desired.namespace, desired.name)
            if live is None:
                raise
        else:
            ctx.observe("created", desired.describe(), None, created)
            item.phase = c.PHASE_CREATING
            item.lastAppliedAt = now
            return ctx.dry_run
    live = writer.drop_applied_finalizer(ctx.api, res, live, desired.group, desired.kind, ctx.markers.finalizer)
    if live is None:
        return False  # issue 25: a type deleted out-of-band went once its old finalizer was dropped: created again
    live_digest = annotations_of(live).get(ctx.markers.digest_annotation, "")
    both_once = live_digest == c.ONCE_DIGEST and item.digest == c.ONCE_DIGEST
    if not terminating(live) and not both_once:
        paths = live_drift.ignored(ctx, desired, live)
        body = drift.pin(
            writer.desired_body(desired.manifest, item.digest, desired.group, desired.kind, ctx), live, paths
        )
        if live_digest != item.digest:
            stale = True
        elif ctx.drift_mode == drift.MODE_DISABLED:
            # C17 as component-operator-runtime: the record's digest plus a forced re-apply after the interval
            stale = reapply_due(ctx, item, desired.policies.reapply_interval)
        else:
            # issue 25: live drift on every step; only objects that differ outside ignored fields are written
            drifted: Optional[Dict[str, Any]] = live_drift.detect(ctx, res, body, live, paths, item.updatePolicy)
            if drifted is not None:
                ctx.observe("drifted", desired.describe(), live, drifted)
            stale = drifted is not None and ctx.drift_mode == drift.MODE_ENABLED
        if stale and _update(ctx, desired, item, res, body, live, now):
            return ctx.dry_run
    status, _message = ctx.analyzer(live, desired.policies.status_hints)
    item.status = status
    if not terminating(live) and status == c.STATUS_CURRENT:
        item.phase = c.PHASE_READY
        return True
    return ctx.dry_run


def _update(
    ctx: EngineContext,
    desired: DesiredObject,
    item: InventoryItem,
    res: ResourceInfo,
    body: Dict[str, Any],
    live: Dict[str, Any],
    now: str,
) -> bool:
    """Write an existing object by its update policy; True when it changed. A write the server found a no-op (same
    resourceVersion, e.g. a forced re-apply of an unchanged object) is reported as unchanged (issue 25)."""
    written = writer.update(ctx.api, res, body, live, item.updatePolicy, ctx)
    if written is None and ctx.dry_run:
        # Recreate in check mode: the dry-run DELETE persists nothing, so the create that follows it in a real
        # run is never sent; the diff shows the object as it would be created again, not as removed.
        written = body
    same = written is not None and not ctx.dry_run and _version(written) == _version(live)
    if same:
        ctx.api.calls.mark_noop()
    ours = is_ours(ctx, live) or annotations_of(live).get(ctx.markers.digest_annotation) == item.digest
    ctx.observe("unchanged" if same else "updated" if ours else "adopted", desired.describe(), live, written)
    item.lastAppliedAt = now
    if same:
        return False
    item.phase = c.PHASE_UPDATING
    return True


def _version(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")
