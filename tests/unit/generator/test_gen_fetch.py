"""fetch over HTTP (httpx.MockTransport): endpoint styles, auth, retries, errors (P1, P9, P10)."""

from __future__ import annotations

import pytest

from generator import pipeline
from generator.api_client import CatalogueClient, is_legacy_endpoint, request_target
from generator.errors import GeneratorError
from generator.workspace import Workspace
from tests.unit.generator.catalogue import GATEWAY, LEGACY, TOKEN, FakeDeckApi


def test_endpoint_style_detection() -> None:
    """P9: `index.cfm` in the endpoint -> legacy `?endpoint=/path`; P10: otherwise paths are appended."""
    assert is_legacy_endpoint(LEGACY) and not is_legacy_endpoint(GATEWAY)
    assert request_target(LEGACY, "/services/90") == (LEGACY, {"endpoint": "/services/90"})
    assert request_target(GATEWAY + "/", "/services/90") == (GATEWAY + "/services/90", {})


@pytest.mark.parametrize("endpoint", [GATEWAY, LEGACY])
def test_fetch_writes_identical_specs_in_both_styles(workspace: Workspace, api: FakeDeckApi, endpoint: str) -> None:
    """P1/P9/P10: the specs come only from API data, and both endpoint styles give the same bytes."""
    pipeline.fetch(workspace, endpoint, TOKEN, api.transport())
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted((workspace.root / "specs").glob("*.yml"))}
    assert sorted(texts) == ["dummy.yml", "flask.yml", "postgres.yml", "s3.yml", "s3_bucket.yml"]
    other = Workspace(workspace.root / "other")
    (other.root / "config").mkdir(parents=True)
    for name in ("services_list.txt", "operation_timeouts.json"):
        (other.root / "config" / name).write_bytes((workspace.root / "config" / name).read_bytes())
    pipeline.fetch(other, GATEWAY if endpoint == LEGACY else LEGACY, TOKEN, FakeDeckApi().transport())
    assert {p.name: p.read_text(encoding="utf-8") for p in sorted((other.root / "specs").glob("*.yml"))} == texts
    legacy_requests = [r for r in api.requests if "index.cfm" in str(r.url)]
    assert bool(legacy_requests) == (endpoint == LEGACY)
    assert all(r.headers["Authorization"] == f"Bearer {TOKEN}" for r in api.requests)


def test_transient_errors_are_retried() -> None:
    """Transient 5xx answers are retried before giving up."""
    api = FakeDeckApi(fail_first=2)
    with CatalogueClient(GATEWAY, TOKEN, transport=api.transport(), backoff=0) as client:
        assert client.service(12)["svcShort"] == "s3"
    assert len(api.requests) == 3


def test_bad_token_fails_with_hint_and_never_shows_the_token() -> None:
    """A rejected token gives a readable error that names the fix and does not leak the token."""
    api = FakeDeckApi()
    client = CatalogueClient(GATEWAY, "wrong-secret-token", transport=api.transport(), backoff=0)
    with client, pytest.raises(GeneratorError) as caught:
        client.service(12)
    assert "HTTP 401" in str(caught.value) and "NUBES_API_TOKEN" in str(caught.value)
    assert "wrong-secret-token" not in str(caught.value)


def test_unknown_service_fails_with_path() -> None:
    """A 404 names the API path that failed."""
    client = CatalogueClient(GATEWAY, TOKEN, transport=FakeDeckApi().transport(), backoff=0)
    with client, pytest.raises(GeneratorError, match=r"GET /services/4242 .* HTTP 404"):
        client.service(4242)


@pytest.mark.parametrize(
    ("endpoint", "token", "missing"), [("", TOKEN, "NUBES_API_ENDPOINT"), (GATEWAY, "", "NUBES_API_TOKEN")]
)
def test_missing_endpoint_or_token(endpoint: str, token: str, missing: str) -> None:
    """fetch without an endpoint or token says which variable to set."""
    with pytest.raises(GeneratorError, match=missing):
        CatalogueClient(endpoint, token)
