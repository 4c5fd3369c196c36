# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""API discovery: where a kind lives in the REST API, cached per group/version (one call per group/version used)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError


@dataclass(frozen=True)
class ResourceInfo:
    """Where a kind lives in the REST API."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        """``group/version`` (or ``v1`` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str = "", name: str = "") -> str:
        """REST path of the collection, or of one object when ``name`` is given."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{self.plural}"
        if name:
            base += f"/{quote(name, safe='')}"
        return base


CONFIG_MAPS = ResourceInfo("", "v1", "ConfigMap", "configmaps", True)
SECRETS = ResourceInfo("", "v1", "Secret", "secrets", True)
NAMESPACES = ResourceInfo("", "v1", "Namespace", "namespaces", False)
LEASES = ResourceInfo("coordination.k8s.io", "v1", "Lease", "leases", True)


class Discovery:
    """Cached API discovery, one call per group/version actually used (thread-safe)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self._lock = threading.Lock()
        self._by_gv: Dict[Tuple[str, str], Optional[Dict[str, ResourceInfo]]] = {}
        self._groups: Optional[Dict[str, List[str]]] = None
        self._listable: Dict[Tuple[str, str], List[ResourceInfo]] = {}

    def reset_misses(self) -> None:
        """Forget group/versions that were not served, so types added meanwhile (CRDs) are found."""
        with self._lock:
            self._by_gv = {gv: res for gv, res in self._by_gv.items() if res is not None}
            self._groups = None

    def invalidate(self, group: str, version: str) -> None:
        """Drop one group/version (after a CRD of that group changed)."""
        with self._lock:
            self._by_gv.pop((group, version), None)
            self._groups = None

    def resources_of(self, group: str, version: str) -> Optional[Dict[str, ResourceInfo]]:
        with self._lock:
            if (group, version) in self._by_gv:
                return self._by_gv[(group, version)]
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            data = self.connection.request("GET", path)
        except ApiError as exc:
            if exc.status not in (404, 503):
                raise
            data = None
        resources: Optional[Dict[str, ResourceInfo]] = None
        listable: List[ResourceInfo] = []
        if data is not None:
            resources = {}
            for entry in data.get("resources") or []:
                name = str(entry.get("name", ""))
                if "/" in name:
                    continue  # subresources
                kind = str(entry["kind"])
                resources[kind] = ResourceInfo(group, version, kind, name, bool(entry.get("namespaced")))
                if "list" in (entry.get("verbs") or []):
                    listable.append(resources[kind])
        with self._lock:
            self._by_gv[(group, version)] = resources
            self._listable[(group, version)] = listable
        return resources

    def resource(self, group: str, version: str, kind: str) -> Optional[ResourceInfo]:
        """The resource of a kind, or None when the API server does not serve it."""
        resources = self.resources_of(group, version)
        return None if resources is None else resources.get(kind)

    def scope(self, group: str, version: str, kind: str) -> Optional[bool]:
        """True for namespaced, False for cluster-scoped, None for unknown kinds."""
        info = self.resource(group, version, kind)
        return None if info is None else info.namespaced

    def group_versions(self) -> Dict[str, List[str]]:
        """All served groups with their versions, preferred version first (``""`` is the core group)."""
        with self._lock:
            if self._groups is not None:
                return self._groups
        groups: Dict[str, List[str]] = {"": ["v1"]}
        data = self.connection.request("GET", "/apis") or {}
        for entry in data.get("groups") or []:
            preferred = (entry.get("preferredVersion") or {}).get("version", "")
            versions = [str(v.get("version")) for v in entry.get("versions") or []]
            versions.sort(key=lambda v: v != preferred)
            groups[str(entry.get("name", ""))] = versions
        with self._lock:
            self._groups = groups
        return groups

    def resource_any_version(self, group: str, kind: str, hint_version: str = "") -> Optional[ResourceInfo]:
        """Resource of a group/kind whatever version is served now (the hint first, then the preferred one)."""
        if hint_version:
            info = self.resource(group, hint_version, kind)
            if info is not None:
                return info
        for version in self.group_versions().get(group, []):
            if version == hint_version:
                continue
            info = self.resource(group, version, kind)
            if info is not None:
                return info
        return None

    def namespaced_listable(self) -> List[ResourceInfo]:
        """Every namespaced kind that can be listed, in the preferred version of its group."""
        found: List[ResourceInfo] = []
        for group, versions in self.group_versions().items():
            if versions and self.resources_of(group, versions[0]) is not None:
                with self._lock:
                    found.extend(r for r in self._listable.get((group, versions[0]), []) if r.namespaced)
        return found

    def resources_in_group(self, group: str) -> List[ResourceInfo]:
        """All kinds served by the preferred version of a group."""
        versions = self.group_versions().get(group, [])
        if not versions:
            return []
        return list((self.resources_of(group, versions[0]) or {}).values())
