"""pytest plugin: each test's wall time (set-up, call and tear-down) as a row of the run's timing file.

When `$NUBES_TIMINGS` names a file (`.ci/run` sets it), every pytest run appends one `test` row per test at its
end, of kind `test@<step>` when `$NUBES_TIMINGS_STEP` names the step that runs it (the same test runs in several
steps: the unit tests on every ansible-core of the matrix), and `scripts/timings_report.py` prints the slowest of
them in the CI timing table. With pytest-xdist the reports reach the controller, which alone writes, so a test is
counted once whatever the number of workers.
"""

from __future__ import annotations

import os
from collections import defaultdict

import pytest

TIMINGS_ENV = "NUBES_TIMINGS"
STEP_ENV = "NUBES_TIMINGS_STEP"  # the step that runs this pytest (a make test step, a matrix step): rows say it


class TimingRecorder:
    """Sums the phases of each test reported to this process, and writes them once the session ends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.seconds: dict[str, float] = defaultdict(float)
        self.outcome: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration
        if report.outcome != "passed" and self.outcome.get(report.nodeid) != "failed":
            self.outcome[report.nodeid] = report.outcome  # a failed phase wins over a skipped one

    def pytest_sessionfinish(self) -> None:
        if not self.seconds:
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        step = os.environ.get(STEP_ENV, "").replace("\t", " ")
        kind = f"test@{step}" if step else "test"
        with open(self.path, "a", encoding="utf-8") as out:
            for nodeid, seconds in self.seconds.items():
                out.write(f"{kind}\t{nodeid}\t{seconds:.2f}\t{self.outcome.get(nodeid, 'passed')}\n")


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get(TIMINGS_ENV)
    if path and not hasattr(config, "workerinput"):  # xdist workers report to the controller
        config.pluginmanager.register(TimingRecorder(path), "nubes-test-timings")
