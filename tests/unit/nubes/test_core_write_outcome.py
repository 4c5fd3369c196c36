"""write_outcome (issue 24): how long an unknown write may still take effect, and the read-back within it."""

from __future__ import annotations

from typing import List

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import write_outcome


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: List[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def test_the_window_outlasts_the_request_timeout_when_no_answer_came() -> None:
    """A request with no answer may still be held by the server: the client's timeout plus a grace; an
    answered 5xx is finished on the server, so a short window covers lagging lists."""
    assert write_outcome.window(3, answered=False) == 33
    assert write_outcome.window(60, answered=False) == 90
    assert write_outcome.window(60, answered=True) == write_outcome.WINDOW_AFTER_ANSWER


def test_read_back_stops_at_the_first_find() -> None:
    clock = Clock()
    answers = [[], [], ["uid-1"]]
    found = write_outcome.read_back(lambda: answers.pop(0), clock.now + 30, clock.time, clock.sleep)
    assert found == ["uid-1"]
    assert clock.pauses == [0.5, 1.0]


def test_read_back_gives_up_at_the_deadline_with_growing_capped_pauses() -> None:
    clock = Clock()
    calls: List[float] = []

    def find() -> List[str]:
        calls.append(clock.now)
        return []

    assert write_outcome.read_back(find, clock.now + 10, clock.time, clock.sleep) == []
    assert clock.now == 1010.0  # the last pause is cut to the deadline, and one last read happens there
    assert calls[-1] == 1010.0
    assert max(clock.pauses) == write_outcome.PAUSE_CAP


def test_read_back_reads_once_when_the_window_has_passed() -> None:
    clock = Clock()
    calls: List[int] = []
    write_outcome.read_back(lambda: calls.append(1) or [], clock.now - 5, clock.time, clock.sleep)
    assert calls == [1] and clock.pauses == []
