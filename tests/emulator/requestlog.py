"""The request log: every API request with its normalised path, status and (redacted) body."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tests.emulator import assumptions as A

MAX_ENTRIES = 100_000


def redact(body: Any, is_secret_param: Callable[[dict[str, Any]], bool]) -> Any:
    """A copy of `body` with secret values replaced: keys that look secret, and values of isSecret params."""
    if isinstance(body, list):
        return [redact(item, is_secret_param) for item in body]
    if not isinstance(body, dict):
        return body
    result: dict[str, Any] = {}
    for key, value in body.items():
        if any(hint in key.lower() for hint in A.SECRET_KEY_HINTS) and isinstance(value, (str, int, float)):
            result[key] = A.REDACTED
        else:
            result[key] = redact(value, is_secret_param)
    if "paramValue" in result and is_secret_param(body):
        result["paramValue"] = A.REDACTED
    return result


class RequestLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []
        self._seq = 0

    def add(self, entry: dict[str, Any]) -> int:
        with self._lock:
            self._seq += 1
            entry["seq"] = self._seq
            self._entries.append(entry)
            if len(self._entries) > MAX_ENTRIES:
                del self._entries[: len(self._entries) - MAX_ENTRIES]
            return self._seq

    def since(self, seq: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(e) for e in self._entries if e["seq"] > seq]

    def clear(self) -> None:
        """Forget the entries; sequence numbers keep growing so `since=N` stays meaningful."""
        with self._lock:
            self._entries = []

    @property
    def last_seq(self) -> int:
        with self._lock:
            return self._seq
