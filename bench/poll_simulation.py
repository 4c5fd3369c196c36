"""Poll schedules simulated against an operation of known duration: how long after `dtFinish` each poller sees it.

The core's schedule is the real `Poller` class of plugins/module_utils/nubes/operations.py driven by a fake clock
(it polls once at once, then sleeps 0.25 s growing x1.6 up to 5 s). A fixed-interval client sleeps its interval
before every poll (what existing Nubes clients do with 10 s or 5 s). `proposed` is a schedule that keeps the
latency within 10 % of the elapsed time: interval = 10 % of the time waited so far, clamped to 0.2..5 s.
Times start when the run call returns (the operation's dtSubmit); request latency is not modelled.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _entry in (str(ROOT / ".collections"), str(ROOT)):
    if _entry not in sys.path:
        sys.path.insert(0, _entry)

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller  # noqa: E402

CORE = "nubes.cloud core (0.25 s x1.6, cap 5 s)"
FIXED_10 = "fixed 10 s"
FIXED_5 = "fixed 5 s"
PROPOSED = "proposed: 10 % of elapsed, 0.2-5 s"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def core_polls(horizon: float) -> Iterator[float]:
    clock = FakeClock()
    for _poll in Poller(clock=clock.time, sleep=clock.sleep).intervals(horizon):
        yield clock.now


def fixed_polls(interval: float) -> Callable[[float], Iterator[float]]:
    def polls(horizon: float) -> Iterator[float]:
        for index in range(1, math.ceil(horizon / interval) + 2):
            yield index * interval

    return polls


def proposed_polls(horizon: float) -> Iterator[float]:
    now = 0.0
    yield now
    while now <= horizon:
        now += min(max(0.1 * now, 0.2), 5.0)
        yield now


POLLERS: dict[str, Callable[[float], Iterator[float]]] = {
    CORE: core_polls,
    FIXED_10: fixed_polls(10.0),
    FIXED_5: fixed_polls(5.0),
    PROPOSED: proposed_polls,
}


def first_poll_after(polls: Iterator[float], finish: float) -> float:
    for moment in polls:
        if moment >= finish:
            return moment
    raise ValueError("the schedule ended before the operation finished")


def simulate(label: str, duration: float) -> float:
    """Seconds between the operation's finish (`duration` after submit) and the poll that sees it."""
    return first_poll_after(POLLERS[label](duration + 30.0), duration) - duration


def polls_needed(label: str, duration: float) -> int:
    """Number of polls until the one that sees the operation finished (API calls spent waiting)."""
    for count, moment in enumerate(POLLERS[label](duration + 30.0), start=1):
        if moment >= duration:
            return count
    raise ValueError("the schedule ended before the operation finished")


def expected(label: str, duration: float, spread: float = 0.1, samples: int = 401) -> tuple[float, float, float]:
    """Mean, max latency and mean polls over durations spread uniformly over duration*(1 +- spread): real
    operations never last exactly their nominal time, and a fixed interval that divides it exactly would look
    perfect by accident."""
    latencies, counts = [], []
    for index in range(samples):
        moment = duration * (1 - spread + 2 * spread * index / (samples - 1))
        latencies.append(simulate(label, moment))
        counts.append(polls_needed(label, moment))
    return sum(latencies) / samples, max(latencies), sum(counts) / samples
