# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time as Kubernetes writes it: RFC 3339 in UTC (``Time``, seconds; ``MicroTime``, microseconds)."""

from __future__ import annotations

import datetime
from typing import Optional

_SECONDS = "%Y-%m-%dT%H:%M:%SZ"
_MICROSECONDS = "%Y-%m-%dT%H:%M:%S.%fZ"


def utc_now() -> datetime.datetime:
    """Current time, timezone-aware UTC."""
    return datetime.datetime.now(datetime.timezone.utc)


def format_time(value: Optional[datetime.datetime] = None) -> str:
    """A Kubernetes ``Time``: RFC 3339 with seconds and a ``Z`` suffix (now when ``value`` is None)."""
    return (value or utc_now()).astimezone(datetime.timezone.utc).strftime(_SECONDS)


def format_micro_time(value: Optional[datetime.datetime] = None) -> str:
    """A Kubernetes ``MicroTime`` (Lease acquire/renew times): RFC 3339 with microseconds."""
    return (value or utc_now()).astimezone(datetime.timezone.utc).strftime(_MICROSECONDS)


def parse_time(value: str) -> datetime.datetime:
    """Inverse of ``format_time`` and ``format_micro_time``; ValueError for anything else."""
    for fmt in (_SECONDS, _MICROSECONDS):
        try:
            return datetime.datetime.strptime(value, fmt).replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            continue
    raise ValueError(f"not a Kubernetes time: {value!r}")
