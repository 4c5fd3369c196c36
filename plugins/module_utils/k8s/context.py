# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Everything an engine call needs besides the inventory and the objects; reused for all calls of one run."""

from __future__ import annotations

import datetime
import threading
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Set

from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.inventory import TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.managed_fields import RECLAIMED_MANAGER_PREFIXES
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.ownership import Markers, hash_owner_id, owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.policies import Defaults
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.readiness import Analyzer, analyze


def utc_now() -> datetime.datetime:
    """Current time, timezone-aware UTC."""
    return datetime.datetime.now(datetime.timezone.utc)


def format_time(value: datetime.datetime) -> str:
    """RFC 3339 with seconds, ``Z`` suffix (as Kubernetes writes times)."""
    return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: str) -> datetime.datetime:
    """Inverse of ``format_time``."""
    return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


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
    _known_namespaces: Set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _normalised_defaults: Optional[Defaults] = None

    @property
    def hashed_owner_id(self) -> str:
        """Label value of the owner id."""
        return hash_owner_id(self.owner_id)

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


def component_owner_id(api: KubeApi, namespace: str, name: str) -> str:
    """Owner id of a component: the target cluster's kube-system UID, the component namespace and name (3.1)."""
    return owner_id(api.cluster_uid(), namespace, name)
