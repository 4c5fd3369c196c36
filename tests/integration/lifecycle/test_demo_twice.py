"""The demo deletes what it creates: `make demo` twice against one emulator passes, and afterwards the emulator
holds no instance that is not deleted (its admin API is read, not the playbook's own output)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow


def run_demo(emu: EmulatorServer) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEMO_ENDPOINT=emu.endpoint, DEMO_TOKEN=emu.token, DEMO_COMPONENT="no")
    return subprocess.run(
        ["bash", "scripts/demo.sh"], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=900
    )


def test_demo_twice_on_one_emulator() -> None:
    """P12/P29: the demo's destroy step really deletes (state=deleted): nothing keeps running, so a second run
    against the same endpoint passes too."""
    with EmulatorServer(seed=7, op_duration=0.2) as emu:
        for attempt in (1, 2):
            proc = run_demo(emu)
            assert proc.returncode == 0, f"demo run {attempt} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
            instances = emu.instances()
            assert len(instances) >= 4 * attempt  # s3, bucket, postgres, flask per run
            assert [i["displayName"] for i in instances if not i.get("isDeleted")] == []
            if attempt == 1:
                assert_the_app_got_the_s3_endpoint(instances)


def assert_the_app_got_the_s3_endpoint(instances: list[dict[str, Any]]) -> None:
    """Issue 27: a real run never takes the check-mode default of examples/tasks/demo-apply.yml: the Flask app's
    live jsonEnv holds the endpoint output of the S3 storage it was created after (the emulator's state, kept after
    the delete)."""
    (s3,) = [i for i in instances if i["displayName"] == "nubes-demo-s3"]
    (app,) = [i for i in instances if i["displayName"] == "nubes-demo-app"]
    env = app["state"]["params"]["jsonEnv"]
    env = json.loads(env) if isinstance(env, str) else env
    assert env["S3_ENDPOINT"] == s3["state"]["out"]["endpoint"] and env["S3_ENDPOINT"].startswith("https://")
