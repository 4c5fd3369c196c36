"""API client: endpoint styles (P9/P10), auth, TLS, retries (P32-P34), errors and redaction."""

from __future__ import annotations

import json
from typing import Any, Callable, List, Optional
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import (
    ApiClient,
    ClientConfig,
    Redactor,
    build_url,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import (
    ApiError,
    NotDeckApiError,
    OutcomeUnknownError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

TOKEN = "eyJhbGciOiJIUzI1NiJ9.secret-token-value"


def make_client(
    handler: Callable[[httpx.Request], httpx.Response],
    endpoint: str = "https://gw.test/api/v1/svc",
    policy: Optional[RetryPolicy] = None,
) -> tuple[ApiClient, List[float]]:
    sleeps: List[float] = []
    client = ApiClient(
        ClientConfig(endpoint, TOKEN),
        policy=policy or RetryPolicy(scale=1),
        transport=httpx.MockTransport(handler),
        sleep=sleeps.append,
        clock=lambda: sum(sleeps),  # the mock answers at once: only the waits take time
    )
    return client, sleeps


def is_probe(request: httpx.Request) -> bool:
    """The client's read of the instance collection before a task's first write (or to confirm a 404)."""
    collection = request.url.path.endswith("/instances")
    return request.method == "GET" and collection and request.url.params.get("pageSize") == "1"


LIST_BODY = {"results": [], "total": 0}
UID = "3A021B21-0C4E-4F4B-9C3E-2B0D1E5F6A70"  # issue 24: only a UUID goes into a URL


def scripted(statuses: List[int], seen: List[httpx.Request], headers: Optional[dict] = None) -> Any:
    """Answers with the scripted statuses in turn (200 when they run out); the collection probe is answered as the
    deck-api does and is not recorded in `seen`."""
    answers = list(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        if is_probe(request):
            return httpx.Response(200, json=LIST_BODY)
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
        if is_probe(request):
            return httpx.Response(200, json=LIST_BODY)
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
    assert "api_token" in error.msg and "clock" in error.msg


def test_redactor_masks_nested_values() -> None:
    """Secret params are redacted everywhere, including nested results."""
    redactor = Redactor(["hunter2-password"])
    assert redactor.value({"a": ["x hunter2-password y"], "b": 1}) == {"a": ["x ******** y"], "b": 1}


def test_dead_end_401_fails_after_the_seed_s_four_attempts() -> None:
    """P32/P33 (issue 16): a wrong token fails after 4 attempts (2/4/8 s, 14 s of waiting, under 20 s); the
    message counts them truthfully and says what to check: token, endpoint, clock."""
    seen: List[httpx.Request] = []
    client, sleeps = make_client(scripted([401] * 20, seen))
    with pytest.raises(ApiError) as info:
        DeckApi(client).get_instance(UID)
    assert len(seen) == 4
    assert sleeps == [2.0, 4.0, 8.0]
    msg = info.value.msg
    assert "after 4 attempts over 14 s" in msg
    assert "api_token" in msg and "https://gw.test/api/v1/svc" in msg and "clock" in msg


def test_unreachable_endpoint_fails_after_four_attempts() -> None:
    """P34 (issue 16): connection errors on a never-reached endpoint get the seed's retries only, and the message
    names the endpoint and the attempts."""
    calls: List[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ConnectError("connection refused")

    client, sleeps = make_client(handler)
    with pytest.raises(ApiError) as info:
        DeckApi(client).list_instances(90)
    assert len(calls) == 4 and sleeps == [2.0, 4.0, 8.0]
    assert "cannot reach the Nubes API at https://gw.test/api/v1/svc" in info.value.msg
    assert "after 4 attempts over 14 s" in info.value.msg


class Blackhole:
    """A fake clock and an endpoint whose every request runs into the client's timeout: each attempt takes
    `timeout` seconds of the clock, each wait its seconds."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.now = 0.0
        self.attempts = 0
        self.sleeps: List[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.attempts += 1
        self.now += self.timeout
        raise httpx.ReadTimeout("timed out", request=request)

    def client(self, budget: float) -> ApiClient:
        return ApiClient(
            ClientConfig("https://gw.test/api/v1/svc", TOKEN, timeout=self.timeout),
            policy=RetryPolicy(scale=1, budget_seconds=budget),
            transport=httpx.MockTransport(self.handler),
            sleep=self.sleep,
            clock=lambda: self.now,
        )


def test_blackholed_endpoint_is_retried_inside_the_budget_with_the_true_time() -> None:
    """Issue 24 (P34): each request that gets no answer costs the task's budget the time it took, and is retried only
    while the budget is not used up: at the defaults (request_timeout 60 s, budget 120 s) a blackholed endpoint
    fails after 2 attempts and 122 s (before: 4 attempts, 254 s, "over 14 s"); the message states the real time."""
    dead = Blackhole(60.0)
    client = dead.client(120.0)
    with pytest.raises(ApiError) as info:
        client.send("GET", "/instances/u")
    assert dead.attempts == 2 and dead.sleeps == [2.0]
    assert "after 2 attempts over 122 s" in info.value.msg
    assert client.budget.used_up


def test_attempts_at_a_blackholed_endpoint_are_ceil_of_budget_over_timeout() -> None:
    """Issue 24: the documented count, min(4, ceil(budget / request_timeout)) attempts, for timeouts that divide the
    budget and ones that do not, with real clocks' overshoot (each timeout fires a little late)."""
    for timeout, attempts in ((60.005, 2), (50.0, 3), (40.001, 3), (30.0, 4), (20.0, 4)):
        dead = Blackhole(timeout)
        with pytest.raises(ApiError):
            dead.client(120.0).send("GET", "/instances/u")
        assert dead.attempts == attempts, timeout


def test_a_short_timeout_keeps_the_seed_s_attempts_and_counts_their_time() -> None:
    """Issue 24 (P34): with request_timeout 10 the budget (120 s) pays for all 4 attempts; the message counts the
    40 s spent in the requests and the 14 s of waiting between them."""
    dead = Blackhole(10.0)
    with pytest.raises(ApiError) as info:
        dead.client(120.0).send("GET", "/instances/u")
    assert dead.attempts == 4 and dead.sleeps == [2.0, 4.0, 8.0]
    assert "after 4 attempts over 54 s" in info.value.msg


def test_a_single_long_attempt_states_its_time() -> None:
    """Issue 24: a request_timeout longer than the budget: one attempt, and the message says how long it took."""
    dead = Blackhole(300.0)
    with pytest.raises(ApiError) as info:
        dead.client(120.0).send("GET", "/instances/u")
    assert dead.attempts == 1 and "after 1 attempt of 300 s" in info.value.msg


def confirmed(statuses: List[int], seen: List[httpx.Request], budget: float = 120.0) -> tuple[ApiClient, List[float]]:
    """A client whose endpoint has answered as the deck-api once (one 200 read), then answers `statuses`."""
    client, sleeps = make_client(scripted([200, *statuses], seen), policy=RetryPolicy(scale=1, budget_seconds=budget))
    assert client.send("GET", "/services/90").status == 200
    assert client.deck_api_confirmed
    return client, sleeps


def test_reads_get_extra_rounds_from_the_budget_on_a_confirmed_endpoint() -> None:
    """Beyond P32-P34: a read still transient after its retries, on an endpoint that answered as the deck-api in
    this task, gets extra rounds (every 8 s) paid from the task's budget."""
    seen: List[httpx.Request] = []
    client, sleeps = confirmed([503] * 6, seen)
    assert DeckApi(client).get_service(90) == {}
    assert len(seen) == 1 + 7
    assert sleeps == [2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert client.budget.spent == 24.0


def test_extra_rounds_stop_when_the_budget_is_used_up() -> None:
    """One total budget: extra rounds stop when it cannot pay the next wait; the message counts every attempt."""
    seen: List[httpx.Request] = []
    client, sleeps = confirmed([503] * 50, seen, budget=20.0)
    with pytest.raises(ApiError) as info:
        DeckApi(client).get_service(90)
    assert sleeps == [2.0, 4.0, 8.0, 8.0, 8.0]  # the seed's 14 s, then 2 extra rounds (16 of the 20 s)
    assert len(seen) == 1 + 6
    assert "after 6 attempts over 30 s" in info.value.msg


def test_the_budget_is_shared_by_all_requests_of_the_task() -> None:
    """The budget is per task (per client), not per request: a second failing read gets no extra round."""
    seen: List[httpx.Request] = []
    client, sleeps = confirmed([503] * 4 + [200] + [503] * 4, seen, budget=8.0)
    assert client.send("GET", "/instances/a").status == 200  # 4 + 1 extra round (8 s): the budget is spent
    assert client.send("GET", "/instances/b").status == 503  # the seed's 4 attempts only
    assert sleeps == [2.0, 4.0, 8.0, 8.0, 2.0, 4.0, 8.0]


def test_writes_never_get_extra_rounds() -> None:
    """Only reads get extra rounds: a POST answered 502 is sent exactly once, even on a confirmed endpoint."""
    seen: List[httpx.Request] = []
    client, _sleeps = confirmed([502] * 5, seen)
    with pytest.raises(OutcomeUnknownError):
        DeckApi(client).create_instance(90, "x")
    assert [r.method for r in seen] == ["GET", "POST"]


def test_401_after_the_token_was_accepted_says_it_probably_expired() -> None:
    """A 401 after the token worked in this task: the hint says it has probably expired."""
    seen: List[httpx.Request] = []
    client, _sleeps = confirmed([401] * 40, seen, budget=8.0)
    with pytest.raises(ApiError, match="probably expired"):
        DeckApi(client).get_instance(UID)


# -- only deck-api answers are believed (issue 16) ------------------------------------------------------------------

LOGIN_PAGE = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>...</form></body></html>"


def test_first_write_of_a_task_reads_the_collection_first() -> None:
    """A write is never the first request of a task: the client reads the instance collection before it."""
    requests: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if is_probe(request):
            return httpx.Response(200, json=LIST_BODY)
        return httpx.Response(201, headers={"Location": "./0f0e0d0c-0000-4000-8000-000000000001"})

    client, _log = make_client(handler)
    DeckApi(client).create_instance(90, "x")
    DeckApi(client).create_instance(90, "y")
    assert [(r.method, r.url.path) for r in requests] == [
        ("GET", "/api/v1/svc/instances"),
        ("POST", "/api/v1/svc/instances"),
        ("POST", "/api/v1/svc/instances"),
    ]


def test_a_login_page_never_receives_a_write() -> None:
    """An HTML page at the endpoint: the probe fails with a clear error naming the endpoint; no write is sent."""
    requests: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, text=LOGIN_PAGE, headers={"Content-Type": "text/html; charset=utf-8"})

    client, _log = make_client(handler)
    with pytest.raises(NotDeckApiError) as info:
        DeckApi(client).create_instance(90, "x")
    assert [r.method for r in requests] == ["GET"]
    assert "https://gw.test/api/v1/svc" in info.value.msg and "not the Nubes deck-api" in info.value.msg
    assert "text/html" in info.value.msg


@pytest.mark.parametrize(
    ("response", "why"),
    [
        (httpx.Response(200, text=LOGIN_PAGE, headers={"Content-Type": "text/html"}), "text/html, not JSON"),
        (httpx.Response(200, text='{"results": []}', headers={"Content-Type": "text/html"}), "text/html, not JSON"),
        (httpx.Response(200, text="results: []", headers={"Content-Type": "application/json"}), "not JSON"),
        (httpx.Response(302, headers={"Location": "https://sso.test/login"}), "a redirect to https://sso.test/login"),
        (httpx.Response(404, json={"error": "no route"}), "HTTP 404 without the deck-api's error body"),
        (httpx.Response(404, text="Not Found", headers={"Content-Type": "text/plain"}), "text/plain, not JSON"),
    ],
    ids=["html", "json-as-html", "not-json", "redirect", "404-foreign-json", "404-text"],
)
def test_answers_that_are_not_deck_api_json_are_errors(response: httpx.Response, why: str) -> None:
    """HTML, a wrong content type, a redirect, a 404 without the CFML error body: a clear error naming the
    endpoint, never an answer (and so never "not found")."""
    client, _log = make_client(lambda request: response)
    with pytest.raises(NotDeckApiError) as info:
        DeckApi(client).get_instance(UID)
    assert why in info.value.msg
    assert f"GET /instances/{UID} at https://gw.test/api/v1/svc" in info.value.msg
    assert "NUBES_API_ENDPOINT" in info.value.msg


def test_gateway_errors_in_html_are_retried_not_rejected() -> None:
    """A gateway's own HTML 502 is a transient fault (P34), not a sign of a wrong endpoint."""
    answers = [httpx.Response(502, text="<html>Bad Gateway</html>", headers={"Content-Type": "text/html"})] * 2

    def handler(request: httpx.Request) -> httpx.Response:
        return answers.pop(0) if answers else httpx.Response(200, json={"svc": {"svcId": 90}})

    client, sleeps = make_client(handler)
    assert DeckApi(client).get_service(90) == {"svcId": 90}
    assert sleeps == [2.0, 4.0]


def test_404_of_an_instance_is_not_found_only_when_the_collection_answers() -> None:
    """K2: a CFML 404 for an instance is "not found" once the endpoint is known to be the deck-api (its collection
    answers); at a wrong path (the collection 404s too) it is an error naming the endpoint."""
    missing = {"ERROR": "Instance u not found", "TAGCONTEXT": "/app/api/v1/resources/instances.cfc [Line 88]"}

    def deck(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=LIST_BODY) if is_probe(request) else httpx.Response(404, json=missing)

    client, _log = make_client(deck)
    assert DeckApi(client).get_instance(UID) is None

    routed = {"ERROR": "Endpoint /wrong/instances not found", "TAGCONTEXT": "/app/api/v1/index.cfm [Line 12]"}
    client, _log = make_client(lambda request: httpx.Response(404, json=routed), "https://gw.test/api/v1/svc/wrong")
    with pytest.raises(NotDeckApiError, match="404 for the instance collection"):
        DeckApi(client).get_instance(UID)


def test_a_collection_404_is_never_an_empty_list() -> None:
    """A 404 on GET /instances (which every deck-api has) is an error naming the endpoint, not "no instances"."""
    routed = {"ERROR": "Endpoint /wrong/instances not found", "TAGCONTEXT": "/app/api/v1/index.cfm [Line 12]"}
    client, _log = make_client(lambda request: httpx.Response(404, json=routed), "https://gw.test/api/v1/svc/wrong")
    with pytest.raises(NotDeckApiError, match=r"https://gw\.test/api/v1/svc/wrong"):
        DeckApi(client).find_live_by_name(90, "db")


def test_credentials_in_the_endpoint_never_appear_in_messages() -> None:
    """The endpoint is named in messages without any user:password part."""
    client, _log = make_client(lambda request: httpx.Response(200, text=LOGIN_PAGE), "https://me:pw@gw.test/api")
    with pytest.raises(NotDeckApiError) as info:
        DeckApi(client).list_instances(90)
    assert "me:pw" not in info.value.msg and "https://gw.test/api" in info.value.msg


@pytest.mark.parametrize(
    ("method", "statuses", "wrote"),
    [
        ("GET", [200], False),
        ("POST", [422], False),  # refused: nothing was processed
        ("POST", [401, 201], True),  # the transient 401 was not processed, the re-sent write was
        ("POST", [201], True),
        ("PUT", [200], True),
        ("POST", [500], True),  # a server error may have committed the write
        ("DELETE", [204], True),
    ],
)
def test_wrote_says_whether_a_write_may_have_changed_the_cloud(method: str, statuses: List[int], wrote: bool) -> None:
    """Issue 23: `wrote` (the task's changed=true on failure) is set by a write answered 2xx or 5xx, never by a
    read or a write the API refused."""
    seen: List[httpx.Request] = []
    client, _log = make_client(scripted(statuses, seen))
    client.send(method, "/instances", body={} if method != "GET" else None)
    assert client.wrote is wrote


def test_wrote_is_set_by_a_write_whose_answer_was_lost() -> None:
    """Issue 23: a write sent without an answer may have been processed: it counts as written."""

    def handler(request: httpx.Request) -> httpx.Response:
        if is_probe(request):
            return httpx.Response(200, json=LIST_BODY)
        raise httpx.ReadError("connection reset by peer")

    client, _log = make_client(handler)
    with pytest.raises(OutcomeUnknownError):
        client.send("POST", "/instances", body={})
    assert client.wrote is True
