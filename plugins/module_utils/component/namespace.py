# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Namespaces a component created, on ``state: absent``: its own namespace (where the record lives) and those the
missing-namespaces policy created for its objects are removed again, but only when nothing but the component's
record (and what Kubernetes puts in every namespace) is left in them.

The wait for it to go is bounded (issue 25): a namespace whose deletion fails (a ``NamespaceDeletion...Failure``
condition, e.g. ``NamespaceDeletionDiscoveryFailure`` while an aggregated API is down) for ``FAILURE_GRACE_SECONDS``,
or that is still there at the task's deadline, ends the wait with a message naming the namespace, its own
conditions and what is left in it."""

from __future__ import annotations

import time
from typing import Any, Callable, Collection, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import NAMESPACES
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, Forbidden

# (kind, name) that Kubernetes creates in every namespace; kinds whose objects come and go by themselves
EVERY_NAMESPACE = (("ServiceAccount", "default"), ("ConfigMap", "kube-root-ca.crt"))
TRANSIENT_KINDS = ("Event",)
LISTED_PER_TYPE = 20
POLL_SECONDS = 0.5
# a deletion failure the namespace controller reports (and retries) for this long is not a passing hiccup
FAILURE_GRACE_SECONDS = 10.0


def leftovers(api: KubeApi, namespace: str, ignore: List[tuple]) -> List[str]:
    """Objects in the namespace other than ``ignore`` (kind, name) and what every namespace holds (at most a few)."""
    found: List[str] = []
    skip = set(EVERY_NAMESPACE) | set(ignore)
    for res in api.discovery.namespaced_listable():
        if res.kind in TRANSIENT_KINDS:
            continue
        try:
            items = api.list(res, namespace, limit=LISTED_PER_TYPE, metadata_only=True)
        except Forbidden:
            found.append(f"{res.kind} objects this identity may not list")  # cannot prove the namespace is empty
            break
        except ApiError:
            continue  # a type not served right now (an aggregated API that is down)
        for item in items:
            name = str((item.get("metadata") or {}).get("name"))
            if (res.kind, name) not in skip:
                found.append(f"{res.kind} {namespace}/{name}")
        if len(found) >= 5:
            break
    return found


def delete_own_namespace(
    api: KubeApi,
    store: ComponentStore,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> Tuple[str, str]:
    """Delete the namespace the component created and wait until it is gone: ``(kept, stuck)``. ``kept`` is a
    warning (and nothing deleted) when something else lives in it; ``stuck`` says why the deleted namespace cannot
    finalise (issue 25), "" when it is gone."""
    others = leftovers(api, store.namespace, [("ConfigMap", store.object_name)])
    if others:
        return (
            f"namespace {store.namespace} was created by this component but is kept: it still holds "
            f"{', '.join(others[:5])}",
            "",
        )
    api.delete(NAMESPACES, "", store.namespace)
    return "", wait_until_gone(api, store.namespace, timeout, sleep, monotonic)


def delete_namespace_object(
    delete_step: Callable[[], bool],
    api: KubeApi,
    name: str,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> str:
    """The component's own namespace as one of its objects (issue 25): one reconciler delete step (the DELETE, or
    the orphan by policy; True when nothing is left to wait for), then the bounded wait of ``wait_until_gone``
    instead of the run loop's wait to the timeout, which ended in a bare ``Timeout`` when the namespace could not
    finalise. Nothing is persisted after the step: the record lives in the namespace and goes with it. "" when
    the namespace is gone (or orphaned), else why it cannot finalise."""
    if delete_step():
        return ""
    return wait_until_gone(api, name, timeout, sleep, monotonic)


def delete_created_namespaces(
    api: KubeApi,
    selector: str,
    owner_label: str,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    only: Optional[Collection[str]] = None,
) -> Tuple[List[str], str]:
    """Issue 25, C15: the namespaces the missing-namespaces policy created for the component's objects (labelled
    ``selector`` at creation, ``apply_waves._ensure_namespaces``) go with the component, as its own namespace does:
    each is deleted when nothing but what every namespace holds is left in it, and the wait for them is bounded
    (``wait_until_gone``). A namespace another component took into its set (it carries an ``owner_label``) is that
    component's. Returns ``(kept, stuck)``: a warning per namespace kept because something lives in it, and why a
    deleted one cannot finalise ("" when all are gone). ``only``: just these names (issue 27: the ones a failed first
    apply created; None: all)."""
    kept: List[str] = []
    deleted: List[str] = []
    try:
        created = api.list(NAMESPACES, "", label_selector=selector)
    except Forbidden:
        return [], ""  # an identity that may not list namespaces cannot see them: they stay, as before issue 25
    for namespace in created:
        meta = namespace.get("metadata") or {}
        name = str(meta.get("name"))
        if (meta.get("labels") or {}).get(owner_label) or (only is not None and name not in only):
            continue
        if not meta.get("deletionTimestamp"):
            others = leftovers(api, name, [])
            if others:
                kept.append(
                    f"namespace {name} was created by this component (missing-namespaces policy) but is kept: it "
                    f"still holds {', '.join(others[:5])}"
                )
                continue
            api.delete(NAMESPACES, "", name)
        deleted.append(name)
    start = monotonic()
    for name in deleted:
        stuck = wait_until_gone(api, name, max(0.0, timeout - (monotonic() - start)), sleep, monotonic)
        if stuck:
            return kept, stuck
    return kept, ""


def _failures(conditions: List[Mapping[str, Any]]) -> List[str]:
    """Types of the deletion failures the namespace reports now (``NamespaceDeletion...Failure`` = True)."""
    return [
        str(c.get("type"))
        for c in conditions
        if str(c.get("type", "")).endswith("Failure") and c.get("status") == "True"
    ]


def wait_until_gone(
    api: KubeApi,
    name: str,
    timeout: float,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> str:
    """Wait (bounded, issue 25) until the deleted namespace is gone; "" when it is, else why it is not."""
    start = monotonic()
    failing_since: Optional[float] = None
    while True:
        live = api.get(NAMESPACES, "", name)
        if live is None:
            return ""
        conditions = list((live.get("status") or {}).get("conditions") or [])
        now = monotonic()
        failing_since = (failing_since or now) if _failures(conditions) else None
        failed_for = now - failing_since if failing_since is not None else 0.0
        if failed_for >= FAILURE_GRACE_SECONDS or now - start >= timeout:
            return stuck_message(api, name, conditions, now - start)
        sleep(POLL_SECONDS)


def stuck_message(api: KubeApi, name: str, conditions: List[Mapping[str, Any]], waited: float) -> str:
    """Why the namespace cannot finalise, in its own conditions' words, what is left in it, and what to do."""
    said = [
        f"{c.get('type')}: {c.get('message') or c.get('reason') or ''}".rstrip(": ")
        for c in conditions
        if c.get("status") == "True"
    ]
    why = "; ".join(said) or "it reports no condition yet"
    left = leftovers(api, name, [])
    what = ", ".join(left[:5]) if left else "no object this identity can list"
    advice = (
        "fix what the condition names (a NamespaceDeletionDiscoveryFailure: the unavailable APIService, see "
        "`kubectl get apiservices`); the namespace then finishes by itself"
        if _failures(conditions)
        else "something in it keeps a finalizer; remove what is left, or give the task a longer timeout"
    )
    return (
        f"namespace {name}, which this component created, was deleted but cannot finalise after {int(waited)}s: "
        f"{why}; left in it: {what}. The component's objects are deleted; {advice} "
        f"(`kubectl get namespace {name} -o yaml`)"
    )
