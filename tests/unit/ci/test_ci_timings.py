"""The CI timing table (issue 22): rows appended by every step and test, read back as one table with a budget."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from scripts import timings_report

REPO = Path(__file__).resolve().parents[3]


def run_report(path: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "timings_report.py"), str(path), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def record(path: Path, *row: str) -> None:
    subprocess.run(
        ["bash", str(REPO / "scripts" / "timing-record.sh"), *row],
        env={**os.environ, "NUBES_TIMINGS": str(path)},
        check=True,
    )


def test_recorded_steps_come_out_in_their_sections(tmp_path: Path) -> None:
    timings = tmp_path / "ci" / "timings.tsv"
    record(timings, "setup", "venv (make venv)", "31", "passed")
    record(timings, "step", "sanity", "412", "passed")
    record(timings, "matrix", "unit 2.16", "95", "FAILED")
    record(timings, "build", "kube-apiserver", "600", "built")
    out = run_report(timings)
    assert out.index("set-up:") < out.index("venv (make venv)") < out.index("cold builds")
    assert "     600  built   kube-apiserver" in out
    assert "     412  passed  sanity" in out
    assert "      95  FAILED  unit 2.16" in out


def test_record_without_a_timings_file_writes_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUBES_TIMINGS"}
    subprocess.run(
        ["bash", str(REPO / "scripts" / "timing-record.sh"), "step", "lint", "3", "passed"],
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert list(tmp_path.iterdir()) == []


def test_a_run_past_the_budget_warns_but_the_report_passes(tmp_path: Path) -> None:
    timings = tmp_path / "timings.tsv"
    timings.write_text("step\tintegration\t3700\tpassed\n", encoding="utf-8")
    over = run_report(timings, "--total", "3700", "--budget-minutes", "60")
    assert "WARNING: .ci/run took 3700 s (61 min 40 s), over its 60-minute budget" in over
    inside = run_report(timings, "--total", "2700", "--budget-minutes", "60")
    assert "WARNING" not in inside
    assert ".ci/run: 2700 s (45 min 00 s), inside its 60-minute budget" in inside


def test_each_test_is_one_row_once_also_with_xdist_workers(tmp_path: Path) -> None:
    """tests/timings.py writes one row per test from the controller, with its set-up and tear-down included."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.timings"]\n', encoding="utf-8")
    (tmp_path / "test_sample.py").write_text(
        textwrap.dedent(
            """
            import time
            import pytest

            @pytest.fixture
            def slow_setup():
                time.sleep(0.3)

            def test_slow(slow_setup):
                time.sleep(0.2)

            @pytest.mark.parametrize("n", range(4))
            def test_fast(n):
                pass

            def test_fails():
                assert False
            """
        ),
        encoding="utf-8",
    )
    timings = tmp_path / "timings.tsv"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", str(tmp_path)],
        env={**os.environ, "NUBES_TIMINGS": str(timings), "PYTHONPATH": str(REPO)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = [line.split("\t") for line in timings.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6
    by_test = {name.rpartition("::")[2]: (float(seconds), status) for _kind, name, seconds, status in rows}
    assert by_test["test_slow"][0] >= 0.5
    assert by_test["test_slow"][1] == "passed"
    assert by_test["test_fails"][1] == "failed"
    out = run_report(timings, "--slowest", "2")
    assert "the 2 slowest tests:" in out
    assert out.index("test_slow") > out.index("the 2 slowest tests:")


def test_suite_of_groups_tests_by_their_step_and_suite_directory() -> None:
    def suite(kind: str, name: str) -> str:
        return timings_report.suite_of(timings_report.Row(kind, name, 1.0, "passed"))

    assert suite("test", "tests/integration/modules/test_x.py::test_y[a: b]") == "tests/integration/modules"
    assert suite("test@unit 2.16", "tests/unit/nubes/test_x.py::test_y") == "unit 2.16: tests/unit/nubes"
    assert suite("test@integration", "tests/cluster/tests/test_smoke.py::t") == "integration: tests/cluster/tests"
    assert suite("test", "test_sample.py::t") == "test_sample.py"


def test_rows_name_the_step_that_ran_the_test(tmp_path: Path) -> None:
    """The same test runs in several steps (unit on every ansible-core): each row says which one."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.timings"]\n', encoding="utf-8")
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    timings = tmp_path / "timings.tsv"
    for step in ("unit", "unit 2.16"):
        env = {**os.environ, "NUBES_TIMINGS": str(timings), "NUBES_TIMINGS_STEP": step, "PYTHONPATH": str(REPO)}
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            check=True,
        )
    kinds = [line.split("\t")[0] for line in timings.read_text(encoding="utf-8").splitlines()]
    assert kinds == ["test@unit", "test@unit 2.16"]
    out = run_report(timings)
    assert "unit 2.16: test_one.py" in out and "unit: test_one.py" in out
