"""Timestamps as the API shows them (assumption: ISO-like UTC with milliseconds, sortable as text)."""

from __future__ import annotations

import datetime as dt

from tests.emulator import assumptions as A


def fmt(ts: float | None) -> str | None:
    if ts is None:
        return None
    moment = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
    return moment.strftime(A.TIMESTAMP_FORMAT) + f".{moment.microsecond // 1000:03d}"
