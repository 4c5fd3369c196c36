# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Retry policy of the API client (P32-P34).

Rules implemented here:
- P34: GET requests treat 401, 429, 502, 503, 504 (and connection errors) as retryable.
- P32/P33: up to 3 retries with 2 s / 4 s / 8 s exponential backoff; `Retry-After` is honoured.
- Writes are never blindly re-sent. Only answers that prove the request was NOT processed are
  retried for a write: 401 (the gateway rejected the token before the backend saw the request, P32)
  and 429 (rate limited), and connection errors raised before the request was sent.
  Any other failure of a write makes its outcome unknown; callers resolve it by reading.
- The backoff scale is configurable for tests with the env var `NUBES_BACKOFF_SCALE` (e.g. 0.01).
"""

from __future__ import annotations

import os
from email.utils import parsedate_to_datetime
from typing import Optional, Tuple

RETRYABLE_READ_STATUSES = frozenset((401, 429, 502, 503, 504))  # P34
RETRYABLE_WRITE_STATUSES = frozenset((401, 429))  # rejected before processing: safe to re-send
READ_METHODS = frozenset(("GET", "HEAD"))
BACKOFF_SECONDS: Tuple[float, ...] = (2.0, 4.0, 8.0)  # P33
MAX_RETRY_AFTER_SECONDS = 120.0


def backoff_scale_from_env() -> float:
    """The `NUBES_BACKOFF_SCALE` multiplier (default 1.0); invalid or negative values mean 1.0."""
    raw = os.environ.get("NUBES_BACKOFF_SCALE", "")
    try:
        scale = float(raw) if raw else 1.0
    except ValueError:
        return 1.0
    return scale if scale >= 0 else 1.0


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


class RetryPolicy:
    """Decides whether an attempt is retried and how long to wait before the next one."""

    def __init__(self, scale: Optional[float] = None, backoff: Tuple[float, ...] = BACKOFF_SECONDS) -> None:
        self.scale = backoff_scale_from_env() if scale is None else scale
        self.backoff = backoff

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
        honoured = parse_retry_after(retry_after)
        if honoured is not None:
            return min(honoured, MAX_RETRY_AFTER_SECONDS) * self.scale
        return self.backoff[min(attempt, len(self.backoff) - 1)] * self.scale
