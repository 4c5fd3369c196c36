"""Writes whose outcome is unknown (issue 24): a create that the API is slow to commit, or commits and answers 500,
is read back until the placeholder appears; nothing is created twice and nothing is left untracked.

Each case runs the real `ansible-playbook` against the session emulator and counts the live instances in the
emulator's own state (`/_emulator/instances`), never the module's result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.emulator import EmulatorServer
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import assert_reconciled, live_instances, state_records

DUMMY_ID = 1


def dummy(name: str, **extra: Any) -> dict[str, Any]:
    args = {"resource_name": name, "resource_realm": "dummy", "bodymessage": "v1", **extra}
    return {"name": "dummy", "nubes.cloud.dummy": args}


def writes_since(emu: EmulatorServer, seq: int) -> list[tuple[str, str]]:
    return [(r["method"], r["path"]) for r in emu.requests(since=seq) if r["method"] != "GET"]


def one_host(emu: EmulatorServer, workdir: Path) -> Fleet:
    return Fleet(workdir, emu.endpoint, emu.token, size=1)


def test_a_create_slower_than_request_timeout_is_read_back_not_posted_twice(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24 (P42 beyond): `POST /instances` held 10 s with `request_timeout: 3`. The task times out, then reads
    the name until the server's late placeholder appears, records it and finishes the create on it: one live
    instance, tracked, and a re-run writes nothing. Before, the task failed saying nothing was created, and a
    re-run made a second instance."""
    fleet = one_host(emu, tmp_path)
    name = prefix + "-slow"
    emu.set_faults([{"kind": "latency", "ms": 10_000, "method": "POST", "path": "/instances", "count": 1}])
    try:
        run = fleet.run([dummy(name, request_timeout=3)])
    finally:
        emu.clear_faults()
    result = run.last()["r0"]
    assert result.get("failed") is not True, result.get("msg")
    live = live_instances(emu, DUMMY_ID, [name])
    assert len(live) == 1, live
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", [name])
    assert state_records(fleet.state_path, "dummy")[name]["status"] == "present"
    seq = emu.last_seq
    again = fleet.run([dummy(name, request_timeout=3)]).last()["r0"]
    assert again["changed"] is False and writes_since(emu, seq) == []
    assert len(live_instances(emu, DUMMY_ID, [name])) == 1


def test_a_500_on_a_create_the_api_committed_adopts_the_placeholder(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24: a 500 on `POST /instances` whose instance the server did commit counts as "outcome unknown". The
    placeholder is read back and recorded, and the same run finishes the create: one live instance, tracked. Before,
    the record was dropped and the next run refused to touch the untracked placeholder."""
    fleet = one_host(emu, tmp_path)
    name = prefix + "-c500"
    emu.set_faults(
        [{"kind": "http", "status": 500, "method": "POST", "path": "/instances", "count": 1, "commit": True}]
    )
    try:
        result = fleet.run([dummy(name)]).last()["r0"]
    finally:
        emu.clear_faults()
    assert result.get("failed") is not True, result.get("msg")
    assert len(live_instances(emu, DUMMY_ID, [name])) == 1
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", [name])
    assert state_records(fleet.state_path, "dummy")[name]["status"] == "present"


def test_a_500_on_a_create_the_api_dropped_says_what_the_next_run_does(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24: a 500 whose instance never appears fails without claiming that nothing was created; the record
    keeps the request (`create_requested`), and the next run, with no instance to adopt, creates exactly one."""
    fleet = one_host(emu, tmp_path)
    name = prefix + "-d500"
    emu.set_faults([{"kind": "http", "status": 500, "method": "POST", "path": "/instances", "count": 1}])
    try:
        result = fleet.run([dummy(name)]).last()["r0"]
    finally:
        emu.clear_faults()
    assert result.get("failed") is True and result["changed"] is True
    assert "nothing was created" not in result["msg"]
    assert "has appeared in the" in result["msg"] and "next run adopts" in result["msg"], result["msg"]
    assert live_instances(emu, DUMMY_ID, [name]) == []
    record = state_records(fleet.state_path, "dummy")[name]
    # the request is kept, marked as read to the end of its window, so the next run posts without waiting again
    assert record["status"] == "create_requested" and record["window_passed"] is True
    rerun = fleet.run([dummy(name)]).last()["r0"]
    assert rerun.get("failed") is not True, rerun.get("msg")
    assert len(live_instances(emu, DUMMY_ID, [name])) == 1
    assert_reconciled(emu, fleet.state_path, DUMMY_ID, "dummy", [name])


def test_two_workspaces_on_one_store_never_create_one_name_twice(
    emu: EmulatorServer, tmp_path: Path, prefix: str
) -> None:
    """Issue 24 (P42): two workspaces share one state file and create the same display name at once, with the first
    `POST /instances` slowed 15 s. The name lock spans workspaces, so the second waits, then finds the first's
    instance and refuses it (it is not its own): one live instance. Before, both created one."""
    fleet = Fleet(tmp_path, emu.endpoint, emu.token, size=2)
    name = prefix + "-ws"
    emu.set_faults([{"kind": "latency", "ms": 15_000, "method": "POST", "path": "/instances", "count": 1}])
    try:
        run = fleet.run([dummy(name, workspace="ws-{{ inventory_hostname }}")])
    finally:
        emu.clear_faults()
    results = run.last()
    live = live_instances(emu, DUMMY_ID, [name])
    assert len(live) == 1, live
    succeeded = [host for host, result in results.items() if result.get("failed") is not True]
    refused = [result for result in results.values() if result.get("failed") is True]
    assert len(succeeded) == 1 and len(refused) == 1, results
    assert "adopt_existing_on_create" in refused[0]["msg"], refused[0]["msg"]
    assert (
        state_records(fleet.state_path, "dummy", workspace=f"ws-{succeeded[0]}")[name]["instance_uid"]
        == (live[0]["instanceUid"])
    )
