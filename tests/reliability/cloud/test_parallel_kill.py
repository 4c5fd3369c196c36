"""Operations in parallel under a crash: SIGKILL of ansible-playbook after three `wait: false` creates were started
and while the `nubes.cloud.operation_info` task waits for them; the same play run again creates nothing twice.

The emulator's clock is held while the first run goes on, so the operations are certainly still running when the
play is killed, however slow the machine; what the test checks is read from the emulator (its instances and its
request log) and the state file.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from tests.emulator import EmulatorServer
from tests.reliability.cloud.crash import wait_for
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import assert_reconciled

REALM = "k8s-3.ext.nubes.ru"
SERVICES = (("redis", 91), ("s3", 12), ("flask", 89))


def play(prefix: str) -> list[dict[str, Any]]:
    """Three independent creates without waiting, then one task that waits for all of them."""
    tasks: list[dict[str, Any]] = []
    for module, _service_id in SERVICES:
        args: dict[str, Any] = {"resource_name": f"{prefix}-{module}", "resource_realm": REALM, "wait": False}
        if module == "s3":
            args["display_name"] = prefix
        if module == "flask":
            args.update(domain=prefix, git_path="https://git.example.org/app.git")
        tasks.append({"name": module, f"nubes.cloud.{module}": args})
    tasks.append({"name": "wait", "nubes.cloud.operation_info": {"operations": "{{ [t0, t1, t2] }}", "wait": True}})
    return tasks


def creates(emu: EmulatorServer, prefix: str) -> list[dict[str, Any]]:
    return [o for o in emu.operations() if o["operation"] == "create" and o["displayName"].startswith(prefix + "-")]


def test_play_killed_while_waiting_then_rerun_creates_no_duplicate(
    emu: EmulatorServer, fleet: Fleet, prefix: str
) -> None:
    """P42 (beyond), P27, P16: killed between starting three creates and the end of their wait, the play run again
    starts no second instance and no second operation (request log), waits for the first run's operations, and
    leaves exactly one running, recorded instance per resource (emulator instances, state file)."""
    emu.configure(durations={"create": 2.0})
    emu.clock.freeze()
    try:
        proc, _run_dir = fleet.start(play(prefix), hosts=["r0"])
        try:
            wait_for(lambda: len(creates(emu, prefix)) == 3 and all(o["dtSubmit"] for o in creates(emu, prefix)),
                     "the three creates to run")  # fmt: skip
            first = creates(emu, prefix)[0]["instanceOperationUid"].lower()
            since = emu.last_seq
            wait_for(  # the wait task's first read of the operations: the play is between start and wait
                lambda: any(r["method"] == "GET" and first in r["path"].lower() for r in emu.requests(since)),
                "the operation_info task to read the operations",
            )
            assert proc.poll() is None, "the play ended before it was killed"
            os.killpg(proc.pid, signal.SIGKILL)
        finally:
            proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
    finally:
        emu.clock.unfreeze()

    seq = emu.last_seq
    rerun = fleet.run(play(prefix), hosts=["r0"]).results["r0"]
    *started, waited = rerun
    writes = [(r["method"], r["path"]) for r in emu.requests(since=seq) if r["method"] != "GET"]
    assert [w for w in writes if "/_emulator/" not in w[1]] == []  # no second instance, no second operation
    for result in started:
        assert not result.get("failed"), result.get("msg")
        assert result["decision"] in ("in_flight", "none") and result["changed"] is False
    assert not waited.get("failed"), waited.get("msg")
    assert len(creates(emu, prefix)) == 3 and all(o["isSuccessful"] is True for o in creates(emu, prefix))
    for module, service_id in SERVICES:
        live = assert_reconciled(emu, fleet.state_path, service_id, module, [f"{prefix}-{module}"])
        assert len(live) == 1 and live[0]["explainedStatus"] == "running"
