"""`ansible-playbook --check --diff examples/demo.yml` runs the demo's whole stack as a plan (issue 27): it ends
with rc 0 on an emulator that holds nothing yet, and the emulator's request log shows no write request."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import write_calls

REPO = Path(__file__).resolve().parents[3]
BIN = REPO / ".venv" / "bin"
pytestmark = pytest.mark.slow


def test_demo_check_diff_plans_the_stack_and_writes_nothing(tmp_path: Path) -> None:
    """Issue 27 (P12): check mode on a new stack runs through tasks that use outputs and uids of planned
    resources: the Flask app's json_env takes the planned S3 storage's endpoint output through `default()`, and
    its diff shows the default (docs/using-modules.md); the demo's result checks run only in a real run; no write
    reaches the API."""
    with EmulatorServer(seed=11, op_duration=0.2) as emu:
        env = dict(
            os.environ,
            NUBES_API_ENDPOINT=emu.endpoint,
            NUBES_API_TOKEN=emu.token,
            NUBES_STATE_PATH=str(tmp_path / "state.json"),
            NUBES_WORKSPACE="demo-check",
            ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
            ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
        )
        proc = subprocess.run(
            [str(BIN / "ansible-playbook"), "--check", "--diff", "examples/demo.yml"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        assert write_calls(emu.requests()) == []
        assert emu.instances() == []
        assert "failed=0" in proc.stdout
        assert "(known after the S3 storage is created)" in proc.stdout  # the planned output's default, in the diff
