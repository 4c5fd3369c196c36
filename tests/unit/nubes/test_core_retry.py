"""Retry policy (P32-P34)."""

from __future__ import annotations

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import (
    RetryBudget,
    RetryPolicy,
    backoff_scale_from_env,
    parse_retry_after,
)


@pytest.mark.parametrize(
    ("method", "status", "retried"),
    [
        ("GET", 401, True),
        ("GET", 429, True),
        ("GET", 502, True),
        ("GET", 503, True),
        ("GET", 504, True),
        ("GET", 500, False),
        ("GET", 404, False),
        ("GET", 400, False),
        ("POST", 502, False),
        ("POST", 503, False),
        ("POST", 504, False),
        ("POST", 500, False),
        ("POST", 401, True),
        ("POST", 429, True),
        ("PUT", 502, False),
    ],
)
def test_retryable_statuses(method: str, status: int, retried: bool) -> None:
    """P34: GET retries 401/429/502/503/504; writes only when the answer proves nothing was processed."""
    assert RetryPolicy(scale=1).retry_status(method, status, 0) is retried


def test_three_retries_then_stop() -> None:
    """P32: 3 attempts after the first, then the answer is returned."""
    policy = RetryPolicy(scale=1)
    assert [policy.retry_status("GET", 503, attempt) for attempt in range(5)] == [True, True, True, False, False]


def test_backoff_2_4_8() -> None:
    """P33: 2 s / 4 s / 8 s backoff."""
    policy = RetryPolicy(scale=1)
    assert [policy.delay(a) for a in range(3)] == [2.0, 4.0, 8.0]


def test_retry_after_is_honoured() -> None:
    """P33 (beyond): a Retry-After header replaces the computed delay."""
    policy = RetryPolicy(scale=1)
    assert policy.delay(0, "7") == 7.0
    assert policy.delay(2, "1") == 1.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("soon") is None


def test_backoff_scale_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backoff scale comes from NUBES_BACKOFF_SCALE for tests."""
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")
    assert backoff_scale_from_env() == 0.01
    assert RetryPolicy().delay(1) == pytest.approx(0.04)
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "nonsense")
    assert backoff_scale_from_env() == 1.0


def test_connection_errors() -> None:
    """P34: connection errors on GET are retried; on writes only when the request never left."""
    policy = RetryPolicy(scale=1)
    assert policy.retry_transport_error("GET", sent=True, attempt=0)
    assert not policy.retry_transport_error("POST", sent=True, attempt=0)
    assert policy.retry_transport_error("POST", sent=False, attempt=0)
    assert not policy.retry_transport_error("GET", sent=True, attempt=3)


def test_retry_budget_default_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond the seed: one budget of extra waiting per task, 120 s unless NUBES_RETRY_BUDGET says otherwise."""
    monkeypatch.delenv("NUBES_RETRY_BUDGET", raising=False)
    assert RetryPolicy().new_budget().total == 120.0
    monkeypatch.setenv("NUBES_RETRY_BUDGET", "0")
    assert RetryPolicy().new_budget().total == 0.0
    monkeypatch.setenv("NUBES_RETRY_BUDGET", "-3")
    assert RetryPolicy().new_budget().total == 120.0


def test_budget_pays_only_what_it_can_cover() -> None:
    """A wait the remaining budget cannot cover is refused and reserves nothing."""
    budget = RetryBudget(10.0)
    assert budget.take(8.0)
    assert not budget.take(8.0)
    assert budget.take(2.0)
    assert budget.remaining == 0.0


def test_extra_rounds_are_for_transient_reads_only() -> None:
    """Extra rounds: reads with a P34 status or no answer; never writes, never other statuses."""
    policy = RetryPolicy(scale=1)
    assert policy.extra_round("GET", 503) and policy.extra_round("GET", None) and policy.extra_round("GET", 401)
    assert not policy.extra_round("GET", 500) and not policy.extra_round("POST", 503)
