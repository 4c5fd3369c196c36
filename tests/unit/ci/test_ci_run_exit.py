"""`.ci/run` exits with its checks' result (issue 22): the trap that stops the background cluster build never
changes it, also when the build ended long before the run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def stop_background_build_source() -> str:
    """The function and the trap line of `.ci/run`, exactly as CI runs them."""
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^stop_background_build\(\) \{\n.*?^\}\n", text, re.M | re.S)
    trap = re.search(r"^trap stop_background_build EXIT\n", text, re.M)
    assert function and trap, ".ci/run no longer stops its background build with stop_background_build"
    return function.group(0) + trap.group(0)


@pytest.mark.parametrize("last_check, expected_rc", [("true", 0), ("false", 1)])
def test_the_exit_code_is_the_checks_also_after_the_build_ended(last_check: str, expected_rc: int) -> None:
    """A build that ended before the run (a warm cache: `pkill` finds no child) leaves a passing run at 0 and a
    failing one at 1. Before the fix, `set -e` inside the trap turned every passing run into exit code 1."""
    script = "set -euo pipefail\nsleep 0 &\nbuild_pid=$!\n" + stop_background_build_source()
    script += 'wait "$build_pid"\n' + last_check + "\n"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    assert proc.returncode == expected_rc, proc.stderr


def test_a_build_still_running_at_the_end_is_stopped() -> None:
    """A build still running when the run ends (the run failed early) is stopped with its children. The script
    first waits (bounded) until the build has its child, as a build that runs for minutes has: before that, the
    subshell may not have forked it yet, and a child forked after the trap would outlive it."""
    started = 'for _ in $(seq 100); do pgrep -P "$build_pid" >/dev/null && break; sleep 0.05; done\n'
    script = "set -euo pipefail\n(sleep 30; echo late) &\nbuild_pid=$!\n" + started
    script += stop_background_build_source() + "true\n"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False, timeout=10)
    assert proc.returncode == 0, proc.stderr
    assert "late" not in proc.stdout
