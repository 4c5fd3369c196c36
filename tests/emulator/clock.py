"""The emulator's clock: real time plus an offset, which tests can advance or freeze.

Operation status is computed from timestamps on every read, so a frozen clock makes every
transition (pending -> in progress -> finished) deterministic without background threads.
"""

from __future__ import annotations

import threading
import time


class Clock:
    """Wall-clock seconds (epoch) that follow real time unless frozen; `advance` jumps forward."""

    def __init__(self, offset: float = 0.0) -> None:
        self._lock = threading.Lock()
        self._offset = offset
        self._frozen_at: float | None = None

    def now(self) -> float:
        with self._lock:
            if self._frozen_at is not None:
                return self._frozen_at
            return time.time() + self._offset

    def advance(self, seconds: float) -> float:
        """Move the clock forward by `seconds` (frozen or not) and return the new time."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        with self._lock:
            self._offset += seconds
            if self._frozen_at is not None:
                self._frozen_at += seconds
                return self._frozen_at
            return time.time() + self._offset

    def freeze(self) -> float:
        """Stop the clock at the current time; it moves only through `advance` until `unfreeze`."""
        with self._lock:
            if self._frozen_at is None:
                self._frozen_at = time.time() + self._offset
            return self._frozen_at

    def unfreeze(self) -> None:
        """Let the clock follow real time again, continuing from where it was frozen."""
        with self._lock:
            if self._frozen_at is not None:
                self._offset = self._frozen_at - time.time()
                self._frozen_at = None

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    @property
    def offset(self) -> float:
        with self._lock:
            if self._frozen_at is not None:
                return self._frozen_at - time.time()
            return self._offset
