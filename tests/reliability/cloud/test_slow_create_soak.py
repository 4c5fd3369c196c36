"""Slow creates with the module killed at random points and re-run at random delays (issue 24's "done when").

Each round creates one name while the API holds `POST /instances` longer than the task's `request_timeout`. The
playbook and its module process are SIGKILLed after a random delay (before, during or after the held create), and
the task is run again after another random delay, possibly while the server is still holding the first request.
Everything random comes from one seeded generator, and each delay is bounded. After each round the emulator holds
exactly one live instance of the name, tracked by its record; nothing untracked is left.
"""

from __future__ import annotations

import random
import subprocess
import time
from functools import partial
from pathlib import Path
from typing import Any

from tests.emulator import EmulatorServer
from tests.reliability.cloud.crash import wait_for
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import assert_reconciled, live_instances, state_records
from tests.reliability.process_tree import kill_tree

SEED = 20261202
ROUNDS = 6
DUMMY_ID = 1
HOLD_S = 4.0  # the server holds the create this long, then commits it (as a real API finishes a dropped request)
REQUEST_TIMEOUT = 2  # so the client gives up on the held create, and its re-run may come before the commit
KILL_AFTER = (0.0, HOLD_S + 1.5)  # seconds after the held create reached the server
RERUN_AFTER = (0.0, HOLD_S)  # seconds after the kill


def held_or_ended(emu: EmulatorServer, proc: subprocess.Popen[str]) -> bool:
    """The held create reached the server (its fault fired), or the playbook ended before it."""
    return bool(emu.faults()[0].get("fired", 0) >= 1 or proc.poll() is not None)


def slow_dummy(name: str) -> dict[str, Any]:
    args = {
        "resource_name": name,
        "resource_realm": "dummy",
        "bodymessage": "v1",
        "duration_ms": 1000,
        "request_timeout": REQUEST_TIMEOUT,
    }
    return {"name": "dummy", "nubes.cloud.dummy": args}


def test_killed_slow_creates_end_with_one_tracked_instance_per_name(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24, P42 (beyond): seeded random kills of the module while a slow create is held, waited for or read
    back, and re-runs at random delays (some before the server commits), end every round with exactly one live
    instance per name and its record `present` (the emulator's instances against the state file)."""
    rng = random.Random(SEED)
    fleet = Fleet(tmp_path, emu.endpoint, emu.token, size=1)
    names = []
    for round_no in range(ROUNDS):
        name = f"{prefix}-soak{round_no}"
        names.append(name)
        kill_after, rerun_after = rng.uniform(*KILL_AFTER), rng.uniform(*RERUN_AFTER)
        where = f"round {round_no}: killed {kill_after:.1f} s after the create reached the server, re-run "
        where += f"{rerun_after:.1f} s later"
        hold = {"kind": "latency", "ms": int(HOLD_S * 1000), "method": "POST", "path": "/instances", "count": 1}
        emu.set_faults([hold])
        proc, _run_dir = fleet.start([slow_dummy(name)], hosts=["r0"])
        try:
            wait_for(partial(held_or_ended, emu, proc), "the held create")
            held_at = time.monotonic()
            time.sleep(kill_after)
            kill_tree(proc.pid)
            killed_at = time.monotonic()
        finally:
            proc.communicate(timeout=60)
        emu.clear_faults()
        time.sleep(rerun_after)
        result = fleet.run([slow_dummy(name)], hosts=["r0"]).last()["r0"]
        assert result.get("failed") is not True, f"{where}: {result.get('msg')}"
        # the held create has landed once HOLD_S has passed since it reached the server
        time.sleep(max(0.0, held_at + HOLD_S + 0.5 - time.monotonic(), killed_at - time.monotonic()))
        live = live_instances(emu, DUMMY_ID, [name])
        assert len(live) == 1, f"{where}: {live}"
        assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", [name])
        record = state_records(fleet.state_path, "dummy")[name]
        assert record["status"] == "present" and record["instance_uid"].lower() == live[0]["instanceUid"].lower()
    assert len(live_instances(emu, DUMMY_ID, names)) == ROUNDS
