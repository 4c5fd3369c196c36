"""Wait for SIGTERM / SIGINT without taking a lock in the signal handler.

A Python signal handler runs in the main thread between two bytecodes, possibly while that thread holds a
lock. The old `serve` loop waited on `threading.Event.wait()` and its handler called `Event.set()`: when the
signal landed inside `Condition.wait` (which holds the event's lock), or a second signal landed inside the
first handler (the process-group signal plus make's own), `set()` re-entered that non-reentrant lock and the
process hung forever, keeping its port and its unflushed state. Here the handler only appends to a list (no
lock) and `signal.set_wakeup_fd` writes to a socket pair that the main loop `select`s on.
"""

from __future__ import annotations

import select
import signal
import socket
from types import FrameType, TracebackType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopSignals:
    """Installs lock-free SIGTERM/SIGINT handlers on `__enter__`; `wait()` returns the first signal received.

    Signals that arrive before `wait()` (during start-up) or after it (while stopping) are recorded, never
    raised, so the caller always gets to stop cleanly and flush its state. Main thread only.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._previous_fd = -1

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)  # no lock: list.append is one atomic bytecode-level operation

    def __enter__(self) -> StopSignals:
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno())
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._on_signal)
        return self

    def wait(self) -> int:
        """Block until a stop signal has arrived; return its number."""
        while not self.received:
            select.select([self._reader], [], [], 1.0)
            try:
                while self._reader.recv(64):
                    pass
            except BlockingIOError:
                pass
        return self.received[0]

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Keep the handlers (a late signal must not interrupt the exit); only detach the wake-up socket."""
        signal.set_wakeup_fd(self._previous_fd)
        self._reader.close()
        self._writer.close()
