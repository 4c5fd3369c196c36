# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 27: a component's first apply that fails before any object of its set is in the cluster leaves nothing
behind, as Helm's ``install --atomic`` (and a Flux HelmRelease's install remediation) uninstall a failed first
install. What the run created goes again: the namespaces the missing-namespaces policy created in this run (C15),
then the record together with the component's own namespace when this run created it. A namespace goes only when
nothing else lives in it, and the wait for it is bounded (``namespace.py``, issue 25).

Decided from the record, never guessed: only a run that found no record (the component's first) undoes itself, and
only when its inventory shows that no object of the set was written or found in the cluster: every item is still
``ScheduledForApplication`` and was never applied (the inventory is written ahead of every create, C8). The
component's own namespace does not count when this run created it (created first to hold the record, then given its
markers when it is one of the objects). Once an object of the set is in the cluster (a later wave failed, or the
timeout hit while written objects were not ready), the record stays as before: it holds the inventory, so
``state: absent`` or the next run can finish, and its status shows the error (C3, C8).
"""

from __future__ import annotations

import time
from typing import List, Sequence

from ansible_collections.nubes.cloud.plugins.module_utils.component.namespace import (
    delete_created_namespaces,
    delete_own_namespace,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.component.report import Writes
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import NAMESPACES
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers

# the least time given to the removed namespaces to go, also when the failed run used up its timeout
UNDO_WAIT_SECONDS = 30.0
FIRST_APPLY = "This was the component's first apply and none of its objects was created"


def nothing_in_cluster(inventory: Sequence[InventoryItem], created_namespace: str) -> bool:
    """Issue 27, C8: no object of the set was written or found in the cluster (every item still scheduled, never
    applied). ``created_namespace``: the component's own namespace when this run created it, "" otherwise; as an
    item of the set it does not count."""
    own = ("", "Namespace", "", created_namespace)
    return all(
        item.phase == c.PHASE_SCHEDULED_FOR_APPLICATION and not item.lastAppliedAt
        for item in inventory
        if not (created_namespace and item.key == own)
    )


class FirstApplyUndo:
    """Remove what a failed first apply created (issue 27) and say so in the sentence its failure message ends with.
    ``writes`` is the run's report: it names the namespaces the run created, and each one removed is reported there
    as deleted, so the run's diff does not claim it exists."""

    def __init__(self, api: KubeApi, store: ComponentStore, writes: Writes, timeout: float) -> None:
        self.api = api
        self.store = store
        self.writes = writes
        self.deadline = time.monotonic() + max(timeout, UNDO_WAIT_SECONDS)
        self.left: List[str] = []  # what this run created and is not removed (yet)
        self.removed: List[str] = []
        self.kept: List[str] = []  # warnings: a namespace kept because something else lives in it

    def run(self, own_namespace: bool, markers: Markers, hashed_owner: str) -> str:
        """Remove the namespaces the missing-namespaces policy created in this run (C15), then the record and, when
        this run created it (``own_namespace``), the component's namespace with it. Returns the sentence for the
        failure message."""
        store = self.store
        policy_namespaces = [name for name in self.writes.created_namespaces() if name != store.namespace]
        self.left = [f"namespace {name}" for name in policy_namespaces]
        self.left += [f"namespace {store.namespace}"] if own_namespace else []
        record = f"the record ConfigMap {store.namespace}/{store.object_name}"
        self.left += [record] if store.resource_version is not None else []  # none when its first write failed
        try:
            stuck = self._policy_namespaces(policy_namespaces, markers, hashed_owner)
            stuck = stuck or self._record_and_namespace(own_namespace)
        except KubeError as exc:
            stuck = str(exc)
        if stuck:
            return self._incomplete(stuck)
        verb = "was" if len(self.removed) == 1 else "were"
        what = f": {_and(self.removed)} {verb} removed again" if self.removed else ""
        said = f"{FIRST_APPLY}, so nothing of it was left in the cluster{what}."
        return " ".join([said, *self.kept])

    def _remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def _policy_namespaces(self, names: Sequence[str], markers: Markers, hashed_owner: str) -> str:
        """The namespaces the missing-namespaces policy created in this run, with issue 25's helper; why one cannot
        finalise ("" when none)."""
        if not names:
            return ""
        selector = markers.created_selector(hashed_owner)
        kept, stuck = delete_created_namespaces(self.api, selector, markers.owner_label, self._remaining(), only=names)
        self.kept += kept
        for name in names:
            if self.api.get(NAMESPACES, "", name) is None:
                self._gone(name)
        return stuck

    def _record_and_namespace(self, own_namespace: bool) -> str:
        """The component's own namespace when this run created it (the record goes with it), else the record; why
        the namespace cannot finalise ("" when it is gone)."""
        store = self.store
        if own_namespace:
            kept, stuck = delete_own_namespace(self.api, store, self._remaining())
            if stuck:
                return stuck
            if kept:
                self.kept.append(kept)
            else:
                self._gone(store.namespace)
        if store.resource_version is not None:
            store.delete(as_written=True)  # gone with its namespace already (False), or removed now
            self.left.pop()  # the record, listed last
            self.removed.append("the record")
        return ""

    def _gone(self, name: str) -> None:
        """A namespace this run created is gone: reported as deleted (the diff's after is empty)."""
        self.writes("deleted", f"Namespace {name}", None, None)
        self.left.remove(f"namespace {name}")
        self.removed.append(f"namespace {name}")

    def _incomplete(self, why: str) -> str:
        """Clean-up failed: what is left, and how to remove it."""
        record_left = any(item.startswith("the record ") for item in self.left)
        if record_left:
            how = "run the task with `state: absent` to remove it"
        else:
            names = " ".join(item.split(" ", 1)[1] for item in self.left)
            how = f"remove it with `kubectl delete namespace {names}`"
        return (
            f"{FIRST_APPLY}, but removing what it created failed ({why}); left in the cluster: "
            f"{', '.join(self.left) or 'nothing'}; {how}."
        )


def _and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
