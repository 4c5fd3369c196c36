# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Live drift of one owned object on an apply step (issue 25): the ignored fields, the first look, the dry run.

The first look (``drift.differs``) costs no call. Only an object it flags is confirmed by a server-side apply dry run
(``dryRun=All``, the component's field manager, force) compared with the live object; those dry runs run inside the
wave's bounded pool (``EngineContext.max_workers``). Measured in ``bench/drift_bench.py``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import drift
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import DesiredObject


def ignored(ctx: EngineContext, desired: DesiredObject, live: Mapping[str, Any]) -> List[drift.Path]:
    """Paths of the live object that the component's rules and the object's annotations ignore."""
    pointers = list(desired.policies.drift_ignore_paths)
    managers = list(desired.policies.drift_ignore_managers)
    for rule in ctx.drift_ignore:
        if rule.selects(desired.group, desired.kind, desired.namespace, desired.name):
            pointers.extend(rule.paths)
            managers.extend(rule.managers)
    if not pointers and not managers:
        return []
    return drift.ignored_paths(live, pointers, managers)


def detect(
    ctx: EngineContext,
    res: ResourceInfo,
    body: Dict[str, Any],
    live: Dict[str, Any],
    paths: List[drift.Path],
    update_policy: str,
) -> Optional[Dict[str, Any]]:
    """The object as the server would make it when it differs from the live one outside ignored fields; else None
    (issue 25: replaces C17's forced re-apply in the default mode).

    Every update policy is confirmed by the same dry run: it shows what the declared fields would change. For
    Recreate, a dry run the server refuses as invalid (an immutable field, as in a Job's template) is drift: the
    real write deletes and creates the object anyway."""
    if not drift.differs(body, live, paths):
        return None
    metadata = body["metadata"]
    try:
        answer = ctx.dry_run_api.server_side_apply(
            res,
            str(metadata.get("namespace") or ""),
            str(metadata["name"]),
            body,
            ctx.markers.field_manager,
            force=True,
        )
    except ApiError as exc:
        if update_policy == c.UPDATE_RECREATE and exc.status == 422:
            return body
        raise
    if drift.comparable(answer, paths) == drift.comparable(live, paths):
        return None
    return answer
