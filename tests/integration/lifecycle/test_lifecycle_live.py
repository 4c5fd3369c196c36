"""Live state is the truth: playbook-level lifecycle cases against the emulator (real ansible-playbook).

After every step the test reads the emulator (its admin API and request log), never only the module's own
result. Changes "from another workspace" go straight through the deck-api (deck.py) or through a run with
another state file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.modules import postgres
from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, in_process, unique
from tests.integration.modules.playbook import PlaybookRunner, api_gets, write_calls

pytestmark = pytest.mark.slow


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("failed"), result.get("msg")
    return result


def pg(name: str, s3_uid: str, **extra: Any) -> dict[str, Any]:
    return {"resource_name": name, "s3_uid": s3_uid, "resource_realm": REALM, **extra}


def live_params(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    return deck.instance(emu, uid)["state"]["params"]


def elsewhere(emu: EmulatorServer, tmp_path: Path, name: str, s3_uid: str, **extra: Any) -> str:
    """A postgres created by another workspace (its own state file); returns its uid."""
    created = in_process(emu, postgres, tmp_path / "elsewhere.json", **pg(name, s3_uid, **extra))
    return str(created["instance_uid"])


def test_adopt_applies_changed_params_in_the_same_run(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """P24, P38: adopting a running instance whose live params differ from the task modifies it in the same run;
    the next run is a no-op because the live instance now matches."""
    name = unique("lc-adopt")
    uid = elsewhere(emu, tmp_path, name, s3_uids[0], resource_cpu=500)
    adopted = ok(
        playbook.one("postgres", {**pg(name, s3_uids[0]), "resource_cpu": 1000, "adopt_existing_on_create": True})
    )
    assert adopted["instance_uid"] == uid and adopted["operations"] == ["modify"]
    assert str(live_params(emu, uid)["resourceCPU"]) == "1000"
    seq = emu.last_seq
    again = ok(playbook.one("postgres", {**pg(name, s3_uids[0]), "resource_cpu": 1000}))
    assert again["changed"] is False and write_calls(emu.requests(since=seq)) == []
    assert str(live_params(emu, uid)["resourceCPU"]) == "1000"


def test_resume_with_a_changed_key_param_is_refused_before_any_write(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """P23: a suspended instance whose create-only s3Uid differs from the task is not resumed; the error names the
    param and nothing is written."""
    name = unique("lc-key")
    uid = elsewhere(emu, tmp_path, name, s3_uids[0])
    deck.run_operation(emu, uid, "suspend")
    seq = emu.last_seq
    refused = playbook.one("postgres", {**pg(name, s3_uids[1]), "adopt_existing_on_create": True})
    assert refused.get("failed") and "s3Uid" in refused["msg"] and "create-only" in refused["msg"]
    assert write_calls(emu.requests(since=seq)) == []
    assert deck.instance(emu, uid)["explainedStatus"] == "suspended"


def test_resume_applies_changed_modifiable_params(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """P21, P38: resume + adopt of a suspended instance, then its changed modifiable params, in one run."""
    name = unique("lc-resume")
    uid = elsewhere(emu, tmp_path, name, s3_uids[0], resource_memory=512)
    deck.run_operation(emu, uid, "suspend")
    resumed = ok(
        playbook.one("postgres", {**pg(name, s3_uids[0]), "resource_memory": 2048, "adopt_existing_on_create": True})
    )
    assert resumed["operations"] == ["resume", "modify"] and resumed["instance_uid"] == uid
    live = deck.instance(emu, uid)
    assert live["explainedStatus"] == "running" and str(live["state"]["params"]["resourceMemory"]) == "2048"


def test_out_of_band_change_is_corrected(emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]) -> None:
    """P16/P38: a change made from another workspace is seen live and reverted to the task's value; the diff
    shows the live value before and the task's after."""
    name = unique("lc-oob")
    uid = ok(playbook.one("postgres", pg(name, s3_uids[0], resource_cpu=500)))["instance_uid"]
    deck.run_operation(emu, uid, "modify", {"resourceCPU": "700"})
    assert str(live_params(emu, uid)["resourceCPU"]) == "700"
    corrected = ok(playbook.one("postgres", pg(name, s3_uids[0], resource_cpu=500), diff=True))
    assert corrected["changed"] and corrected["operations"] == ["modify"]
    assert corrected["diff"]["before"]["resource_cpu"] == 700 and corrected["diff"]["after"]["resource_cpu"] == 500
    assert str(live_params(emu, uid)["resourceCPU"]) == "500"


def test_no_op_on_a_running_instance_is_one_api_call(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """P16: a re-run with the same input reads the instance once (GET /instances/{uid}) and writes nothing."""
    name = unique("lc-noop")
    uid = ok(playbook.one("postgres", pg(name, s3_uids[0])))["instance_uid"]
    seq = emu.last_seq
    assert ok(playbook.one("postgres", pg(name, s3_uids[0])))["changed"] is False
    log = [r for r in emu.requests(since=seq) if "/_emulator/" not in r["path"]]
    assert [(r["method"], r["path"]) for r in log] == [("GET", f"/instances/{uid}")]


def test_password_change_keeps_connection_limit_and_role(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """P38 for sub-resources: a new password (update_password=always) is sent with the user's live role and
    connectionLimit, never zero values, so the user is not locked out; on_create sends nothing, and warns that the
    password differs from the one this state applied (issue 23)."""
    name = unique("lc-user")
    uid = ok(playbook.one("postgres", pg(name, s3_uids[0])))["instance_uid"]
    user = {"parent_instance_uid": uid, "username": "app"}
    ok(playbook.one("postgres_user", {**user, "password": "First-Pass-1", "role": "owner", "connection_limit": 5}))

    def live_user() -> dict[str, Any]:
        users = deck.instance(emu, uid)["state"]["subresources"]["user"]
        return next(u for u in users if u["username"] == "app")

    assert (live_user()["role"], str(live_user()["connectionLimit"])) == ("owner", "5")
    seq = emu.last_seq
    unchanged = ok(playbook.one("postgres_user", {**user, "password": "Second-Pass-2"}))
    assert unchanged["changed"] is False and write_calls(emu.requests(since=seq)) == []  # on_create (default)
    not_sent = "password: differs from the value this state last applied, and was not sent"
    warnings = unchanged.get("warnings", [])
    assert any(not_sent in w and "update_password=always" in w for w in warnings), warnings
    same = ok(playbook.one("postgres_user", {**user, "password": "First-Pass-1"}))
    assert not same.get("warnings"), same.get("warnings")  # the applied password: nothing to say
    changed = ok(playbook.one("postgres_user", {**user, "password": "Second-Pass-2", "update_password": "always"}))
    assert changed["operations"] == ["modify_user"] and "Second-Pass-2" not in json.dumps(changed)
    assert (live_user()["role"], str(live_user()["connectionLimit"])) == ("owner", "5")
    pushed = [
        r["body"]["paramValue"]
        for r in write_calls(emu.requests(since=seq))
        if r["path"] == "/instanceOperationCfsParams"
    ]
    assert "0" not in pushed and "" not in pushed and {"owner", "5"} <= set(pushed)
    assert changed["subresource"]["exists"] is True and changed["subresource"]["params"]["role"] == "owner"


def test_instance_deleted_out_of_band_is_recreated(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P20: a recorded instance that was deleted elsewhere is created anew, with a warning naming the old uid."""
    name = unique("lc-gone")
    task = {"resource_name": name, "display_name": name, "resource_realm": REALM}
    old = ok(playbook.one("s3", task))["instance_uid"]
    deck.run_operation(emu, old, "delete")
    assert deck.instance(emu, old)["isDeleted"]
    again = ok(playbook.one("s3", task))
    assert again["operations"] == ["create"] and again["instance_uid"] != old
    assert any(old in warning for warning in again.get("warnings", []))
    assert [i["instanceUid"] for i in deck.live_named(emu, 12, name)] == [again["instance_uid"]]


def test_placeholder_left_by_a_failed_create_is_removed(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P26, P29: a create that failed before its operation ran leaves a `not created` placeholder this task
    recorded; `state: absent` removes it from the cloud (and the record)."""
    name = unique("lc-placeholder")
    emu.set_faults([{"kind": "http", "status": 500, "method": "POST", "path": "/instanceOperations", "count": 1}])
    failed = playbook.one("s3", {"resource_name": name, "display_name": name, "resource_realm": REALM})
    emu.clear_faults()
    assert failed.get("failed")
    [placeholder] = deck.live_named(emu, 12, name)
    assert placeholder["explainedStatus"] == "not created"
    removed = ok(playbook.one("s3", {"resource_name": name, "state": "absent"}))
    assert removed["changed"] and removed["operations"] == ["delete_placeholder"]
    assert not [i for i in emu.instances() if i["instanceUid"] == placeholder["instanceUid"]]
    assert json.loads(playbook.state_path.read_text())["instances"] == {}


def test_another_services_uid_is_refused(emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]) -> None:
    """K4a: a postgres task given an S3 instance's uid fails, naming both services, before any write; destroying
    it by that uid is refused too."""
    name = unique("lc-foreign")
    seq = emu.last_seq
    adopt = playbook.one(
        "postgres", {**pg(name, s3_uids[0]), "instance_uid": s3_uids[0], "adopt_existing_on_create": True}
    )
    assert adopt.get("failed") and "service 12" in adopt["msg"] and "postgres (service 90)" in adopt["msg"]
    destroy = playbook.one("postgres", {"resource_name": name, "instance_uid": s3_uids[0], "state": "deleted"})
    assert destroy.get("failed") and "service 12" in destroy["msg"]
    assert write_calls(emu.requests(since=seq)) == []
    assert deck.instance(emu, s3_uids[0])["explainedStatus"] == "running"


def test_acquiring_by_uid_needs_the_flag_and_names_the_uid(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """K1/P25: `instance_uid` alone (no record) acquires that instance with adopt_existing_on_create; without
    the flag the error names the uid (not resource_name) and offers the two ways on."""
    uid = elsewhere(emu, tmp_path, unique("lc-acquire"), s3_uids[0])
    task = {"instance_uid": uid, "s3_uid": s3_uids[0], "resource_realm": REALM, "resource_cpu": 900}
    refused = playbook.one("postgres", task)
    assert refused.get("failed") and "instance_uid" in refused["msg"] and uid in refused["msg"]
    assert "change resource_name" not in refused["msg"]
    acquired = ok(playbook.one("postgres", {**task, "adopt_existing_on_create": True}))
    assert acquired["instance_uid"] == uid and acquired["operations"] == ["modify"]
    assert str(live_params(emu, uid)["resourceCPU"]) == "900"


def test_busy_instance_is_an_error_at_once(emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]) -> None:
    """P27: an operation another workspace started is not waited for: the task fails at once with a one-line
    message and the seed's diagnostics (P30: every detail line), writes nothing and never polls that operation."""
    name = unique("lc-busy")
    uid = ok(playbook.one("postgres", pg(name, s3_uids[0])))["instance_uid"]
    emu.configure(durations={"postgres.modify": 600})
    foreign = deck.start_operation(emu, uid, "modify", {"resourceCPU": "600"})
    seq = emu.last_seq
    busy = playbook.one("postgres", pg(name, s3_uids[0], resource_cpu=800))
    log = emu.requests(since=seq)
    emu.clock.advance(700)  # let the foreign operation finish for the next tests
    deck.wait_operation(emu, foreign)
    assert busy.get("failed") and "\n" not in busy["msg"]  # one line; the P30 lines are in the diagnostics
    lines = busy["diagnostics"].splitlines()
    for field in ("resource_name", "service_id", "instance_uid", "status", "status_raw"):
        assert any(line.startswith(field + ": ") for line in lines), field
    assert "operation_pending: true" in lines or "operation_in_progress: true" in lines
    assert write_calls(log) == []
    assert not [r for r in api_gets(log) if r["path"].startswith("/instanceOperations")]


def test_real_deletion_with_check_and_diff_mode(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """state=deleted runs the API's delete operation (check and diff mode first); forget-only says it forgets and
    warns that the instance keeps running; a suspended instance is deleted by its uid."""
    name = unique("lc-delete")
    uid = ok(playbook.one("postgres", pg(name, s3_uids[0])))["instance_uid"]
    seq = emu.last_seq
    planned = ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}, check=True, diff=True))
    assert planned["changed"] and planned["operations"] == ["delete"] and write_calls(emu.requests(since=seq)) == []
    assert planned["diff"]["before"]["resource_cpu"] == 500 and planned["diff"]["after"] == {}
    deleted = ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}))
    assert deleted["operations"] == ["delete"] and deleted["status"] == "deleted"
    assert deck.instance(emu, uid)["isDeleted"] is True
    assert ok(playbook.one("postgres", {"resource_name": name, "state": "deleted"}))["changed"] is False

    kept = unique("lc-forget")
    kept_uid = ok(playbook.one("postgres", pg(kept, s3_uids[0])))["instance_uid"]
    forgotten = ok(playbook.one("postgres", {"resource_name": kept, "state": "absent", "suspend_on_destroy": False}))
    assert forgotten["decision"] == "forget" and any("keeps running" in w for w in forgotten["warnings"])
    assert deck.instance(emu, kept_uid)["explainedStatus"] == "running"
    deck.run_operation(emu, kept_uid, "suspend")
    gone = ok(playbook.one("postgres", {"resource_name": kept, "instance_uid": kept_uid, "state": "deleted"}))
    assert gone["operations"] == ["delete"] and deck.instance(emu, kept_uid)["isDeleted"] is True


def test_reused_name_under_unique_display_names(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 14: with the API's display-name uniqueness (live for DNS), a name held by a deleted record is a
    clear error naming it (no traceback, no duplicate); a live holder is adopted with the flag."""
    emu.configure(unique_display_names=True)
    zone, record = unique("lc-zone"), unique("lc-rec")
    ok(playbook.one("dns_zone", {"resource_name": zone, "zone_name": f"{zone}.example.test"}))
    rec = {"resource_name": record, "zone_uid": zone, "record_name": "www", "record_input": "192.0.2.7"}
    first = ok(playbook.one("dns_record", rec))["instance_uid"]
    ok(playbook.one("dns_record", {"resource_name": record, "state": "absent"}))
    reused = playbook.one("dns_record", rec)
    assert reused.get("failed") and first in reused["msg"] and "another resource_name" in reused["msg"]
    assert "Traceback" not in str(reused) and deck.live_named(emu, 111, record) == []

    other = PlaybookRunner(playbook.workdir / "other", playbook.endpoint, playbook.token)
    other.workdir.mkdir()
    adopted = ok(
        other.one(
            "dns_zone", {"resource_name": zone, "zone_name": f"{zone}.example.test", "adopt_existing_on_create": True}
        )
    )
    assert adopted["decision"] == "adopt" and len(deck.live_named(emu, 110, zone)) == 1
