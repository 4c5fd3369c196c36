# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP transport of the deck-api: endpoint styles, bearer auth, TLS, retries, errors, redaction.

- P9: an endpoint containing `index.cfm` is the legacy proxy: `{endpoint}?endpoint=/path`, the path
  and its own query string URL-encoded into the `endpoint` parameter.
- P10: any other endpoint is the REST gateway: `{endpoint}/path`.
- P32-P34: retries as decided by :class:`RetryPolicy`. The client is the only layer that retries: every
  extra round beyond the seed's comes out of the task's one :class:`RetryBudget` (retry.py).
- Only deck-api answers are believed: a redirect, a body that is not JSON, a non-JSON content type or a 404
  without the API's CFML error body (`{"ERROR": ..., "TAGCONTEXT": ...}`, deck-api.md 1.4) raises
  NotDeckApiError naming the endpoint; and before the first write of a task the endpoint must have answered
  as the deck-api (else the instance collection is read first), so a login page or another server never
  receives a write.
Secrets (the token and secret param values) are redacted from every message this module produces.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    ApiError,
    NotDeckApiError,
    NubesError,
    OutcomeUnknownError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import (
    OUTCOME_UNKNOWN_WRITE_STATUSES,
    READ_METHODS,
    RetryPolicy,
    attempts_text,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.sealed import PREFIX as SEALED_PREFIX

# Module start-up (issue 19): `httpx/__init__.py` runs `from ._main import main`, its command-line client, which
# imports rich, click and pygments whenever they are installed (any venv with ansible-lint or molecule), 0.05-0.08 s
# of every module run. httpx catches that ImportError and defines a stub `main()`; a None entry in sys.modules makes
# the import fail without loading anything. The entry is removed again, so only this process's httpx.main is the stub.
_SKIP_HTTPX_CLI = "httpx" not in sys.modules and "httpx._main" not in sys.modules
if _SKIP_HTTPX_CLI:
    sys.modules["httpx._main"] = None  # type: ignore[assignment]
try:
    import httpx

    HAS_HTTPX = True
except ImportError:  # pragma: no cover - reported by the runner with a clear message
    HAS_HTTPX = False
finally:
    if _SKIP_HTTPX_CLI:
        del sys.modules["httpx._main"]

REDACTED = "********"
MAX_BODY_IN_MESSAGE = 500
SNIPPET_LENGTH = 80
# Statuses a gateway or proxy in front of the deck-api answers itself, often with an HTML page: they are not
# checked for the deck-api's JSON (the retry rules and the status hints handle them).
GATEWAY_STATUSES = frozenset((401, 429, 500, 502, 503, 504))
# The read that shows an endpoint is the deck-api: the instance collection exists on every deck-api (2.1).
PROBE_PATH = "/instances"
PROBE_QUERY = {"page": 1, "pageSize": 1}
COLLECTION_404 = "HTTP 404 for the instance collection, which every deck-api has"
EXAMPLE_ENDPOINTS = (
    "https://lk-api-gateway.ngcloud.ru/api/v1/svc (gateway) or https://deck-api.ngcloud.ru/api/v1/index.cfm"
)


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
        """Redact strings inside nested dicts/lists; a sealed secret output holds no clear text and is left whole
        (issue 24: a short registered secret could match inside its base64)."""
        if isinstance(data, str):
            return data if data.startswith(SEALED_PREFIX) else self(data)
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
        self.attempts = 1  # requests sent for this answer (the first and the retries)
        self.elapsed = 0.0  # seconds from the first request's start to this answer (requests and waits, measured)
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

    @property
    def media_type(self) -> str:
        """The Content-Type without parameters, lower case ("" when absent)."""
        return (self.header("Content-Type") or "").split(";", 1)[0].strip().lower()

    def is_json(self) -> bool:
        """A JSON body under a JSON content type (or none); an empty body counts as JSON (a 201 with Location)."""
        if not self.text.strip():
            return True
        media = self.media_type
        return self.body is not None and (not media or "json" in media)

    def is_cfml_error(self) -> bool:
        """The deck-api's own error body: `{"ERROR": "<message>", ...}` (deck-api.md 1.4)."""
        return isinstance(self.body, dict) and "ERROR" in self.body

    def snippet(self) -> str:
        """The start of the body on one line, for messages."""
        text = " ".join(self.text.split())
        return text[:SNIPPET_LENGTH] + ("..." if len(text) > SNIPPET_LENGTH else "")

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
    """Sends requests with retries; answers come back as :class:`ApiResponse` whatever their status, once they are
    known to come from the deck-api."""

    def __init__(
        self,
        config: ClientConfig,
        redactor: Optional[Redactor] = None,
        policy: Optional[RetryPolicy] = None,
        transport: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not HAS_HTTPX:
            raise NubesError("the Python library httpx is required on the target host: pip install 'httpx>=0.28'")
        self.config = config
        self.redactor = redactor or Redactor()
        self.redactor.add(config.token)
        self.policy = policy or RetryPolicy()
        self.budget = self.policy.new_budget()  # one per task: the client lives as long as the task
        self.sleep = sleep
        self.clock = clock
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
        # Set once a write may have changed the cloud: answered 2xx or 5xx, or sent without an answer. The task then
        # reports changed=true, also when it fails later (a create past wait_timeout still created an instance).
        self.wrote = False
        # Set by the first 2xx JSON answer to a read: the endpoint is the deck-api and accepts the token.
        self.deck_api_confirmed = False

    def close(self) -> None:
        self._http.close()

    def describe(self, method: str, path: str) -> str:
        return f"{method.upper()} {path}"

    @property
    def endpoint_text(self) -> str:
        """The endpoint for messages, without any user:password part."""
        return _without_userinfo(self.config.endpoint)

    def send(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
    ) -> ApiResponse:
        """Send one logical request, retrying per the policy (P32-P34) and, for reads on a confirmed endpoint,
        in extra rounds paid from the task's budget.

        Raises OutcomeUnknownError when a write was (possibly) sent and no answer came back, ApiError when a read
        could not get any answer, and NotDeckApiError when the answer does not come from the deck-api.
        """
        method = method.upper()
        if method not in READ_METHODS:
            self.confirm_deck_api()  # never write to an endpoint that has not answered as the deck-api
        url, params = build_url(self.config.endpoint, path, query)
        headers = {"Authorization": "Bearer " + self.config.token, "Accept": "application/json"}
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(body)
        attempt = 0
        started = self.clock()
        while True:
            sent = False
            began = self.clock()
            try:
                self.request_count += 1
                request = self._http.build_request(method, url, params=params, headers=headers, content=content)
                sent = True
                raw = self._http.send(request)
            except httpx.TransportError as exc:
                not_sent = isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout))
                # issue 24 (beyond P34): a request that got no answer costs the task's budget the time it took, and is
                # retried only while the budget is not used up (a dead end is bounded by it; a refusal costs nothing)
                self.budget.spend(self.clock() - began)
                pause = None
                if not self.budget.used_up:
                    pause = self._retry_pause(method, attempt, None, sent and not not_sent)
                if pause is not None:
                    self.sleep(pause)
                    attempt += 1
                    continue
                if method not in READ_METHODS and not not_sent:
                    self.wrote = True  # outcome unknown: it may have been processed
                raise self._no_answer(method, path, exc, not_sent, attempt + 1, self.clock() - started) from None
            if method not in READ_METHODS and (raw.status_code < 400 or raw.status_code >= 500):
                self.wrote = True
            response = ApiResponse(raw.status_code, raw.headers, raw.text)
            response.attempts = attempt + 1
            response.elapsed = self.clock() - started
            pause = self._retry_pause(method, attempt, response.status, False, response.header("Retry-After"))
            if pause is not None:
                self.sleep(pause)
                attempt += 1
                continue
            self._check_deck_api(method, path, response)
            return response

    def _retry_pause(
        self, method: str, attempt: int, status: Optional[int], sent: bool, retry_after: Optional[str] = None
    ) -> Optional[float]:
        """Seconds to wait before the next attempt, or None to stop. P32-P34 first (`attempt` is 0-based); then,
        beyond the seed, extra rounds for reads still failing transiently on an endpoint that has answered as the
        deck-api in this task (so a dead end still fails after the seed's 4 attempts), paid from the budget."""
        policy = self.policy
        if status is None:
            retry = policy.retry_transport_error(method, sent, attempt)
        else:
            retry = policy.retry_status(method, status, attempt)
        if retry:
            return policy.delay(attempt, retry_after)
        if attempt < policy.max_retries or not self.deck_api_confirmed or not policy.extra_round(method, status):
            return None
        cost = policy.nominal_delay(policy.max_retries - 1, retry_after)
        return cost * policy.scale if self.budget.take(cost) else None

    def _no_answer(
        self, method: str, path: str, exc: Exception, not_sent: bool, attempts: int, elapsed: float
    ) -> ApiError:
        reason = self.redactor(f"{type(exc).__name__}: {exc}")
        what = self.describe(method, path)
        if method in READ_METHODS or not_sent:
            return ApiError(
                f"cannot reach the Nubes API at {self.endpoint_text} for {what} ({reason}) "
                f"{attempts_text(attempts, elapsed)}; check api_endpoint (NUBES_API_ENDPOINT: scheme, host, port), "
                "the network or proxy, and the TLS settings (validate_certs, ca_path), then re-run"
            )
        return OutcomeUnknownError(f"the outcome of {what} is unknown ({reason})")

    def _check_deck_api(self, method: str, path: str, response: ApiResponse) -> None:
        """Raise NotDeckApiError unless the answer can come from the deck-api; note a confirmed endpoint."""
        status = response.status
        if status in GATEWAY_STATUSES:
            return
        why = ""
        if 300 <= status < 400:
            location = response.header("Location") or "nowhere"
            why = f"HTTP {status}, a redirect to {_without_userinfo(location)} (a login page or a proxy?)"
        elif not response.is_json():
            media = response.media_type or "no content type"
            why = f"HTTP {status} with {media}, not JSON ({response.snippet()!r})"
        elif status == 404 and not response.is_cfml_error():
            why = f"HTTP 404 without the deck-api's error body ({response.snippet() or 'empty'!r})"
        if why:
            raise self.not_deck_api(method, path, why)
        if response.ok and method in READ_METHODS and isinstance(response.body, dict):
            self.deck_api_confirmed = True

    def not_deck_api(self, method: str, path: str, why: str) -> NotDeckApiError:
        """The error for an answer that does not come from the deck-api (names the endpoint and what to do)."""
        done = "nothing was written" if method.upper() in READ_METHODS else "the request may have reached it"
        return NotDeckApiError(
            self.redactor(
                f"{self.describe(method, path)} at {self.endpoint_text} answered {why}: this endpoint is not the "
                f"Nubes deck-api ({done}). Set api_endpoint (NUBES_API_ENDPOINT) to the API's base URL, e.g. "
                f"{EXAMPLE_ENDPOINTS}"
            )
        )

    def confirm_deck_api(self) -> None:
        """Make sure the endpoint is the deck-api: unless an answer in this task already showed it, read the
        instance collection (one GET). Callers use it before believing a 404 and before the first write."""
        if self.deck_api_confirmed:
            return
        response = self.send("GET", PROBE_PATH, PROBE_QUERY)
        if response.status == 404:
            raise self.not_deck_api("GET", PROBE_PATH, COLLECTION_404)
        if not response.ok:
            raise self.error("checking the endpoint", "GET", PROBE_PATH, response)
        body = response.body
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            raise self.not_deck_api(
                "GET", PROBE_PATH, f"HTTP {response.status} without the deck-api's list ({response.snippet()!r})"
            )

    def error(self, what: str, method: str, path: str, response: ApiResponse, hint: str = "") -> ApiError:
        """An ApiError whose message says what failed, the API's own error text, how often it was tried and what
        to do."""
        status = response.status
        if not hint:
            hint = self.hint_for(status)
        api_text = response.cfml_error() or "(empty body)"
        msg = f"{what} failed: {self.describe(method, path)} answered HTTP {status}: {api_text}"
        if response.attempts > 1:
            msg += f" ({attempts_text(response.attempts, response.elapsed)})"
        if hint:
            msg += ". " + hint
        error_cls = ApiError
        if method.upper() not in READ_METHODS and status in OUTCOME_UNKNOWN_WRITE_STATUSES:
            error_cls = OutcomeUnknownError
        return error_cls(self.redactor(msg), status=status)

    def hint_for(self, status: int) -> str:
        """What the user should do about an HTTP status, naming this endpoint where it matters."""
        if status == 401:
            if self.deck_api_confirmed:
                return (
                    "The API accepted the token earlier in this task and now rejects it: it has probably expired. "
                    "Refresh api_token (NUBES_API_TOKEN) and re-run"
                )
            return (
                f"The API at {self.endpoint_text} rejected the token. Check that api_token (NUBES_API_TOKEN) is a "
                "current access token (tokens expire: copy a fresh one), that it was issued for this endpoint "
                "(api_endpoint), and that this host's clock is right (token lifetimes are checked against it)"
            )
        return hint_for_status(status)


def _without_userinfo(url: str) -> str:
    """`https://user:pw@host/x` -> `https://host/x` (messages never show credentials)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


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
