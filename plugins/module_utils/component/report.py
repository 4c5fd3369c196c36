# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a run reports: the objects written (from the reconciler's observer), diffs with Secret values masked, and
output sizes kept readable: the error and a summary first, the full inventory and large objects behind verbosity
(``-vv``) or in the status kept in the cluster."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import describe_pending

MASK = "********"
NOISE_METADATA = ("managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink")
LARGE_OBJECT_BYTES = 16 * 1024  # a created or deleted object larger than this is summarised in a diff
LIST_LIMIT = 20  # objects named per list in a failed task's result (all of them with -vv)
FULL_VERBOSITY = 2
BLOCKING_SHOWN = 10  # objects named as blocking in a failure
PLAN_KEYS = {"created": "create", "updated": "update", "adopted": "adopt", "deleted": "prune", "orphaned": "orphan"}


def clean(obj: Optional[Mapping[str, Any]], hidden: Sequence[str] = ()) -> Optional[Dict[str, Any]]:
    """An object as shown in a diff: no server bookkeeping, no status, none of the engine's own annotations
    (``hidden``: its digest and owner id, issue 25), Secret values masked."""
    if obj is None:
        return None
    data: Dict[str, Any] = copy.deepcopy(dict(obj))
    metadata = data.get("metadata") or {}
    for key in NOISE_METADATA:
        metadata.pop(key, None)
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        for key in hidden:
            annotations.pop(key, None)
        if not annotations:
            metadata.pop("annotations")
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


def summarised(obj: Optional[Dict[str, Any]], verbosity: int) -> Optional[Dict[str, Any]]:
    """A large object, shown whole only from ``-vv``: otherwise apiVersion, kind, metadata and its size."""
    if obj is None or verbosity >= FULL_VERBOSITY:
        return obj
    size = len(json.dumps(obj))
    if size <= LARGE_OBJECT_BYTES:
        return obj
    short: Dict[str, Any] = {key: obj[key] for key in ("apiVersion", "kind", "metadata") if key in obj}
    short["(not shown)"] = f"{size} bytes; run with -vv to see the whole object"
    return short


class Writes:
    """The reconciler's observer: which objects were created, updated, adopted, deleted, orphaned, found drifted
    (issue 25), and their diff. ``hidden``: the engine's annotations, never shown in a diff."""

    def __init__(self, hidden: Sequence[str] = ()) -> None:
        self.actions: Dict[str, List[str]] = {key: [] for key in (*PLAN_KEYS, "released", "drifted", "unchanged")}
        self.before: Dict[str, Any] = {}
        self.after: Dict[str, Any] = {}
        self.hidden = tuple(hidden)

    def __call__(
        self, action: str, ref: str, before: Optional[Dict[str, Any]], after: Optional[Dict[str, Any]]
    ) -> None:
        if action in ("updated", "adopted") and ref in self.actions["created"]:
            # written again after it was created in this run (the component's own namespace, created first to hold
            # the record, then given its markers by the reconciler): it was created (issue 25)
            action = "created"
        if ref not in self.actions[action]:
            self.actions[action].append(ref)
        if action in ("released", "unchanged"):
            return
        if ref not in self.before:
            self.before[ref] = before
        self.after[ref] = after

    def objects(self) -> Dict[str, List[str]]:
        """The ``objects`` result: created, updated (adopted ones too), deleted, orphaned. Each list is sorted: the
        objects of one wave are written in parallel, so the order they finish in varies from run to run."""
        updated = [*self.actions["updated"], *(r for r in self.actions["adopted"] if r not in self.actions["updated"])]
        return {
            "created": sorted(self.actions["created"]),
            "updated": sorted(updated),
            "deleted": sorted(self.actions["deleted"]),
            "orphaned": sorted(self.actions["orphaned"]),
        }

    def created_namespaces(self) -> List[str]:
        """Names of the namespaces this run created (issue 27: a failed first apply removes them again)."""
        return sorted(ref.split(" ", 1)[1] for ref in self.actions["created"] if ref.startswith("Namespace "))

    def drifted(self) -> List[str]:
        """Objects whose live state differed from the task (corrected, or only reported in warn mode), sorted."""
        return sorted(self.actions["drifted"])

    def plan(self) -> Dict[str, List[str]]:
        """The ``plan`` result of check mode: create, update, adopt, prune, orphan (each sorted, as ``objects``)."""
        return {plan: sorted(self.actions[action]) for action, plan in PLAN_KEYS.items()}

    def diff(self, verbosity: int) -> Dict[str, Any]:
        """Ansible's ``diff``: before/after per written object, cleaned and masked; large creations summarised."""
        before_all: Dict[str, Any] = {}
        after_all: Dict[str, Any] = {}
        for ref in self.after:
            raw_before, raw_after = self.before.get(ref), self.after.get(ref)
            before, after = clean(raw_before, self.hidden), clean(raw_after, self.hidden)
            mask_changed_secret(before, after, raw_before, raw_after)
            if before is None or after is None:  # created or deleted: the whole object would be printed
                before, after = summarised(before, verbosity), summarised(after, verbosity)
            before_all[ref], after_all[ref] = before, after
        return {"before": before_all, "after": after_all}


def failure_summary(inventory: Sequence[InventoryItem], named: Sequence[str] = ()) -> Dict[str, Any]:
    """A failed task's summary: counts by phase, the objects that block first, and how many other objects are still
    pending. ``named``: the objects the error is about, which block (issue 25: an invalid object, not every object
    still being created); without them, the objects written and not ready block (a timeout)."""
    phases: Dict[str, int] = {}
    for item in inventory:
        phases[item.phase or "Unknown"] = phases.get(item.phase or "Unknown", 0) + 1
    pending = describe_pending(inventory)
    if named:
        blocking = list(named)
        waiting = sum(1 for i in (*pending["blocking"], *pending["waiting"]) if i.describe() not in blocking)
    else:
        blocking = [i.describe() for i in pending["blocking"]]
        waiting = len(pending["waiting"])
    return {"objects": len(inventory), "phases": phases, "blocking": blocking[:BLOCKING_SHOWN], "waiting": waiting}


def not_ready(inventory: Sequence[InventoryItem], why: Callable[[InventoryItem], str]) -> str:
    """A timeout's account: the objects that block first (written, waiting for readiness, ``why`` not ready), then
    how many wait behind them."""
    pending = describe_pending(inventory)
    blocking, waiting = pending["blocking"], pending["waiting"]
    lines = ["Blocking (not ready):"]
    for item in blocking[:BLOCKING_SHOWN]:
        lines.append(f"- {item.describe()} (apply wave {item.applyOrder}, phase {item.phase}): {why(item)}")
    if len(blocking) > BLOCKING_SHOWN:
        lines.append(f"- ... and {len(blocking) - BLOCKING_SHOWN} more")
    if waiting:
        lines.append(
            f"{len(waiting)} more object(s) wait behind them (later stages or waves), e.g. "
            f"{', '.join(i.describe() for i in waiting[:3])}"
        )
    return "\n".join(lines)


def shorten_lists(objects: Dict[str, List[str]], verbosity: int) -> Dict[str, List[str]]:
    """At most LIST_LIMIT names per list, unless -vv."""
    if verbosity >= FULL_VERBOSITY:
        return objects
    short: Dict[str, List[str]] = {}
    for key, names in objects.items():
        short[key] = names[:LIST_LIMIT] + (
            [f"... and {len(names) - LIST_LIMIT} more"] if len(names) > LIST_LIMIT else []
        )
    return short
