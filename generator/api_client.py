"""HTTP client for the deck-api catalogue calls the generator needs (P1: specs come only from API data)."""

from __future__ import annotations

import time
from typing import Any

import httpx

from generator.errors import GeneratorError

RETRYABLE_STATUS = frozenset({401, 429, 502, 503, 504})
ATTEMPTS = 3


def is_legacy_endpoint(endpoint: str) -> bool:
    """P9: an endpoint containing ``index.cfm`` is the legacy proxy; P10: anything else is the REST gateway."""
    return "index.cfm" in endpoint


def request_target(endpoint: str, path: str) -> tuple[str, dict[str, str]]:
    """URL and query parameters for an API path in the endpoint's style (P9/P10)."""
    if is_legacy_endpoint(endpoint):
        return endpoint.split("?", 1)[0], {"endpoint": path}  # P9: {endpoint}?endpoint=/path
    return endpoint.rstrip("/") + path, {}  # P10: direct concatenation


class CatalogueClient:
    """Reads ``/services/{id}`` and ``/serviceOperation/{id}``; retries transient errors (401/429/5xx)."""

    def __init__(
        self,
        endpoint: str,
        token: str,
        *,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
        backoff: float = 0.5,
    ) -> None:
        if not endpoint:
            raise GeneratorError("no API endpoint: pass --endpoint or set NUBES_API_ENDPOINT")
        if not token:
            raise GeneratorError("no API token: pass --token or set NUBES_API_TOKEN")
        self.endpoint = endpoint
        self._backoff = backoff
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        """Release the connection pool."""
        self._client.close()

    def __enter__(self) -> CatalogueClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def get_json(self, path: str) -> Any:
        """GET an API path and decode its JSON body; the error message never contains the token."""
        url, params = request_target(self.endpoint, path)
        last_problem = ""
        for attempt in range(ATTEMPTS):
            if attempt:
                time.sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = self._client.get(url, params=params)
            except httpx.HTTPError as exc:
                last_problem = f"{type(exc).__name__}: {exc}"
                continue
            if response.status_code in RETRYABLE_STATUS:
                last_problem = f"HTTP {response.status_code}"
                continue
            if response.status_code != 200:
                raise GeneratorError(
                    f"GET {path} at {self.endpoint} failed with HTTP {response.status_code}: {response.text[:300]}"
                )
            try:
                return response.json()
            except ValueError as exc:
                raise GeneratorError(f"GET {path} at {self.endpoint} returned a body that is not JSON") from exc
        hint = " (check the token: NUBES_API_TOKEN / --token)" if last_problem == "HTTP 401" else ""
        raise GeneratorError(f"GET {path} at {self.endpoint} failed after {ATTEMPTS} attempts: {last_problem}{hint}")

    def service(self, service_id: int) -> dict[str, Any]:
        """``GET /services/{id}`` -> the ``svc`` object."""
        return _unwrap(self.get_json(f"/services/{service_id}"), "svc", f"/services/{service_id}")

    def service_operation(self, svc_operation_id: int) -> dict[str, Any]:
        """``GET /serviceOperation/{id}`` -> the ``svcOperation`` object."""
        path = f"/serviceOperation/{svc_operation_id}"
        return _unwrap(self.get_json(path), "svcOperation", path)


def _unwrap(body: Any, key: str, path: str) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get(key), dict):
        raise GeneratorError(f"GET {path}: expected a JSON object with key {key!r}")
    value: dict[str, Any] = body[key]
    return value
