# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Everything an engine call needs besides the inventory and the objects; reused for all calls of one run.

``api.dry_run`` makes the whole engine a dry run (check mode): every write carries ``dryRun=All``, and one call goes
through every wave without waiting, so the same rules (adoption, digests, policies, waves) decide what would be
written. ``observer`` hears of every write (for ``objects`` results and diffs)."""

from __future__ import annotations

import datetime
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import utc_now
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_ENABLED, IgnoreRule
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import RECLAIMED_MANAGER_PREFIXES
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers, hash_owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.readiness import Analyzer, analyze

# observer(action, object reference, live object before, object after): action is one of created, updated,
# adopted, deleted, orphaned, released (a type definition's finalizer); before/after are None where not known.
Observer = Callable[[str, str, Optional[Dict[str, Any]], Optional[Dict[str, Any]]], None]


def _ignore(action: str, ref: str, before: Optional[Dict[str, Any]], after: Optional[Dict[str, Any]]) -> None:
    del action, ref, before, after


@dataclass
class EngineContext:
    """Target cluster, placement, ownership and policies of one component (C4, C10, C15, C16, C17)."""

    api: KubeApi
    namespace: str
    owner_id: str
    component_digest: str = ""
    markers: Markers = field(default_factory=Markers)
    defaults: Defaults = field(default_factory=Defaults)
    additional_managed_types: List[TypeInfo] = field(default_factory=list)
    analyzer: Analyzer = analyze
    max_workers: int = 8
    clock: Callable[[], datetime.datetime] = utc_now
    reclaimed_managers: List[str] = field(default_factory=lambda: list(RECLAIMED_MANAGER_PREFIXES))
    ssa_create_with_precondition: bool = True
    observer: Observer = _ignore
    drift_mode: str = MODE_ENABLED  # issue 25: enabled, warn or disabled (digest plus reapply interval, C17)
    drift_ignore: List[IgnoreRule] = field(default_factory=list)
    _known_namespaces: Set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _normalised_defaults: Optional[Defaults] = None
    _hashed_owner_id: Optional[Tuple[str, str]] = None
    _dry_run_api: Optional[KubeApi] = None
    # apply_waves: (objects, (count, component digest), normalised objects, digests) of this run's desired set
    desired_cache: Optional[Tuple[Any, Tuple[int, str], List[Any], Dict[Any, str]]] = None

    @property
    def hashed_owner_id(self) -> str:
        """Label value of the owner id (hashed once per owner id: every object's body and selector needs it)."""
        if self._hashed_owner_id is None or self._hashed_owner_id[0] != self.owner_id:
            self._hashed_owner_id = (self.owner_id, hash_owner_id(self.owner_id))
        return self._hashed_owner_id[1]

    @property
    def dry_run_api(self) -> KubeApi:
        """A client on the same pool whose writes are all server-side dry runs (drift checks; counted apart)."""
        with self._lock:
            if self._dry_run_api is None:
                self._dry_run_api = self.api.sibling(dry_run=True)
            return self._dry_run_api

    @property
    def dry_run(self) -> bool:
        """Check mode: writes are server-side dry-runs and one call plans every wave."""
        return self.api.dry_run

    def observe(
        self, action: str, ref: str, before: Optional[Dict[str, Any]] = None, after: Optional[Dict[str, Any]] = None
    ) -> None:
        """Tell the observer about a write (thread-safe: observers are called under the context's lock)."""
        with self._lock:
            self.observer(action, ref, before, after)

    @property
    def effective_defaults(self) -> Defaults:
        """Defaults with canonical spellings."""
        if self._normalised_defaults is None:
            self._normalised_defaults = self.defaults.normalised()
        return self._normalised_defaults

    def namespace_known(self, name: str) -> bool:
        """Has this run already seen the namespace exist?"""
        with self._lock:
            return name in self._known_namespaces

    def remember_namespace(self, name: str) -> None:
        """Record that the namespace exists."""
        with self._lock:
            self._known_namespaces.add(name)
