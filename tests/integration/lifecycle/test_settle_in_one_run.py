"""One run settles, and the result tells the truth about what it wrote (issue 23). Real ansible-playbook against
the session emulator; every assertion about the cloud reads the emulator's admin API or its request log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import yaml

from ansible_collections.nubes.cloud.plugins.modules import postgres
from tests.emulator import EmulatorServer
from tests.integration.contract.contract_plan import as_live_text
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, in_process, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

S3_SERVICE_ID = 12
POSTGRES_SERVICE_ID = 90
PG = {"resource_realm": REALM}
REPO = Path(__file__).resolve().parents[3]
S3_SPEC = yaml.safe_load((REPO / "specs" / "s3.yml").read_text(encoding="utf-8"))


def s3_task(name: str, **extra: Any) -> dict[str, Any]:
    return {"resource_name": name, "display_name": name, "resource_realm": REALM, **extra}


def test_a_create_past_wait_timeout_fails_with_changed_true(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23, Ansible's convention (P20, P16): a task that wrote to the cloud reports changed=true, also when it
    then fails. A create whose operation outlives wait_timeout created an instance (the emulator lists it), so the
    failed result says changed; the next run waits for the same operation and creates nothing more."""
    name = unique("settle-timeout")
    emu.configure(durations={"s3.create": 4})
    seq = emu.last_seq
    timed_out = playbook.one("s3", s3_task(name, wait_timeout=1))
    assert timed_out.get("failed"), timed_out
    assert timed_out["changed"] is True, timed_out
    assert write_calls(emu.requests(since=seq)), "the create was sent"
    assert len(deck.live_named(emu, S3_SERVICE_ID, name)) == 1
    settled = playbook.one("s3", s3_task(name))
    assert not settled.get("failed"), settled.get("msg")
    (live,) = deck.live_named(emu, S3_SERVICE_ID, name)  # the same instance, not a second one
    assert live["instanceUid"].lower() == settled["instance_uid"].lower()
    assert deck.instance(emu, live["instanceUid"])["explainedStatus"] == "running"


def test_a_task_refused_before_any_write_fails_with_changed_false(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23, the other side of the convention (P16): bad input fails before any write, and the result says
    changed=false."""
    seq = emu.last_seq
    refused = playbook.one("s3_bucket", {"resource_name": unique("settle-bad"), "bucket_name": "", "s3_user_uid": ""})
    assert refused.get("failed") and refused["changed"] is False, refused
    assert write_calls(emu.requests(since=seq)) == []


def test_a_uid_of_another_service_is_refused_before_any_write(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """P37 for uids (issue 23): `s3_uid` given the uid of a PostgreSQL fails before any write (no placeholder
    instance, no operation, no param in the request log), with a message naming both services, as the same
    reference given by name does; a uid nothing has fails the same way."""
    other = in_process(
        emu, postgres, tmp_path / "elsewhere.json", resource_name=unique("settle-pg"), s3_uid=s3_uids[0], **PG
    )["instance_uid"]
    name = unique("settle-ref")
    seq = emu.last_seq
    refused = playbook.one("postgres", {"resource_name": name, "s3_uid": other, **PG})
    assert refused.get("failed") and refused["changed"] is False, refused
    assert write_calls(emu.requests(since=seq)) == []
    msg = refused["msg"]
    assert f"s3_uid: {other} is an instance of" in msg and "(service 90), not of" in msg and "(service 12)" in msg, msg
    assert deck.live_named(emu, POSTGRES_SERVICE_ID, name) == []

    missing = "0a0b0c0d-0000-4000-8000-000000000000"
    seq = emu.last_seq
    unknown = playbook.one("postgres", {"resource_name": name, "s3_uid": missing, **PG})
    assert unknown.get("failed") and f"s3_uid: no live instance has the uid {missing}" in unknown["msg"], unknown
    assert write_calls(emu.requests(since=seq)) == []

    accepted = playbook.one("postgres", {"resource_name": name, "s3_uid": s3_uids[0], **PG})
    assert not accepted.get("failed"), accepted.get("msg")
    assert deck.instance(emu, accepted["instance_uid"])["state"]["params"]["s3Uid"].lower() == s3_uids[0].lower()


def test_destroy_by_name_without_a_record_shows_the_suspended_instance(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 23 (P29): `state: absent` suspends the instance and forgets it; a later `state: deleted` by name finds the
    suspended instance (it is live), reports it as `suspended` with its uid, never `missing`, and leaves it alone
    with a warning naming the way to delete it; `deleted` with its instance_uid then deletes it (emulator state)."""
    name = unique("settle-sus")
    task = {"resource_name": name, "s3_uid": s3_uids[0], **PG}
    uid = playbook.one("postgres", task)["instance_uid"]
    suspended = playbook.one("postgres", {**task, "state": "absent"})
    assert not suspended.get("failed") and suspended["operations"] == ["suspend"], suspended
    assert deck.instance(emu, uid)["explainedStatus"] == "suspended"
    seq = emu.last_seq
    found = playbook.one("postgres", {"resource_name": name, "state": "deleted"})
    assert not found.get("failed"), found.get("msg")
    assert found["changed"] is False and write_calls(emu.requests(since=seq)) == []
    assert found["instance"]["status"] == "suspended" and found["instance_uid"].lower() == uid.lower(), found
    assert any("instance_uid" in w for w in found.get("warnings", [])), found.get("warnings")
    assert deck.instance(emu, uid)["explainedStatus"] == "suspended"
    deleted = playbook.one("postgres", {"resource_name": name, "instance_uid": uid, "state": "deleted"})
    assert not deleted.get("failed") and deleted["changed"] is True, deleted.get("msg")
    assert deck.instance(emu, uid)["explainedStatus"] == "deleted"


def operations_of(emu: EmulatorServer, uid: str) -> list[dict[str, Any]]:
    return [op for op in emu.operations() if op["instanceUid"].lower() == uid.lower()]


def test_a_param_only_modify_takes_is_applied_in_the_create_run(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23 (P38, P16): `max_size_gb_per_user` is a param of S3's modify operation only. The create run applies
    it with a modify right after the create (the result and check mode say so), so the live value equals the task
    after one run, and the second run is changed=false with zero writes."""
    name = unique("settle-quota")
    task = s3_task(name, max_size_gb_per_user=50)
    planned = playbook.one("s3", task, check=True)
    assert planned["changed"] and planned["operations"] == ["create", "modify"], planned
    created = playbook.one("s3", task, diff=True)
    assert not created.get("failed") and created["operations"] == ["create", "modify"], created.get("msg")
    uid = created["instance_uid"]
    assert str(deck.instance(emu, uid)["state"]["params"]["maxSizeGbPerUser"]) == "50"
    assert created["diff"]["after"]["max_size_gb_per_user"] in (50, "50")
    seq = emu.last_seq
    again = playbook.one("s3", task)
    assert again["changed"] is False and write_calls(emu.requests(since=seq)) == [], again


def test_a_git_revision_given_on_create_is_deployed_in_the_same_run(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23 (P14, P18, P16): flask's create operation takes no git revision, so a create with `git_revision` is
    followed by a redeploy of that revision in the same task (the emulator's operation log shows it with the
    revision); the next run with the same revision changes nothing, and a new revision is deployed once."""
    name = unique("settle-app")
    app = {"resource_name": name, "domain": name, "resource_realm": REALM, "git_path": "https://git.example.com/a.git"}
    created = playbook.one("flask", {**app, "git_revision": "v1"})
    assert not created.get("failed") and created["operations"] == ["create", "redeploy"], created.get("msg")
    ops = operations_of(emu, created["instance_uid"])
    assert [op["operation"] for op in ops] == ["create", "redeploy"]
    revision = {p["svcOperationCfsParam"]: p["paramValue"] for p in ops[1]["cfsParams"]}.get("gitRevision")
    assert revision == "v1" and all(op["isSuccessful"] for op in ops)
    seq = emu.last_seq
    again = playbook.one("flask", {**app, "git_revision": "v1"})
    assert again["changed"] is False and write_calls(emu.requests(since=seq)) == [], again
    moved = playbook.one("flask", {**app, "git_revision": "v2"})
    assert moved["operations"] == ["redeploy"]
    assert [op["operation"] for op in operations_of(emu, created["instance_uid"])] == ["create", "redeploy", "redeploy"]


def test_the_diff_of_a_modify_shows_every_value_it_sends(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P38 WithDefaults and issue 23: a modify sends every param of the operation (the task's value, else the live
    one, else the API default, else the zero value), so the diff shows each one whose sent value differs from the
    live one, not only the option the task changed. Checked against the values the emulator received."""
    name = unique("settle-diff")
    uid = playbook.one("s3", s3_task(name))["instance_uid"]
    live_before = {k: as_live_text(v) for k, v in deck.instance(emu, uid)["state"]["params"].items()}
    changed = playbook.one("s3", s3_task(name, max_size_gb_per_user=50), diff=True)
    assert changed["operations"] == ["modify"], changed.get("msg")
    modify = operations_of(emu, uid)[-1]
    sent = {p["svcOperationCfsParam"]: p["paramValue"] for p in modify["cfsParams"] if p["paramValue"] is not None}
    differing = {code: value for code, value in sent.items() if live_before.get(code, "") != value}
    assert "maxSizeGbPerUser" in differing and len(differing) > 1, differing  # more than the task's option
    options = {p["code"]: p["option"] for p in S3_SPEC["params"]}
    after, before = changed["diff"]["after"], changed["diff"]["before"]
    for code, value in differing.items():
        option = options[code]
        assert as_live_text(after.get(option)) == value, (option, after.get(option), value)
        assert as_live_text(before.get(option)) != value, (option, before.get(option), value)


def test_a_disk_that_autoscale_grew_is_never_shrunk(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 23 (P16, P38; beyond the seed: the autoscale default): with autoScale on (the live catalogue's default),
    the platform grows `resourceDisk` (modelled by the emulator's admin call `grow-disk`); a task that states
    `resource_disk` leaves the grown disk alone (no modify, no write) and warns so, instead of shrinking it on every
    run. A disk smaller than the task's is still corrected."""
    name = unique("settle-disk")
    task = {"resource_name": name, "s3_uid": s3_uids[0], "resource_disk": 10, **PG}
    uid = playbook.one("postgres", task)["instance_uid"]
    assert str(deck.instance(emu, uid)["state"]["params"]["autoScale"]).lower() == "true"
    grown_live = httpx.post(f"{emu.admin_url}/instances/{uid}/grow-disk", json={"gb": 15}, timeout=30)
    assert grown_live.status_code == 200, grown_live.text
    seq = emu.last_seq
    kept = playbook.one("postgres", task)
    assert not kept.get("failed") and kept["changed"] is False, kept
    assert write_calls(emu.requests(since=seq)) == []
    assert any("autoScale is on" in w and "never shrunk" in w for w in kept.get("warnings", [])), kept
    assert str(deck.instance(emu, uid)["state"]["params"]["resourceDisk"]) == "15"
    grown = playbook.one("postgres", {**task, "resource_disk": 20})
    assert grown["operations"] == ["modify"], grown.get("msg")
    assert str(deck.instance(emu, uid)["state"]["params"]["resourceDisk"]) == "20"


def test_ignore_changes_leaves_a_changed_param_alone(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23 (P38, P16; beyond the seed: ignore_changes): an option listed in ignore_changes is set on create and
    then left alone: a value another tool set is neither compared nor sent (no write); without the option, the next
    run corrects it."""
    name = unique("settle-ignore")
    task = s3_task(name, max_size_gb_per_user=50, ignore_changes=["max_size_gb_per_user"])
    uid = playbook.one("s3", task)["instance_uid"]
    assert str(deck.instance(emu, uid)["state"]["params"]["maxSizeGbPerUser"]) == "50"  # set on create
    deck.run_operation(emu, uid, "modify", {"maxSizeGbPerUser": "70"})  # another tool changes it
    seq = emu.last_seq
    left = playbook.one("s3", task)
    assert left["changed"] is False and write_calls(emu.requests(since=seq)) == [], left
    assert str(deck.instance(emu, uid)["state"]["params"]["maxSizeGbPerUser"]) == "70"
    corrected = playbook.one("s3", s3_task(name, max_size_gb_per_user=50))
    assert corrected["operations"] == ["modify"], corrected.get("msg")
    assert str(deck.instance(emu, uid)["state"]["params"]["maxSizeGbPerUser"]) == "50"
