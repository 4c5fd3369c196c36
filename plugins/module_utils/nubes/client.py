# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP transport of the deck-api: endpoint styles, bearer auth, TLS, retries, errors, redaction.

- P9: an endpoint containing `index.cfm` is the legacy proxy: `{endpoint}?endpoint=/path`, the path
  and its own query string URL-encoded into the `endpoint` parameter.
- P10: any other endpoint is the REST gateway: `{endpoint}/path`.
- P32-P34: retries as decided by :class:`RetryPolicy`.
Secrets (the token and secret param values) are redacted from every message this module produces.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

try:
    import httpx

    HAS_HTTPX = True
except ImportError:  # pragma: no cover - reported by the runner with a clear message
    HAS_HTTPX = False

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, NubesError, OutcomeUnknownError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

REDACTED = "********"
MAX_BODY_IN_MESSAGE = 500


class Redactor:
    """Replaces every registered secret with `********` in any text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: List[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: Optional[str]) -> None:
        if secret and len(secret) >= 3 and secret not in self._secrets:
            self._secrets.append(secret)
            self._secrets.sort(key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def value(self, data: Any) -> Any:
        """Redact strings inside nested dicts/lists."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, dict):
            return {k: self.value(v) for k, v in data.items()}
        if isinstance(data, list):
            return [self.value(v) for v in data]
        return data


class ApiResponse:
    """A decoded answer: status, headers, JSON body (None when not JSON) and the raw text."""

    def __init__(self, status: int, headers: Mapping[str, str], text: str) -> None:
        self.status = status
        self.headers = headers
        self.text = text
        self.body: Any = None
        if text.strip():
            try:
                self.body = json.loads(text)
            except ValueError:
                self.body = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def header(self, name: str) -> Optional[str]:
        value = self.headers.get(name)
        return value if value is None else str(value)

    def cfml_error(self) -> str:
        """The CFML layer's `ERROR` text (`{"ERROR": ..., "TAGCONTEXT": ...}`), or a generic message."""
        body = self.body
        if isinstance(body, dict):
            for key in ("ERROR", "error", "message", "Message", "detail"):
                if body.get(key):
                    return str(body[key])
        return self.text.strip()[:MAX_BODY_IN_MESSAGE]


class ClientConfig:
    """Connection settings from the common options."""

    def __init__(
        self,
        endpoint: str,
        token: str,
        validate_certs: bool = True,
        ca_path: Optional[str] = None,
        timeout: float = 60.0,
    ) -> None:
        self.endpoint = endpoint.rstrip("/") if "index.cfm" not in endpoint else endpoint
        self.token = token
        self.validate_certs = validate_certs
        self.ca_path = ca_path
        self.timeout = timeout

    @property
    def legacy(self) -> bool:
        """P9: the endpoint style is decided by the configured endpoint."""
        return "index.cfm" in self.endpoint


def build_url(endpoint: str, path: str, query: Optional[Mapping[str, Any]] = None) -> Tuple[str, Dict[str, str]]:
    """URL and query parameters for `path` in the endpoint's style (P9/P10)."""
    from urllib.parse import urlencode

    query_items = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
    if "index.cfm" in endpoint:  # P9: legacy proxy
        full = path + ("?" + urlencode(query_items) if query_items else "")
        return endpoint, {"endpoint": full}
    return endpoint.rstrip("/") + path, query_items  # P10: gateway


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class ApiClient:
    """Sends requests with retries; answers come back as :class:`ApiResponse` whatever their status."""

    def __init__(
        self,
        config: ClientConfig,
        redactor: Optional[Redactor] = None,
        policy: Optional[RetryPolicy] = None,
        transport: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not HAS_HTTPX:
            raise NubesError("the Python library httpx is required on the target host: pip install 'httpx>=0.28'")
        self.config = config
        self.redactor = redactor or Redactor()
        self.redactor.add(config.token)
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        verify: Any = config.validate_certs
        if not config.endpoint.lower().startswith("https://"):
            verify = False  # plain HTTP: no TLS to verify, so skip loading a CA bundle (~60 ms per module run)
        elif config.validate_certs and config.ca_path:
            verify = ca_context(config.ca_path)
        kwargs: Dict[str, Any] = {"timeout": config.timeout, "verify": verify}
        if transport is not None:
            kwargs["transport"] = transport
        self._http = httpx.Client(**kwargs)
        self.request_count = 0

    def close(self) -> None:
        self._http.close()

    def describe(self, method: str, path: str) -> str:
        return f"{method.upper()} {path}"

    def send(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
    ) -> ApiResponse:
        """Send one logical request, retrying per the policy (P32-P34).

        Raises OutcomeUnknownError when a write was (possibly) sent and no answer came back, and
        ApiError when a read could not get any answer after all retries.
        """
        method = method.upper()
        url, params = build_url(self.config.endpoint, path, query)
        headers = {"Authorization": "Bearer " + self.config.token, "Accept": "application/json"}
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(body)
        attempt = 0
        while True:
            sent = False
            try:
                self.request_count += 1
                request = self._http.build_request(method, url, params=params, headers=headers, content=content)
                sent = True
                raw = self._http.send(request)
            except httpx.TransportError as exc:
                not_sent = isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout))
                if self.policy.retry_transport_error(method, sent and not not_sent, attempt):
                    self.sleep(self.policy.delay(attempt))
                    attempt += 1
                    continue
                reason = self.redactor(f"{type(exc).__name__}: {exc}")
                if method in ("GET", "HEAD") or not_sent:
                    raise ApiError(
                        f"cannot reach the Nubes API for {self.describe(method, path)} ({reason}) after {attempt + 1} "
                        "attempts; check api_endpoint, the network and TLS settings (validate_certs, ca_path), "
                        "then re-run"
                    ) from None
                what = self.describe(method, path)
                raise OutcomeUnknownError(f"the outcome of {what} is unknown ({reason})") from None
            response = ApiResponse(raw.status_code, raw.headers, raw.text)
            if self.policy.retry_status(method, response.status, attempt):
                self.sleep(self.policy.delay(attempt, response.header("Retry-After")))
                attempt += 1
                continue
            return response

    def error(self, what: str, method: str, path: str, response: ApiResponse, hint: str = "") -> ApiError:
        """An ApiError whose message says what failed, the API's own error text and what to do."""
        status = response.status
        if not hint:
            hint = hint_for_status(status)
        api_text = response.cfml_error() or "(empty body)"
        msg = f"{what} failed: {self.describe(method, path)} answered HTTP {status}: {api_text}"
        if hint:
            msg += ". " + hint
        error_cls = OutcomeUnknownError if method.upper() != "GET" and status in (502, 503, 504) else ApiError
        return error_cls(self.redactor(msg), status=status)


def ca_context(ca_path: str) -> Any:
    """An SSL context trusting the CA bundle file or hashed CA directory `ca_path` (httpx deprecates a path)."""
    import os
    import ssl

    try:
        if os.path.isdir(ca_path):
            return ssl.create_default_context(capath=ca_path)
        return ssl.create_default_context(cafile=ca_path)
    except (OSError, ssl.SSLError) as exc:
        raise NubesError(
            f"cannot load the CA certificates of ca_path {ca_path!r} ({exc}); give a PEM bundle file or a "
            "directory of hashed CA certificates, or leave ca_path unset to use the system CAs"
        ) from None


def hint_for_status(status: int) -> str:
    """What the user should do about an HTTP status."""
    if status == 401:
        return "The API token was rejected: refresh api_token (NUBES_API_TOKEN) and re-run"
    if status == 403:
        return "The token lacks permission for this call: use a token of an account with access"
    if status == 404:
        return "The object does not exist: check the uid, or remove it from the task to create a new one"
    if status == 429:
        return "The API is rate limiting: wait a minute and re-run"
    if status >= 500:
        return "The API has a server-side problem: re-run later; if it persists, contact Nubes support"
    return "Check the task's parameters against the module documentation"
