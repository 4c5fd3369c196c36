"""Restart of the API (the emulator in durable mode) in the middle of a playbook of 10 resources."""

from __future__ import annotations

import json
import secrets
import time
import uuid
from pathlib import Path

from tests.emulator import EmulatorServer
from tests.reliability.cloud.crash import wait_for
from tests.reliability.cloud.fleet import PLAYBOOK_TIMEOUT, Fleet
from tests.reliability.cloud.reconcile import assert_clear_failure, assert_reconciled

DUMMY_ID = 1
DOWNTIME_SECONDS = 1.0


def test_api_restart_mid_playbook(tmp_path: Path) -> None:
    """P32-P34, P42 (beyond): the API goes away (stop) and comes back on the same port with its durable state,
    while 10 resources are being created. Every task converges or fails clearly; nothing is duplicated or
    untracked; a re-run converges every resource to one running instance."""
    key = secrets.token_urlsafe(32)
    state_file = tmp_path / "emulator-state.json"
    prefix = "rel-restart-" + uuid.uuid4().hex[:6]
    first = EmulatorServer(seed=5, op_duration=1.5, key=key, state_file=state_file).start()
    port, token = first.port, first.token
    # backoff 1 s / 2 s / 4 s: the retries of reads and of unsent writes outlast the downtime
    fleet = Fleet(tmp_path / "play", first.endpoint, token, extra_env={"NUBES_BACKOFF_SCALE": "0.5"})
    fleet.workdir.mkdir()
    task = {
        "name": "dummy",
        "nubes.cloud.dummy": {"resource_name": prefix + "-{{ inventory_hostname }}", "resource_realm": "dummy"},
    }
    second: EmulatorServer | None = None
    try:
        proc, run_dir = fleet.start([task])
        wait_for(
            lambda: sum(1 for e in first.requests() if e["path"].endswith("/run")) >= 3 or proc.poll() is not None,
            "three operations running",
        )
        assert proc.poll() is None, "the playbook ended before the restart"
        first.stop()
        time.sleep(DOWNTIME_SECONDS)  # the outage itself, not a wait for a result
        second = EmulatorServer(seed=5, op_duration=1.5, key=key, state_file=state_file, port=port).start()
        proc.communicate(timeout=PLAYBOOK_TIMEOUT)
        names = [f"{prefix}-{h}" for h in fleet.hosts]
        results = {p.stem: json.loads(p.read_text())[-1] for p in (run_dir / "results").glob("*.json")}
        assert len(results) == fleet.size
        for result in results.values():
            if result.get("failed"):
                assert_clear_failure(result)
            else:
                assert result["status"] == "running"
        assert_reconciled(second, fleet.state_path, DUMMY_ID, "dummy", names)
        rerun = fleet.run([task]).last()
        for host, result in rerun.items():
            assert not result.get("failed"), f"{host}: {result.get('msg')}"
        live = assert_reconciled(second, fleet.state_path, DUMMY_ID, "dummy", names)
        assert len(live) == fleet.size and {i["explainedStatus"] for i in live} == {"running"}
    finally:
        first.stop()
        if second is not None:
            second.stop()
