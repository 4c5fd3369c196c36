"""API client: endpoint styles (P9/P10), auth, TLS, retries (P32-P34), errors and redaction."""

from __future__ import annotations

import json
from typing import Any, Callable, List, Optional
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import (
    ApiClient,
    ClientConfig,
    Redactor,
    build_url,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, OutcomeUnknownError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

TOKEN = "eyJhbGciOiJIUzI1NiJ9.secret-token-value"


def make_client(
    handler: Callable[[httpx.Request], httpx.Response], endpoint: str = "https://gw.test/api/v1/svc"
) -> tuple[ApiClient, List[float]]:
    sleeps: List[float] = []
    client = ApiClient(
        ClientConfig(endpoint, TOKEN),
        policy=RetryPolicy(scale=1),
        transport=httpx.MockTransport(handler),
        sleep=sleeps.append,
    )
    return client, sleeps


def scripted(statuses: List[int], seen: List[httpx.Request], headers: Optional[dict] = None) -> Any:
    answers = list(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status = answers.pop(0) if answers else 200
        return httpx.Response(status, json={"ERROR": f"err {status}"} if status >= 400 else {}, headers=headers)

    return handler


def test_gateway_style_appends_path() -> None:
    """P10: no index.cfm -> {endpoint}/path, query as usual."""
    url, params = build_url("https://gw.test/api/v1/svc/", "/instances", {"serviceId": 90, "page": 1})
    assert url == "https://gw.test/api/v1/svc/instances"
    assert params == {"serviceId": "90", "page": "1"}


def test_legacy_style_encodes_path_and_query_into_endpoint_param() -> None:
    """P9: index.cfm -> {endpoint}?endpoint=/path, the path and its query URL-encoded into `endpoint`."""
    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([200], seen), "https://deck.test/api/v1/index.cfm")
    client.send("GET", "/instances", {"serviceId": 90, "pageSize": 100})
    request = seen[0]
    parts = urlsplit(str(request.url))
    assert parts.path == "/api/v1/index.cfm"
    assert dict(parse_qsl(parts.query)) == {"endpoint": "/instances?serviceId=90&pageSize=100"}
    assert "endpoint=%2Finstances%3FserviceId%3D90%26pageSize%3D100" in parts.query


def test_bearer_auth_and_json_body() -> None:
    """deck-api 1.3/1.4: Authorization: Bearer <token>; JSON bodies."""
    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([201], seen))
    client.send("POST", "/instances", body={"serviceId": 90, "displayName": "x", "descr": ""})
    assert seen[0].headers["Authorization"] == "Bearer " + TOKEN
    assert seen[0].headers["Content-Type"] == "application/json"
    assert json.loads(seen[0].content) == {"serviceId": 90, "displayName": "x", "descr": ""}


def test_tls_verification_on_by_default() -> None:
    """validate_certs defaults to true."""
    assert ClientConfig("https://x.test", TOKEN).validate_certs is True


@pytest.mark.parametrize("status", [401, 429, 502, 503, 504])
def test_get_retries_transient_statuses_with_backoff(status: int) -> None:
    """P32/P33/P34: a GET answered with a transient status is retried with 2/4/8 s backoff."""
    seen: List[httpx.Request] = []
    client, sleeps = make_client(scripted([status, status, status, 200], seen))
    assert client.send("GET", "/instances/x").status == 200
    assert len(seen) == 4
    assert sleeps == [2.0, 4.0, 8.0]


def test_get_gives_up_after_three_retries() -> None:
    """P32: 3 retries, then the error answer comes back to the caller."""
    seen: List[httpx.Request] = []
    client, _sleeps = make_client(scripted([503] * 10, seen))
    assert client.send("GET", "/instances/x").status == 503
    assert len(seen) == 4


def test_retry_after_header_is_used() -> None:
    """P33: Retry-After (seconds) replaces the computed backoff."""
    seen: List[httpx.Request] = []
    client, sleeps = make_client(scripted([429, 200], seen, headers={"Retry-After": "3"}))
    client.send("GET", "/instances/x")
    assert sleeps == [3.0]


def test_post_is_never_resent_on_gateway_errors() -> None:
    """Writes are never blindly re-sent: a 502 on POST comes back once, as is."""
    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([502, 201], seen))
    assert client.send("POST", "/instances", body={}).status == 502
    assert len(seen) == 1


def test_post_rejected_by_gateway_auth_is_retried() -> None:
    """P32: a transient 401 (nothing was processed) is retried on writes too."""
    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([401, 201], seen))
    assert client.send("POST", "/instances", body={}).status == 201
    assert len(seen) == 2


def test_connection_error_on_get_is_retried() -> None:
    """P34: connection errors on GET are retried like transient statuses."""
    calls: List[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) < 3:
            raise httpx.ReadError("connection reset by peer")
        return httpx.Response(200, json={})

    client, sleeps = make_client(handler)
    assert client.send("GET", "/instances").status == 200
    assert sleeps == [2.0, 4.0]


def test_connection_lost_after_post_makes_outcome_unknown() -> None:
    """A POST whose answer is lost is not re-sent; the caller must resolve it by reading."""
    calls: List[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ReadError("connection reset by peer")

    client, _log = make_client(handler)
    with pytest.raises(OutcomeUnknownError):
        client.send("POST", "/instances", body={})
    assert len(calls) == 1


def test_unreachable_get_error_says_what_to_do() -> None:
    """Errors say what failed and what to do."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    client, _log = make_client(handler)
    with pytest.raises(ApiError) as info:
        client.send("GET", "/instances")
    assert "GET /instances" in info.value.msg and "api_endpoint" in info.value.msg


def test_error_message_carries_cfml_error_and_hint() -> None:
    """CFML `ERROR` text is part of the message, with a hint on what to do."""
    client, _log = make_client(lambda r: httpx.Response(500, json={"ERROR": "boom", "TAGCONTEXT": "x.cfc [Line 3]"}))
    response = client.send("GET", "/instances/u")
    error = client.error("reading instance u", "GET", "/instances/u", response)
    assert "reading instance u failed" in error.msg
    assert "HTTP 500: boom" in error.msg
    assert "re-run later" in error.msg


def test_token_is_redacted_from_errors() -> None:
    """Secrets never appear in messages: the token is replaced by ********."""
    client, _log = make_client(lambda r: httpx.Response(401, json={"ERROR": "bad token " + TOKEN}))
    response = client.send("GET", "/instances/u")
    error = client.error("reading", "GET", "/instances/u", response)
    assert TOKEN not in error.msg
    assert "********" in error.msg
    assert "refresh api_token" in error.msg


def test_redactor_masks_nested_values() -> None:
    """Secret params are redacted everywhere, including nested results."""
    redactor = Redactor(["hunter2-password"])
    assert redactor.value({"a": ["x hunter2-password y"], "b": 1}) == {"a": ["x ******** y"], "b": 1}


def test_reads_repeat_whole_retry_rounds_when_still_transient() -> None:
    """P32-P34 per request; beyond: a read still failing transiently gets up to 3 rounds (reads are safe)."""
    from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi

    seen: List[httpx.Request] = []
    statuses = [503] * 4 + [502] * 4 + [200]
    client, sleeps = make_client(scripted(statuses, seen))
    api = DeckApi(client)
    assert api.get_service(90) == {}
    assert len(seen) == 9
    assert sleeps == [2.0, 4.0, 8.0, 8.0, 2.0, 4.0, 8.0, 8.0]


def test_reads_give_up_after_the_last_round() -> None:
    from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi

    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([401] * 20, seen))
    with pytest.raises(ApiError, match="refresh api_token"):
        DeckApi(client).get_instance("u")
    assert len(seen) == 12


def test_writes_are_not_repeated_in_rounds() -> None:
    """Only reads get extra rounds: a POST answered 502 is sent exactly once."""
    from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi

    seen: List[httpx.Request] = []
    client, _log = make_client(scripted([502] * 5, seen))
    with pytest.raises(OutcomeUnknownError):
        DeckApi(client).create_instance(90, "x")
    assert len(seen) == 1
