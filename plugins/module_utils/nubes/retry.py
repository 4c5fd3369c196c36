# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Retry policy of the API client (P32-P34) and the task's retry budget.

The client (client.py) is the only layer that retries; these are its rules.
- P34: GET requests treat 401, 429, 502, 503, 504 (and connection errors) as retryable.
- P32/P33: the first attempt and up to 3 retries, waiting 2 s / 4 s / 8 s (exponential backoff); `Retry-After`
  is honoured. A dead end (a wrong token, an endpoint that never answers) thus fails after 4 attempts and 14 s.
- Writes are never blindly re-sent. Only answers that prove the request was NOT processed are retried for a
  write: 401 (the gateway rejected the token before the backend saw the request, P32) and 429 (rate limited), and
  connection errors raised before the request was sent. Any other failure of a write makes its outcome unknown;
  callers resolve it by reading.
- Beyond the seed: once the endpoint has answered as the deck-api in this task, a read that is still transient
  after its retries gets extra rounds (one every 8 s), and a run refused with 422 `Concurrent operations` is
  re-sent; all of these waits come out of ONE budget per task (:class:`RetryBudget`, 120 s by default). Reads
  are safe to repeat, so a flapping gateway or a short API restart does not fail a long task, while the total
  extra wait stays bounded.
- Issue 24: the same budget pays for the time spent in requests that got no answer (a timeout, a reset, a refused
  connection), measured; such a request is retried only while the budget is not used up. An endpoint that never
  answers thus gets min(4, ceil(budget / request_timeout)) attempts (by default 2: 60 + 2 + 60 s; with
  request_timeout 10: 4 attempts in 54 s), so a dead end takes less than budget + request_timeout + the seed's 14 s;
  a refused connection, which costs no time, keeps its 4 attempts. The Kubernetes state backend retries from the
  same budget (state_objects.py).
- The backoff scale is configurable for tests with the env var `NUBES_BACKOFF_SCALE` (e.g. 0.01). The budget is
  charged the unscaled delays, so a scaled run makes the same number of rounds, only faster; it is configurable
  with the env var `NUBES_RETRY_BUDGET` (seconds; 0 means exactly the seed's retries).
"""

from __future__ import annotations

import os
from email.utils import parsedate_to_datetime
from typing import Optional, Tuple

RETRYABLE_READ_STATUSES = frozenset((401, 429, 502, 503, 504))  # P34
RETRYABLE_WRITE_STATUSES = frozenset((401, 429))  # rejected before processing: safe to re-send
# Issue 24: a write answered with one of these may have been processed (a 500 after the commit, a gateway that
# gave up while the backend went on): its outcome is unknown and is read back, never assumed either way.
OUTCOME_UNKNOWN_WRITE_STATUSES = frozenset((500, 502, 503, 504))
READ_METHODS = frozenset(("GET", "HEAD"))
BACKOFF_SECONDS: Tuple[float, ...] = (2.0, 4.0, 8.0)  # P33
MAX_RETRY_AFTER_SECONDS = 120.0
RETRY_BUDGET_SECONDS = 120.0  # beyond the seed: the extra waiting one task may spend on transient faults


def backoff_scale_from_env() -> float:
    """The `NUBES_BACKOFF_SCALE` multiplier (default 1.0); invalid or negative values mean 1.0."""
    raw = os.environ.get("NUBES_BACKOFF_SCALE", "")
    try:
        scale = float(raw) if raw else 1.0
    except ValueError:
        return 1.0
    return scale if scale >= 0 else 1.0


def retry_budget_from_env() -> float:
    """The `NUBES_RETRY_BUDGET` seconds (default 120); invalid or negative values mean the default."""
    raw = os.environ.get("NUBES_RETRY_BUDGET", "")
    try:
        seconds = float(raw) if raw else RETRY_BUDGET_SECONDS
    except ValueError:
        return RETRY_BUDGET_SECONDS
    return seconds if seconds >= 0 else RETRY_BUDGET_SECONDS


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a `Retry-After` header (delta-seconds or HTTP date); None when absent/invalid."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        import datetime

        when = parsedate_to_datetime(value)
        now = datetime.datetime.now(when.tzinfo)
        return max(0.0, (when - now).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None


class RetryBudget:
    """Seconds of extra waiting one task may still spend on transient faults (beyond the seed's retries)."""

    def __init__(self, seconds: float = RETRY_BUDGET_SECONDS) -> None:
        self.total = max(0.0, seconds)
        self.spent = 0.0

    @property
    def remaining(self) -> float:
        return max(0.0, self.total - self.spent)

    def take(self, seconds: float) -> bool:
        """Reserve `seconds` of waiting; False (and nothing reserved) when the budget cannot cover them."""
        if seconds > self.remaining:
            return False
        self.spent += seconds
        return True

    def spend(self, seconds: float) -> None:
        """Charge time already spent on a transient fault (a request that got no answer), measured."""
        self.spent += max(0.0, seconds)

    @property
    def used_up(self) -> bool:
        """Nothing left: no retry of a request that got no answer starts any more."""
        return self.remaining <= 0.0


def attempts_text(attempts: int, elapsed: float) -> str:
    """`after 2 attempts over 122 s`: the requests sent and the real time from the first one's start to the failure
    (the time spent in the requests included, not only the waits between them; issue 24)."""
    if attempts == 1:
        return "after 1 attempt" if elapsed < 1 else f"after 1 attempt of {elapsed:.0f} s"
    return f"after {attempts} attempts over {elapsed:.0f} s"


class RetryPolicy:
    """Decides whether an attempt is retried and how long to wait before the next one."""

    def __init__(
        self,
        scale: Optional[float] = None,
        backoff: Tuple[float, ...] = BACKOFF_SECONDS,
        budget_seconds: Optional[float] = None,
    ) -> None:
        self.scale = backoff_scale_from_env() if scale is None else scale
        self.backoff = backoff
        self.budget_seconds = retry_budget_from_env() if budget_seconds is None else budget_seconds

    @property
    def max_retries(self) -> int:
        """P32: 3 retries after the first attempt."""
        return len(self.backoff)

    def retry_status(self, method: str, status: int, attempt: int) -> bool:
        """P34: whether an answer with `status` to attempt number `attempt` (0-based) is retried."""
        if attempt >= self.max_retries:
            return False
        if method.upper() in READ_METHODS:
            return status in RETRYABLE_READ_STATUSES
        return status in RETRYABLE_WRITE_STATUSES

    def retry_transport_error(self, method: str, sent: bool, attempt: int) -> bool:
        """Connection errors: reads always retry; writes only when the request never left."""
        if attempt >= self.max_retries:
            return False
        return method.upper() in READ_METHODS or not sent

    def delay(self, attempt: int, retry_after: Optional[str] = None) -> float:
        """P33: 2 s / 4 s / 8 s (scaled); a `Retry-After` header replaces the computed delay."""
        return self.nominal_delay(attempt, retry_after) * self.scale

    def nominal_delay(self, attempt: int, retry_after: Optional[str] = None) -> float:
        """The delay before scaling: what the budget is charged, so a scaled test runs the same rounds."""
        honoured = parse_retry_after(retry_after)
        if honoured is not None:
            return min(honoured, MAX_RETRY_AFTER_SECONDS)
        return self.backoff[min(attempt, len(self.backoff) - 1)]

    def extra_round(self, method: str, status: Optional[int]) -> bool:
        """Beyond the seed: whether a request still failing after its retries may get an extra round (from the
        budget). Only reads, only transient answers (P34 statuses; None = no answer at all)."""
        return method.upper() in READ_METHODS and (status is None or status in RETRYABLE_READ_STATUSES)

    def new_budget(self) -> RetryBudget:
        return RetryBudget(self.budget_seconds)
