"""One run settles, also when an operation fails (issue 23): the result says changed=true whenever the task wrote,
the record claims only what really applied, and the next run finishes the job. Real ansible-playbook against the
session emulator; faults come from the emulator's fault rules, and every assertion about the cloud reads its admin
API or its request log."""

from __future__ import annotations

from typing import Any

from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.lifecycle.test_settle_in_one_run import (
    PG,
    S3_SERVICE_ID,
    operations_of,
    s3_task,
)
from tests.integration.modules.playbook import PlaybookRunner, write_calls

FLASK_SERVICE_ID = 89


def fail_next(emu: EmulatorServer, operation: str, service_id: int) -> None:
    """The emulator fails the next `operation` of the service at its last stage (fault `fail_stage`)."""
    emu.add_faults([{"kind": "fail_stage", "operation": operation, "service": service_id, "count": 1}])


def the_instance(emu: EmulatorServer, service_id: int, name: str) -> dict[str, Any]:
    (live,) = deck.live_named(emu, service_id, name)  # exactly one: a failed run never makes a second
    return live


def operation_names(requests: list[dict[str, Any]]) -> list[str]:
    """The operations the logged requests created (POST /instanceOperations)."""
    return [str(r["body"]["operation"]) for r in write_calls(requests) if r["path"] == "/instanceOperations"]


def test_a_failed_redeploy_after_the_create_is_redeployed_by_the_next_run(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """P14, P18 (issue 23): flask's create takes no git revision, so the redeploy after it deploys `git_revision`.
    When that redeploy fails, the task fails with changed=true (it created the app), and the record must not claim
    the revision: the next run redeploys it (the request log shows the redeploy, the live revision is v1), and the
    run after that is empty (P16)."""
    name = unique("settle-redeploy")
    app = {
        "resource_name": name,
        "domain": name,
        "resource_realm": REALM,
        "git_path": "https://git.example.com/a.git",
        "git_revision": "v1",
    }
    fail_next(emu, "redeploy", FLASK_SERVICE_ID)
    failed = playbook.one("flask", app)
    assert failed.get("failed") and failed["changed"] is True, failed
    uid = the_instance(emu, FLASK_SERVICE_ID, name)["instanceUid"]
    assert [(op["operation"], op["isSuccessful"]) for op in operations_of(emu, uid)] == [
        ("create", True),
        ("redeploy", False),
    ]
    assert deck.instance(emu, uid)["state"]["params"].get("gitRevision") != "v1"

    seq = emu.last_seq
    again = playbook.one("flask", app)
    assert not again.get("failed") and again["operations"] == ["redeploy"], again.get("msg")
    assert operation_names(emu.requests(since=seq)) == ["redeploy"]
    assert deck.instance(emu, uid)["state"]["params"]["gitRevision"] == "v1"
    seq = emu.last_seq
    settled = playbook.one("flask", app)
    assert settled["changed"] is False and write_calls(emu.requests(since=seq)) == [], settled


def test_a_failed_create_operation_fails_with_changed_true(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23, Ansible's convention (P20): the create's operation fails (an emulator fault). The task had written
    (the instance and its create operation exist in the emulator, which shows the instance failed), so the failed
    result says changed=true, not false."""
    name = unique("settle-failcreate")
    fail_next(emu, "create", S3_SERVICE_ID)
    seq = emu.last_seq
    failed = playbook.one("s3", s3_task(name))
    assert failed.get("failed") and failed["changed"] is True, failed
    assert operation_names(emu.requests(since=seq)) == ["create"]
    live = the_instance(emu, S3_SERVICE_ID, name)
    assert live["explainedStatus"] == "failed"
    assert [(op["operation"], op["isSuccessful"]) for op in operations_of(emu, live["instanceUid"])] == [
        ("create", False)
    ]


def test_a_failed_modify_after_the_create_fails_with_changed_true(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23, Ansible's convention (P20, P38): S3's `max_size_gb_per_user` is applied by a modify right after
    the create; when that modify fails, the task fails with changed=true (the storage was created: the emulator
    shows it running without the quota), and the next run applies the quota with one modify."""
    name = unique("settle-failmodify")
    task = s3_task(name, max_size_gb_per_user=50)
    fail_next(emu, "modify", S3_SERVICE_ID)
    failed = playbook.one("s3", task)
    assert failed.get("failed") and failed["changed"] is True, failed
    live = the_instance(emu, S3_SERVICE_ID, name)
    uid = live["instanceUid"]
    assert live["explainedStatus"] == "running"
    assert str(live["state"]["params"].get("maxSizeGbPerUser")) != "50"
    assert [(op["operation"], op["isSuccessful"]) for op in operations_of(emu, uid)] == [
        ("create", True),
        ("modify", False),
    ]
    seq = emu.last_seq
    again = playbook.one("s3", task)
    assert not again.get("failed") and again["operations"] == ["modify"], again.get("msg")
    assert operation_names(emu.requests(since=seq)) == ["modify"]
    assert str(deck.instance(emu, uid)["state"]["params"]["maxSizeGbPerUser"]) == "50"


def test_absent_by_name_without_a_record_shows_the_suspended_instance(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 23 (P29): `state: absent` suspends the instance and forgets it; a later `absent` by name, with no
    record, finds the suspended instance (it is live) and reports it as `suspended` with its uid, never `missing`;
    it writes nothing, and the emulator shows the instance suspended, as `absent` asks."""
    name = unique("settle-absent")
    task = {"resource_name": name, "s3_uid": s3_uids[0], **PG}
    uid = playbook.one("postgres", task)["instance_uid"]
    suspended = playbook.one("postgres", {**task, "state": "absent"})
    assert not suspended.get("failed") and suspended["operations"] == ["suspend"], suspended
    seq = emu.last_seq
    found = playbook.one("postgres", {"resource_name": name, "state": "absent"})
    assert not found.get("failed") and found["changed"] is False, found
    assert write_calls(emu.requests(since=seq)) == []
    assert found["status"] == "suspended" and found["instance"]["status"] == "suspended", found
    assert found["instance_uid"].lower() == uid.lower()
    assert deck.instance(emu, uid)["explainedStatus"] == "suspended"


def values_written(requests: list[dict[str, Any]], operation: dict[str, Any]) -> dict[str, list[Any]]:
    """code -> every value the logged requests wrote into the operation's param rows (a POST names the param's id, a
    PUT the row's uid), in order."""
    params = operation["cfsParams"]
    by_id = {int(p["svcOperationCfsParamId"]): p["svcOperationCfsParam"] for p in params}
    by_row = {str(p["instanceOperationCfsParamUid"]).lower(): p["svcOperationCfsParam"] for p in params}
    written: dict[str, list[Any]] = {}
    for request in write_calls(requests):
        body = request["body"] if isinstance(request["body"], dict) else {}
        if request["path"] != "/instanceOperationCfsParams":
            continue
        param_id = body.get("svcOperationCfsParamId")
        code = by_id.get(int(param_id)) if param_id is not None else None
        code = code or by_row.get(str(body.get("instanceOperationCfsParamUid")).lower())
        if code is not None:
            written.setdefault(code, []).append(body.get("paramValue"))
    return written


def test_a_postgres_memory_change_keeps_the_ip_spaces_it_never_set(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """P38 WithDefaults (issue 23): a PostgreSQL memory change, by a task that leaves out the IP spaces set on create,
    sends the new memory and never `ipSpaceNameMaster=""` / `ipSpaceNameSlave=""`: the request bodies in the log
    write no other value into those rows than the live one, the modify operation ends with the live values, and
    the emulator keeps them; the diff shows them unchanged."""
    name = unique("settle-pgmem")
    spaces = {"ip_space_name_master": "space-primary", "ip_space_name_slave": "space-replica"}
    task = {"resource_name": name, "s3_uid": s3_uids[0], **PG}
    uid = playbook.one("postgres", {**task, **spaces})["instance_uid"]
    live = deck.instance(emu, uid)["state"]["params"]
    assert (live["ipSpaceNameMaster"], live["ipSpaceNameSlave"]) == ("space-primary", "space-replica")
    memory = int(live["resourceMemory"]) + 512
    seq = emu.last_seq
    changed = playbook.one("postgres", {**task, "resource_memory": memory}, diff=True)
    assert not changed.get("failed") and changed["operations"] == ["modify"], changed.get("msg")
    modify = operations_of(emu, uid)[-1]
    written = values_written(emu.requests(since=seq), modify)
    assert [str(v) for v in written["resourceMemory"]] == [str(memory)], written
    assert set(written.get("ipSpaceNameMaster", [])) <= {"space-primary"}, written
    assert set(written.get("ipSpaceNameSlave", [])) <= {"space-replica"}, written
    ended = {p["svcOperationCfsParam"]: p["paramValue"] for p in modify["cfsParams"]}
    assert (ended["ipSpaceNameMaster"], ended["ipSpaceNameSlave"]) == ("space-primary", "space-replica")
    after = deck.instance(emu, uid)["state"]["params"]
    assert (after["ipSpaceNameMaster"], after["ipSpaceNameSlave"]) == ("space-primary", "space-replica")
    assert str(after["resourceMemory"]) == str(memory)
    for option, value in spaces.items():
        assert changed["diff"]["before"].get(option) == changed["diff"]["after"].get(option) == value, changed["diff"]
