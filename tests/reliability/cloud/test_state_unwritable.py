"""The state becomes unwritable while a create is in flight (issue 24): the task names the instance it created and
what the next run does, and the next run finds that instance instead of making a second one.

The state directory is swapped for a plain file while the API holds `POST /instances`, so every later write of the
module fails with a real OSError (`Not a directory`), as a full disk or a read-only mount would fail it; root
ignores permission bits, and this needs no privilege. The emulator's instances are the truth checked.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.emulator import EmulatorServer
from tests.reliability.cloud.crash import wait_for
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import live_instances, state_records

DUMMY_ID = 1


def test_state_lost_after_a_create_names_the_instance_and_the_next_run_finishes_it(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24 (P42 beyond): before, the task failed with a bare `[Errno 20] Not a directory` (a full disk gave
    `[Errno 28] No space left on device`) and said nothing of the instance it had just created."""
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    fleet = Fleet(tmp_path / "runs", emu.endpoint, emu.token, size=1)
    fleet.extra_env["NUBES_STATE_PATH"] = str(state_dir / "state.json")
    name = prefix + "-nostate"
    task = {
        "name": "dummy",
        "nubes.cloud.dummy": {"resource_name": name, "resource_realm": "dummy", "bodymessage": "v1"},
    }
    emu.set_faults([{"kind": "latency", "ms": 3000, "method": "POST", "path": "/instances", "count": 1}])
    proc, run_dir = fleet.start([task], hosts=["r0"])
    try:
        wait_for(lambda: emu.faults()[0].get("fired", 0) >= 1 or proc.poll() is not None, "the held create")
        state_dir.rename(tmp_path / "state.away")
        state_dir.write_text("not a directory\n", encoding="utf-8")
        stdout, _stderr = proc.communicate(timeout=120)
    finally:
        emu.clear_faults()
    live = live_instances(emu, DUMMY_ID, [name])
    assert len(live) == 1, live
    uid = live[0]["instanceUid"]
    result = json.loads((run_dir / "results" / "r0.json").read_text(encoding="utf-8"))[0]
    assert result["failed"] is True and result["changed"] is True
    assert uid in result["msg"] and "the next run finds the instance by its name" in result["msg"], result["msg"]
    assert "Traceback" not in stdout

    state_dir.unlink()
    (tmp_path / "state.away").rename(state_dir)  # space is back
    rerun = fleet.run([task], hosts=["r0"]).last()["r0"]
    assert rerun.get("failed") is not True, rerun.get("msg")
    live = live_instances(emu, DUMMY_ID, [name])
    assert [i["instanceUid"] for i in live] == [uid]
    record = state_records(state_dir / "state.json", "dummy")[name]
    assert record["status"] == "present" and record["instance_uid"].lower() == uid.lower()
