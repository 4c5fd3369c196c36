# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The REST client: one pooled HTTP connection to the API server, typed errors, a call counter and dry-run.

Plain REST (JSON) through the pool of a ``transport.Transport``: TLS, client certificates and tokens come from
the ``kubeconfig.ClientConfig`` that ``connection.connect`` built, and one pool is shared by the worker threads of
a run. Every call honours 429/5xx answers that carry ``Retry-After`` as client-go does (up to 10 retries, waiting
what the server asks), so a transient "storage is (re)initializing" never fails a read or a write. With
``dry_run`` every write carries ``dryRun=All`` (kubernetes.core's ``_ensure_dry_run``): check mode runs the same
code with the server validating and nothing persisted.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import urlencode

from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import Discovery, ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ConnectionFailed, NotFound, api_error
from ansible_collections.nubes.cloud.plugins.module_utils.kube.transport import Transport

try:
    import urllib3
    from urllib3._collections import HTTPHeaderDict

    HAS_URLLIB3 = True
except ImportError:  # pragma: no cover - reported by transport.open_transport
    HAS_URLLIB3 = False

APPLY_PATCH = "application/apply-patch+yaml"
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
MAX_RETRY_AFTER_RETRIES = 10  # client-go's default maxRetries
MAX_RETRY_AFTER_SECONDS = 10.0


class CallCounter:
    """Thread-safe count of API calls, by method (for results, tests and benchmarks)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_method: Counter[str] = Counter()
        self.noops = 0

    def add(self, method: str) -> None:
        """Record one call."""
        with self._lock:
            self.by_method[method] += 1

    @property
    def total(self) -> int:
        """All calls so far."""
        with self._lock:
            return sum(self.by_method.values())

    @property
    def writes(self) -> int:
        """POST, PUT, PATCH and DELETE calls so far (dry-run ones included)."""
        with self._lock:
            return sum(self.by_method[method] for method in WRITE_METHODS)

    def mark_noop(self) -> None:
        """Record that a write just sent changed nothing on the server (same resourceVersion)."""
        with self._lock:
            self.noops += 1

    @property
    def changes(self) -> int:
        """Writes so far that changed something (``writes`` less the ones marked as no-ops): what ``changed`` says."""
        with self._lock:
            return sum(self.by_method[method] for method in WRITE_METHODS) - self.noops

    def snapshot(self) -> Dict[str, int]:
        """Copy of the counts, with ``total``."""
        with self._lock:
            data = dict(self.by_method)
        data["total"] = sum(data.values())
        return data


def retry_after(status: int, headers: Mapping[str, str], body: Any) -> Optional[float]:
    """Seconds to wait before retrying, as client-go's ``checkWait``: a 429 or 5xx answer with ``Retry-After``
    (or the Status's ``details.retryAfterSeconds``); None when the answer is not to be retried."""
    if status != 429 and status < 500:
        return None
    value: Any = headers.get("Retry-After")
    if value is None and isinstance(body, dict):
        value = (body.get("details") or {}).get("retryAfterSeconds")
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


class Connection:
    """Plain REST calls against one API server, over the pool of a ``Transport``."""

    def __init__(
        self,
        transport: Transport,
        impersonate_user: Optional[str] = None,
        impersonate_groups: Optional[Sequence[str]] = None,
        request_timeout: float = 60.0,
        dry_run: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.transport = transport
        self.pool = transport.pool
        self.host = transport.host
        self.request_timeout = request_timeout
        self.dry_run = dry_run
        self.sleep = sleep
        self.calls = CallCounter()
        self.impersonate_user = impersonate_user or None  # C12: empty user disables impersonation
        self.impersonate_groups = list(impersonate_groups or []) if self.impersonate_user else []
        self._impersonation: List[Tuple[str, str]] = []
        if self.impersonate_user:
            self._impersonation.append(("Impersonate-User", self.impersonate_user))
            self._impersonation.extend(("Impersonate-Group", group) for group in self.impersonate_groups)

    def sibling(self, impersonate: bool = True, dry_run: Optional[bool] = None) -> Connection:
        """A connection on the same pool whose calls are counted apart (same identity unless ``impersonate`` is
        False: the un-impersonated identity)."""
        return Connection(
            self.transport,
            self.impersonate_user if impersonate else None,
            self.impersonate_groups if impersonate else None,
            self.request_timeout,
            self.dry_run if dry_run is None else dry_run,
            self.sleep,
        )

    def _headers(self, content_type: Optional[str], accept: Optional[str]) -> Dict[str, str]:
        headers: Dict[str, str] = {"Accept": accept or "application/json", "User-Agent": "nubes.cloud"}
        if content_type:
            headers["Content-Type"] = content_type
        authorization = self.transport.auth_header()
        if authorization:
            headers["Authorization"] = authorization
        return headers

    def _send(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]) -> Any:
        if self._impersonation:
            header_list = HTTPHeaderDict(headers)
            for key, value in self._impersonation:
                header_list.add(key, value)
            return self.pool.request(
                method, url, body=data, headers=header_list, timeout=self.request_timeout, retries=False
            )
        return self.pool.request(method, url, body=data, headers=headers, timeout=self.request_timeout, retries=False)

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        content_type: Optional[str] = None,
        accept: Optional[str] = None,
    ) -> Any:
        """One API call; returns the decoded JSON body, raises a typed ApiError on an error status."""
        params = {k: v for k, v in (query or {}).items() if v is not None}
        if self.dry_run and method in WRITE_METHODS:
            params["dryRun"] = "All"
            if method == "DELETE" and isinstance(body, dict):
                body = dict(body, dryRun=["All"])  # with DeleteOptions in the body, the server ignores the query
        url = self.host + path + ("?" + urlencode(params) if params else "")
        data = json.dumps(body).encode("utf-8") if body is not None else None
        for attempt in range(MAX_RETRY_AFTER_RETRIES + 1):
            # the auth header is read per attempt: a refreshed token (exec plugin, GKE, in-cluster) is picked up
            headers = self._headers(content_type if body is not None else None, accept)
            self.calls.add(method)
            try:
                response = self._send(method, url, data, headers)
            except urllib3.exceptions.HTTPError as exc:
                raise ConnectionFailed(
                    f"cannot reach the Kubernetes API at {self.host} ({type(exc).__name__}); check the kubeconfig "
                    "and that the API server is running"
                ) from None
            try:
                decoded = json.loads(response.data) if response.data else None
            except ValueError:
                decoded = {"message": response.data[:200].decode("utf-8", "replace")}
            if response.status < 400:
                return decoded
            wait = retry_after(response.status, response.headers, decoded)
            if wait is None or attempt == MAX_RETRY_AFTER_RETRIES:
                raise api_error(method, path, response.status, decoded if isinstance(decoded, dict) else None)
            self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover


class KubeApi:
    """Typed helpers for the calls the engine makes."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.discovery = Discovery(connection)

    @property
    def calls(self) -> CallCounter:
        """The call counter of the connection."""
        return self.connection.calls

    @property
    def dry_run(self) -> bool:
        """Writes carry ``dryRun=All``: the server validates them and persists nothing."""
        return self.connection.dry_run

    def sibling(self, impersonate: bool = True, dry_run: Optional[bool] = None) -> KubeApi:
        """A client on the same pool with its own call counter (see ``Connection.sibling``)."""
        return KubeApi(self.connection.sibling(impersonate=impersonate, dry_run=dry_run))

    def cluster_uid(self) -> str:
        """UID of the ``kube-system`` namespace: the cluster's identity in owner ids (reference 7.1)."""
        data = self.connection.request("GET", "/api/v1/namespaces/kube-system")
        return str(data["metadata"]["uid"])

    def get(self, res: ResourceInfo, namespace: str, name: str) -> Optional[Dict[str, Any]]:
        """GET one object; None when it does not exist."""
        try:
            obj = self.connection.request("GET", res.path(namespace, name))
        except NotFound:
            return None
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
        except NotFound:
            return False
        return True


def _with_type(obj: Dict[str, Any], res: ResourceInfo) -> Dict[str, Any]:
    """List items of built-in types come without apiVersion/kind; fill them in."""
    obj.setdefault("apiVersion", res.api_version)
    obj.setdefault("kind", res.kind)
    if obj.get("kind") in ("PartialObjectMetadata", ""):
        obj["apiVersion"], obj["kind"] = res.api_version, res.kind
    return obj
