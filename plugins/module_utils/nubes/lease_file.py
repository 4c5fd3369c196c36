# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A per-resource lock on one controller: ``flock`` on a lock file, bounded wait, the holder named (P42, beyond).

The holder writes its identity (hostname/pid/random) into the lock file once it holds the lock, so a waiter
that gives up after ``timeout`` seconds can say who holds it. The kernel releases the lock when the holder's
process dies (SIGKILL included), so a crashed run never blocks the next one.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
import socket
import time
import uuid
from typing import Any, Callable, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError

POLL_SECONDS = 0.1


class LockTimeoutError(NubesError):
    """A lock could not be acquired in time; the message names the holder."""


def holder_identity() -> str:
    """hostname/pid/random: unique per process and attempt, readable in error messages."""
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:12]}"


class FileLease:
    """Context manager: an exclusive ``flock`` on `path`, waiting at most `timeout` seconds (None: forever)."""

    def __init__(
        self,
        path: str,
        timeout: Optional[float] = None,
        description: str = "",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = path
        self.timeout = timeout
        self.description = description or path
        self.holder = holder_identity()
        self.clock = clock
        self.sleep = sleep
        self._fd: Optional[int] = None

    def __enter__(self) -> FileLease:
        self.acquire()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.release()

    def _try_lock(self, fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True

    def current_holder(self) -> str:
        try:
            with open(self.path, encoding="utf-8") as handle:
                return handle.read(512).strip()
        except OSError:
            return ""

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if self.timeout is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                deadline = self.clock() + self.timeout
                while not self._try_lock(fd):
                    remaining = deadline - self.clock()
                    if remaining <= 0:
                        raise LockTimeoutError(
                            f"the state lock on {self.description} (lock file {self.path}) is held by "
                            f"{self.current_holder() or 'another process'}; waited {self.timeout:g} s "
                            "(state_lock_timeout). Another run is working on this resource: let it finish and retry"
                        )
                    self.sleep(min(remaining, POLL_SECONDS * (0.5 + random.random())))
            os.ftruncate(fd, 0)
            os.pwrite(fd, self.holder.encode("utf-8"), 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
