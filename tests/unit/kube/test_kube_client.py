"""Unit tests of the Kubernetes access layer's REST client: typed errors, 429/Retry-After as client-go, dry-run
on every write, the call counter. The pool answers exactly what a kube-apiserver answers (status, headers, a
``Status`` body)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import Connection, KubeApi, retry_after
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import CONFIG_MAPS
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import (
    ApiError,
    Conflict,
    Forbidden,
    NotFound,
    api_error,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.transport import Transport

STORAGE_INITIALISING = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": "storage is (re)initializing",
    "reason": "TooManyRequests",
    "details": {"retryAfterSeconds": 1},
    "code": 429,
}


class Response:
    def __init__(self, status: int, body: Optional[Dict[str, Any]] = None, headers: Optional[Dict[str, str]] = None):
        self.status = status
        self.data = json.dumps(body).encode() if body is not None else b""
        self.headers = headers or {}


class Pool:
    """Answers requests from a script; records (method, url)."""

    def __init__(self, answers: List[Response]) -> None:
        self.answers = list(answers)
        self.requests: List[Tuple[str, str]] = []
        self.bodies: List[Any] = []

    def request(self, method: str, url: str, body: Any = None, **_kwargs: Any) -> Response:
        self.requests.append((method, url))
        self.bodies.append(json.loads(body) if body else None)
        return self.answers.pop(0)


def client(answers: List[Response], dry_run: bool = False) -> Tuple[KubeApi, Pool, List[float]]:
    pool = Pool(answers)
    sleeps: List[float] = []
    transport = Transport("https://127.0.0.1:6443", pool, lambda: "Bearer t")
    api = KubeApi(Connection(transport, dry_run=dry_run, sleep=sleeps.append))
    return api, pool, sleeps


def test_429_with_retry_after_is_retried_as_client_go() -> None:
    """A 429 'storage is (re)initializing' with Retry-After is waited out and retried; the read succeeds."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "ns"}}
    api, pool, sleeps = client(
        [
            Response(429, STORAGE_INITIALISING, {"Retry-After": "1"}),
            Response(429, STORAGE_INITIALISING),
            Response(200, cm),
        ]
    )
    assert api.get(CONFIG_MAPS, "ns", "a") == cm
    assert sleeps == [1.0, 1.0]  # the second answer had only details.retryAfterSeconds
    assert len(pool.requests) == 3 and api.calls.snapshot() == {"GET": 3, "total": 3}


def test_writes_honour_retry_after_too() -> None:
    """Writes are retried on 429/5xx with Retry-After (the server did not act on them), as client-go does."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    api, _pool, sleeps = client([Response(503, {"message": "x"}, {"Retry-After": "2"}), Response(201, body)])
    assert api.create(CONFIG_MAPS, "ns", body)["metadata"]["name"] == "a"
    assert sleeps == [2.0]


def test_no_retry_without_retry_after_and_after_ten_retries() -> None:
    """Without Retry-After nothing is retried here (the caller's loop decides); client-go's limit is 10 retries."""
    api, _pool, _sleeps = client([Response(429, {"message": "slow down", "reason": "TooManyRequests"})])
    with pytest.raises(ApiError) as err:
        api.get(CONFIG_MAPS, "ns", "a")
    assert err.value.status == 429 and err.value.retriable
    api, pool, sleeps = client([Response(429, STORAGE_INITIALISING, {"Retry-After": "1"})] * 11)
    with pytest.raises(ApiError):
        api.get(CONFIG_MAPS, "ns", "a")
    assert len(pool.requests) == 11 and len(sleeps) == 10


def test_retry_after_rules() -> None:
    """checkWait: only 429 and 5xx; the header or details.retryAfterSeconds; capped at 10 s."""
    assert retry_after(404, {"Retry-After": "1"}, None) is None
    assert retry_after(500, {"Retry-After": "3"}, None) == 3.0
    assert retry_after(429, {}, {"details": {"retryAfterSeconds": 120}}) == 10.0
    assert retry_after(429, {}, {"message": "no hint"}) is None


def test_typed_errors() -> None:
    """409, 404 and 403 are Conflict, NotFound and Forbidden with the server's message."""
    forbidden = {"message": 'configmaps "a" is forbidden: User "carol" cannot get resource', "reason": "Forbidden"}
    api, _pool, _sleeps = client([Response(403, forbidden), Response(409, {"reason": "AlreadyExists"})])
    with pytest.raises(Forbidden, match='User "carol" cannot get'):
        api.get(CONFIG_MAPS, "ns", "a")
    with pytest.raises(Conflict):
        api.create(CONFIG_MAPS, "ns", {"metadata": {"name": "a"}})
    api, _pool, _sleeps = client([Response(404, {"reason": "NotFound"})])
    assert api.get(CONFIG_MAPS, "ns", "a") is None
    assert isinstance(api_error("GET", "/x", 404), NotFound)


def test_schema_errors_are_permanent() -> None:
    """SSA's HTTP 500 'field not declared in schema' (and 400/422) are not retriable; other 500s are."""
    typo = {
        "message": "failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): "
        ".spec.replicass: field not declared in schema",
        "reason": "InternalError",
    }
    assert not api_error("PATCH", "/x", 500, typo).retriable
    assert api_error("PATCH", "/x", 500, typo).is_schema_error
    assert not api_error("POST", "/x", 422, {"reason": "Invalid"}).retriable
    assert api_error("GET", "/x", 500, {"message": "etcdserver: request timed out"}).retriable


def test_dry_run_marks_every_write_and_no_read() -> None:
    """Check mode: every POST/PUT/PATCH/DELETE carries dryRun=All (kubernetes.core _ensure_dry_run); GETs do not."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    api, pool, _sleeps = client([Response(200, cm)] * 5, dry_run=True)
    api.get(CONFIG_MAPS, "ns", "a")
    api.create(CONFIG_MAPS, "ns", cm)
    api.replace(CONFIG_MAPS, "ns", "a", cm)
    api.server_side_apply(CONFIG_MAPS, "ns", "a", cm, "mgr", force=True)
    api.delete(CONFIG_MAPS, "ns", "a")
    assert "dryRun" not in pool.requests[0][1]
    assert pool.bodies[-1]["dryRun"] == ["All"]  # DeleteOptions in the body win over the query
    assert all("dryRun=All" in url for _method, url in pool.requests[1:])
    assert api.calls.writes == 4
    assert not api.sibling(dry_run=False).dry_run and api.sibling().dry_run
