# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A rendered Helm chart as the engine's object sets: hooks become waves (component-runtime.md 2.3, issue 17).

Everything is said with the engine's per-object annotations (C15), so the engine needs nothing Helm-specific:

============================================  ==============================================================
chart part                                    annotations ``<prefix>/...``
============================================  ==============================================================
objects of ``crds/``                          ``apply-order: -202`` (before every hook wave), ``delete-policy``
                                              ``orphan`` unless the source's CRD delete policy says otherwise
regular objects                               none: wave 0
``pre-install`` (also with ``post-install``)  ``apply-order: weight-101`` (-201..-1), ``reconcile-policy: once``
``post-install``                              ``apply-order: weight+101`` (1..201), ``reconcile-policy: once``
``pre-upgrade`` / ``post-upgrade``            same orders from revision 2 on, ``reconcile-policy:
                                              on-object-or-component-change``; only-upgrade hooks are left
                                              out of the first apply (revision 1)
``before-hook-creation`` (the default)        ``update-policy: recreate``: a changed hook is deleted and
                                              created again, so a Job runs again
``hook-succeeded``                            ``purge-order``: -1 (pre hooks), 201 (post hooks, and hooks
                                              that are both): deleted once the waves up to it are through
``helm.sh/resource-policy: keep``             ``delete-policy: orphan``
``pre-delete`` / ``post-delete``              not in the apply set: :func:`delete_phase_set` gives each
                                              phase's set, waves by weight
============================================  ==============================================================

The orders are component-operator-runtime's; the wave numbers leave the main objects in wave 0. Charts may not set
``<prefix>/`` annotations themselves (as in component-operator-runtime): the chart's hooks say what Helm means.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import (
    BEFORE_HOOK_CREATION,
    DEFAULT_CRDS_DELETE_POLICY,
    DELETE_PHASE_HOOKS,
    HOOK_SUCCEEDED,
    POST_INSTALL,
    POST_UPGRADE,
    PRE_INSTALL,
    PRE_UPGRADE,
    RESOURCE_POLICY_ANNOTATION,
    ChartRender,
    HelmError,
    Hook,
    Manifest,
    canonical_crds_delete_policy,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c

PRE_HOOK_OFFSET = -101  # pre hooks: weight -100..100 -> waves -201..-1
POST_HOOK_OFFSET = 101  # post hooks: weight -100..100 -> waves 1..201
CRDS_APPLY_ORDER = -202  # crds/ before the first pre-hook wave, as Helm installs them before any hook
# hook-succeeded: the engine deletes an object at the end of the first wave numbered at least its purge order
PRE_HOOK_PURGE_ORDER = -1  # pre hooks: after wave -1 or, when there is none, after the main wave
POST_HOOK_PURGE_ORDER = 201  # post hooks and pre+post hooks: after the last post-hook wave
DELETE_PHASE_PURGE_ORDER = 100  # in a delete phase set: after its last wave (weights end at 100)
KEEP = "keep"


def apply_set(
    render: ChartRender, prefix: str, revision: int, crds_delete_policy: str = DEFAULT_CRDS_DELETE_POLICY
) -> List[Dict[str, Any]]:
    """The objects to apply: CRDs of ``crds/``, regular objects and install/upgrade hooks, annotated for the engine.

    ``revision`` is the component's revision (1 = install, as ``.Release.IsInstall``); ``crds_delete_policy`` is a
    delete policy (``orphan``, ``delete``, ``orphan-on-apply``, ``orphan-on-delete``) or "" for the component's.
    """
    crds_policy = canonical_crds_delete_policy(crds_delete_policy)
    install = revision <= 1
    objects: List[Dict[str, Any]] = []
    for manifest in render.crds:
        extra = {c.ANN_APPLY_ORDER: str(CRDS_APPLY_ORDER)}
        if crds_policy:
            extra[c.ANN_DELETE_POLICY] = crds_policy
        objects.append(_annotated(manifest, prefix, extra))
    for manifest in render.objects:
        objects.append(_annotated(manifest, prefix, {}))
    for hook in render.hooks:
        extra_or_none = _apply_hook_annotations(hook, install)
        if extra_or_none is not None:
            objects.append(_annotated(hook, prefix, extra_or_none))
    return objects


def delete_phase_set(render: ChartRender, phase: str, prefix: str) -> List[Dict[str, Any]]:
    """The hooks of one delete phase (``pre-delete`` or ``post-delete``) as an object set of its own.

    Applied as a set of their own (waves = weights, ascending as Helm runs them), before respectively after the
    component's objects are deleted; ``hook-succeeded`` hooks are removed after the last wave, the others when the
    phase set is deleted.
    """
    if phase not in DELETE_PHASE_HOOKS:
        raise ValueError(f"phase must be one of {', '.join(DELETE_PHASE_HOOKS)}, not {phase!r}")
    objects: List[Dict[str, Any]] = []
    for hook in render.hooks:
        if phase in hook.kinds:
            extra = {c.ANN_APPLY_ORDER: str(hook.weight)}
            _hook_policies(hook, extra, DELETE_PHASE_PURGE_ORDER)
            objects.append(_annotated(hook, prefix, extra))
    return objects


def _apply_hook_annotations(hook: Hook, install: bool) -> Optional[Dict[str, str]]:
    """Annotations of a hook in the apply set, or None when it does not belong to this apply (reference 2.3)."""
    kinds = set(hook.kinds)
    upgrade_kinds = kinds & {PRE_UPGRADE, POST_UPGRADE}
    if install or not upgrade_kinds:
        pre, post = PRE_INSTALL in kinds, POST_INSTALL in kinds
        reconcile = "once"  # an install hook runs once; only a change of the hook itself runs it again
    else:
        pre, post = PRE_UPGRADE in kinds, POST_UPGRADE in kinds
        reconcile = "on-object-or-component-change"  # an upgrade hook runs on every change of the component
    if not (pre or post):
        return None  # only upgrade hooks on install, or only delete hooks
    offset = PRE_HOOK_OFFSET if pre else POST_HOOK_OFFSET
    extra = {c.ANN_APPLY_ORDER: str(hook.weight + offset), c.ANN_RECONCILE_POLICY: reconcile}
    _hook_policies(hook, extra, PRE_HOOK_PURGE_ORDER if pre and not post else POST_HOOK_PURGE_ORDER)
    return extra


def _hook_policies(hook: Hook, extra: Dict[str, str], purge_order: int) -> None:
    if BEFORE_HOOK_CREATION in hook.delete_policies:
        extra[c.ANN_UPDATE_POLICY] = "recreate"
    if HOOK_SUCCEEDED in hook.delete_policies:
        extra[c.ANN_PURGE_ORDER] = str(purge_order)


def _annotated(manifest: Manifest, prefix: str, extra: Dict[str, str]) -> Dict[str, Any]:
    """A copy of the object with the engine annotations ``extra`` (C15); charts may not bring their own."""
    obj = copy.deepcopy(manifest.obj)
    metadata = obj.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    own = sorted(key for key in annotations if key.startswith(f"{prefix}/"))
    if own:
        raise HelmError(
            f"{manifest.describe()}: charts may not set {prefix}/ annotations ({', '.join(own)}); the component "
            "derives them from the chart's hooks and helm.sh/resource-policy"
        )
    if str(annotations.get(RESOURCE_POLICY_ANNOTATION, "")).strip() == KEEP:
        extra = {**extra, c.ANN_DELETE_POLICY: "orphan"}
    if extra:
        metadata["annotations"] = {**annotations, **{f"{prefix}/{key}": value for key, value in extra.items()}}
    return obj
