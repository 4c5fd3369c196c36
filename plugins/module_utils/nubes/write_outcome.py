# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Writes whose outcome is unknown (issue 24; P42, beyond the seed: never a duplicate, never an untracked instance).

A create or an operation POST answered with a 5xx, or not answered at all (a timeout, a reset), may still take
effect: a server goes on with a request whose client gave up, and commits it seconds later. So the task never
assumes either way. It reads until what it may have made appears, for a bounded while (the outcome window), and
only then reports. The window starts when the request was sent; the record keeps that moment (`requested_at`), so a
re-run after a crash or a failure waits out the same window before it sends the write again.
"""

from __future__ import annotations

import time
from typing import Callable, List, TypeVar

T = TypeVar("T")

# An answered 5xx: the server is done with the request, so its effect shows at once; a few reads cover an API whose
# lists lag a moment behind its writes.
WINDOW_AFTER_ANSWER = 10.0
# No answer: the server may still hold the request. It is given the client's request timeout plus this much.
GRACE_AFTER_TIMEOUT = 30.0
FIRST_PAUSE = 0.5
PAUSE_CAP = 3.0


def window(request_timeout: float, answered: bool) -> float:
    """Seconds after the request was sent during which its effect may still appear."""
    if answered:
        return WINDOW_AFTER_ANSWER
    return request_timeout + GRACE_AFTER_TIMEOUT


def read_back(
    find: Callable[[], List[T]],
    until: float,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> List[T]:
    """`find()` until it returns something or the wall clock passes `until` (a wall-clock time, because it may
    come from a record another process wrote); what it found last. Reads at least once."""
    pause = FIRST_PAUSE
    while True:
        found = find()
        left = until - clock()
        if found or left <= 0:
            return found
        sleep(min(pause, left))
        pause = min(pause * 2, PAUSE_CAP)
