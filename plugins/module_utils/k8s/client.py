# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Client layer: one pooled HTTP connection to the API server, a discovery cache and an API call counter.

The engine talks plain REST (JSON) through the urllib3 pool of a ``kubernetes.client.ApiClient``: TLS, client
certificates and tokens come from the kubeconfig loaded by the ``kubernetes`` package, and one pool is shared by
the worker threads of a run. C11/C12: a kubeconfig selects the target cluster; impersonation adds headers.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import quote, urlencode

from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import ApiError, ConnectionFailedError

try:
    import urllib3
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
    from urllib3._collections import HTTPHeaderDict

    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR: Optional[str] = None
except ImportError as exc:  # pragma: no cover - reported by the module that uses the engine
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = str(exc)

APPLY_PATCH = "application/apply-patch+yaml"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


class CallCounter:
    """Thread-safe count of API calls, by method and by kind of call (for tests and benchmarks)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_method: Counter[str] = Counter()

    def add(self, method: str) -> None:
        """Record one call."""
        with self._lock:
            self.by_method[method] += 1

    @property
    def total(self) -> int:
        """All calls so far."""
        with self._lock:
            return sum(self.by_method.values())

    def snapshot(self) -> Dict[str, int]:
        """Copy of the counts, with ``total``."""
        with self._lock:
            data = dict(self.by_method)
        data["total"] = sum(data.values())
        return data


class Connection:
    """Plain REST calls against one API server, sharing the connection pool of an ``ApiClient``."""

    def __init__(
        self,
        api_client: Any,
        impersonate_user: Optional[str] = None,
        impersonate_groups: Optional[Sequence[str]] = None,
        request_timeout: float = 60.0,
    ) -> None:
        self.api_client = api_client
        self.configuration = api_client.configuration
        self.pool = api_client.rest_client.pool_manager
        self.host = str(self.configuration.host).rstrip("/")
        self.request_timeout = request_timeout
        self.calls = CallCounter()
        self._impersonation: List[Tuple[str, str]] = []
        if impersonate_user:  # C12: empty user disables impersonation
            self._impersonation.append(("Impersonate-User", impersonate_user))
            self._impersonation.extend(("Impersonate-Group", group) for group in impersonate_groups or [])

    @classmethod
    def from_kubeconfig(
        cls,
        kubeconfig: Optional[str] = None,
        context: Optional[str] = None,
        config_dict: Optional[Mapping[str, Any]] = None,
        pool_size: int = 16,
        impersonate_user: Optional[str] = None,
        impersonate_groups: Optional[Sequence[str]] = None,
        request_timeout: float = 60.0,
    ) -> Connection:
        """Connect with a kubeconfig file, a kubeconfig dict, or (neither) the in-cluster service account."""
        if not HAS_KUBERNETES:
            raise ConnectionFailedError(
                f"the Python package 'kubernetes' is required on the host running the module: {KUBERNETES_IMPORT_ERROR}"
            )
        configuration = k8s_client.Configuration()
        if config_dict is not None:
            k8s_config.load_kube_config_from_dict(
                dict(config_dict), context=context, client_configuration=configuration
            )
        elif kubeconfig:
            k8s_config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=configuration)
        else:
            try:
                k8s_config.load_incluster_config(client_configuration=configuration)
            except k8s_config.ConfigException:
                k8s_config.load_kube_config(context=context, client_configuration=configuration)
        configuration.connection_pool_maxsize = pool_size
        return cls(k8s_client.ApiClient(configuration), impersonate_user, impersonate_groups, request_timeout)

    def _headers(self, content_type: Optional[str], accept: Optional[str]) -> Dict[str, str]:
        headers: Dict[str, str] = {"Accept": accept or "application/json", "User-Agent": "nubes.cloud/component-engine"}
        if content_type:
            headers["Content-Type"] = content_type
        for setting in self.configuration.auth_settings().values():
            if setting.get("in") == "header" and setting.get("value"):
                headers[str(setting["key"])] = str(setting["value"])
        return headers

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        content_type: Optional[str] = None,
        accept: Optional[str] = None,
    ) -> Any:
        """One API call; returns the decoded JSON body, raises ApiError on an error status."""
        url = self.host + path
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        headers = self._headers(content_type if body is not None else None, accept)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        self.calls.add(method)
        try:
            if self._impersonation:
                header_list = HTTPHeaderDict(headers)
                for key, value in self._impersonation:
                    header_list.add(key, value)
                response = self.pool.request(
                    method, url, body=data, headers=header_list, timeout=self.request_timeout, retries=False
                )
            else:
                response = self.pool.request(
                    method, url, body=data, headers=headers, timeout=self.request_timeout, retries=False
                )
        except urllib3.exceptions.HTTPError as exc:
            raise ConnectionFailedError(
                f"cannot reach the Kubernetes API at {self.host} ({type(exc).__name__}); check the kubeconfig and "
                "that the API server is running"
            ) from None
        try:
            decoded = json.loads(response.data) if response.data else None
        except ValueError:
            decoded = {"message": response.data[:200].decode("utf-8", "replace")}
        if response.status >= 400:
            raise ApiError(method, path, response.status, decoded if isinstance(decoded, dict) else None)
        return decoded


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


class Discovery:
    """Cached API discovery, one call per group/version actually used (thread-safe)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._lock = threading.Lock()
        self._by_gv: Dict[Tuple[str, str], Optional[Dict[str, ResourceInfo]]] = {}
        self._groups: Optional[Dict[str, List[str]]] = None

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
        if data is not None:
            resources = {}
            for entry in data.get("resources") or []:
                name = str(entry.get("name", ""))
                if "/" in name:
                    continue  # subresources
                kind = str(entry["kind"])
                resources[kind] = ResourceInfo(group, version, kind, name, bool(entry.get("namespaced")))
        with self._lock:
            self._by_gv[(group, version)] = resources
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

    def resources_in_group(self, group: str) -> List[ResourceInfo]:
        """All kinds served by the preferred version of a group."""
        versions = self.group_versions().get(group, [])
        if not versions:
            return []
        return list((self.resources_of(group, versions[0]) or {}).values())


class KubeApi:
    """Typed helpers for the calls the engine makes."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.discovery = Discovery(connection)

    @property
    def calls(self) -> CallCounter:
        """The call counter of the connection."""
        return self.connection.calls

    def cluster_uid(self) -> str:
        """UID of the ``kube-system`` namespace: the cluster's identity in owner ids (reference 7.1)."""
        data = self.connection.request("GET", "/api/v1/namespaces/kube-system")
        return str(data["metadata"]["uid"])

    def get(self, res: ResourceInfo, namespace: str, name: str) -> Optional[Dict[str, Any]]:
        """GET one object; None when it does not exist."""
        try:
            obj = self.connection.request("GET", res.path(namespace, name))
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        return _with_type(obj, res)

    def list(
        self,
        res: ResourceInfo,
        namespace: str = "",
        label_selector: Optional[str] = None,
        limit: Optional[int] = None,
        metadata_only: bool = False,
    ) -> List[Dict[str, Any]]:
        """LIST a collection (all pages unless ``limit`` is given); namespace "" lists across namespaces."""
        items: List[Dict[str, Any]] = []
        token: Optional[str] = None
        while True:
            query: Dict[str, Any] = {"labelSelector": label_selector, "limit": limit or 500, "continue": token}
            data = self.connection.request(
                "GET", res.path(namespace), query=query, accept=METADATA_LIST_ACCEPT if metadata_only else None
            )
            items.extend(_with_type(item, res) for item in data.get("items") or [])
            token = (data.get("metadata") or {}).get("continue")
            if limit or not token:
                return items

    def create(
        self, res: ResourceInfo, namespace: str, body: Mapping[str, Any], field_manager: Optional[str] = None
    ) -> Dict[str, Any]:
        """POST a new object."""
        query = {"fieldManager": field_manager}
        path = res.path(namespace)
        return dict(self.connection.request("POST", path, query=query, body=body, content_type="application/json"))

    def replace(
        self, res: ResourceInfo, namespace: str, name: str, body: Mapping[str, Any], field_manager: Optional[str] = None
    ) -> Dict[str, Any]:
        """PUT an object (``body`` carries the live resourceVersion)."""
        query = {"fieldManager": field_manager}
        return dict(
            self.connection.request(
                "PUT", res.path(namespace, name), query=query, body=body, content_type="application/json"
            )
        )

    def server_side_apply(
        self, res: ResourceInfo, namespace: str, name: str, body: Mapping[str, Any], field_manager: str, force: bool
    ) -> Dict[str, Any]:
        """Server-side apply PATCH."""
        query = {"fieldManager": field_manager, "force": "true" if force else None}
        path = res.path(namespace, name)
        return dict(self.connection.request("PATCH", path, query=query, body=body, content_type=APPLY_PATCH))

    def json_patch(
        self,
        res: ResourceInfo,
        namespace: str,
        name: str,
        ops: Sequence[Mapping[str, Any]],
        field_manager: Optional[str] = None,
    ) -> Dict[str, Any]:
        """JSON patch (RFC 6902)."""
        path, query = res.path(namespace, name), {"fieldManager": field_manager}
        return dict(self.connection.request("PATCH", path, query=query, body=list(ops), content_type=JSON_PATCH))

    def delete(self, res: ResourceInfo, namespace: str, name: str, resource_version: Optional[str] = None) -> bool:
        """DELETE with background propagation (and a resourceVersion precondition); False when already gone."""
        body: Dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Background"}
        if resource_version:
            body["preconditions"] = {"resourceVersion": resource_version}
        try:
            self.connection.request("DELETE", res.path(namespace, name), body=body, content_type="application/json")
        except ApiError as exc:
            if exc.status == 404:
                return False
            raise
        return True


def _with_type(obj: Dict[str, Any], res: ResourceInfo) -> Dict[str, Any]:
    """List items of built-in types come without apiVersion/kind; fill them in."""
    obj.setdefault("apiVersion", res.api_version)
    obj.setdefault("kind", res.kind)
    if obj.get("kind") in ("PartialObjectMetadata", ""):
        obj["apiVersion"], obj["kind"] = res.api_version, res.kind
    return obj
