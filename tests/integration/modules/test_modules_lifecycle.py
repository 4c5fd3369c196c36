"""Playbook-level lifecycle of representative generated modules against the emulator (real ansible-playbook).

Shapes: postgres (sub-resources, suspend/resume), flask (redeploy by git_revision), s3_bucket (a child
linked by reference), dns_zone/dns_record (non-suspendable), dummy (map-fixed and array params).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, api_gets, write_calls

REALM = "k8s-3.ext.nubes.ru"
pytestmark = pytest.mark.slow


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("failed"), result.get("msg")
    return result


def instance_by_uid(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    return next(i for i in emu.instances() if i["instanceUid"].lower() == uid.lower())


def test_postgres_full_lifecycle(emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path) -> None:
    """P12/P13/P16/P17/P19-P22/P25/P28/P29, K4b: check-mode create, create, idempotent re-run (one GET),
    modify, sub-resources, check-mode destroy, destroy by suspend, resume + adopt, two-choice conflict
    without the flag, identity change error, and _info."""
    s3, pg = unique("it-s3"), unique("it-pg")
    s3_uid = ok(playbook.one("s3", {"resource_name": s3, "display_name": s3, "resource_realm": REALM}))["instance_uid"]
    # The reference by UUID: a name would cost one more GET (a list) per run to resolve it (see the s3_bucket test).
    task = {"resource_name": pg, "s3_uid": s3_uid, "resource_realm": REALM, "resource_cpu": 500}

    seq = emu.last_seq
    planned = ok(playbook.one("postgres", task, check=True))
    assert planned["changed"] and planned["operations"] == ["create"]
    assert write_calls(emu.requests(since=seq)) == []
    assert not [i for i in emu.instances() if i["displayName"] == pg]

    created = ok(playbook.one("postgres", task))
    assert created["changed"] and created["operations"] == ["create"]
    assert created["instance"]["status"] == "running"
    uid = created["instance_uid"]
    assert "adminPass" not in created["outputs"] and "internalConnect.master" in created["outputs"]

    seq = emu.last_seq
    again = ok(playbook.one("postgres", task))
    assert again["changed"] is False and again["operations"] == []
    log = emu.requests(since=seq)
    assert write_calls(log) == [] and len(api_gets(log)) == 1, log

    modified = ok(playbook.one("postgres", {**task, "resource_cpu": 1000}))
    assert modified["changed"] and modified["operations"] == ["modify"]
    assert modified["instance"]["params"]["resource_cpu"] == 1000

    user = {"parent_resource_name": pg, "username": "app", "password": "S3cret-pass-1", "role": "readwrite"}
    database = {"parent_instance_uid": uid, "db_name": "appdb", "owner": "app"}
    subs = playbook.run(
        [
            {"name": "user", "nubes.cloud.postgres_user": user},
            {"name": "user again", "nubes.cloud.postgres_user": user},
            {"name": "database", "nubes.cloud.postgres_database": database},
            {"name": "user role", "nubes.cloud.postgres_user": {**user, "role": "readonly"}},
        ]
    )
    assert [ok(r)["changed"] for r in subs] == [True, False, True, True]
    assert subs[0]["operations"] == ["create_user"] and subs[3]["operations"] == ["modify_user"]
    assert "S3cret-pass-1" not in str(subs)  # P13 secrets never returned

    seq = emu.last_seq
    planned_destroy = ok(playbook.one("postgres", {"resource_name": pg, "state": "absent"}, check=True))
    assert planned_destroy["changed"] and planned_destroy["operations"] == ["suspend"]
    assert write_calls(emu.requests(since=seq)) == []

    destroyed = ok(playbook.one("postgres", {"resource_name": pg, "state": "absent"}))
    assert destroyed["changed"] and destroyed["operations"] == ["suspend"]
    assert instance_by_uid(emu, uid)["explainedStatus"] == "suspended"

    adopted = ok(playbook.one("postgres", {**task, "resource_cpu": 1000, "adopt_existing_on_create": True}))
    assert "resume" in adopted["operations"] and adopted["instance_uid"] == uid
    assert adopted["instance"]["status"] == "running"

    other = PlaybookRunner(tmp_path / "other-state", playbook.endpoint, playbook.token)
    other.workdir.mkdir()
    conflict = other.one("postgres", {**task, "resource_cpu": 1000})
    assert conflict.get("failed")
    message = conflict["msg"]
    assert "resource_name" in message and "adopt_existing_on_create" in message  # P28: the two choices
    assert uid.lower() in message.lower() or pg in message

    wrong_uid = str(uuid.uuid4()).upper()
    changed_identity = playbook.one("postgres", {**task, "resource_cpu": 1000, "instance_uid": wrong_uid})
    assert changed_identity.get("failed")
    assert "cannot change resource identity" in changed_identity["msg"] and wrong_uid in changed_identity["msg"]

    info = ok(playbook.one("postgres_info", {"resource_name": pg}))
    assert info["exists"] and info["instance_uid"] == uid and info["status"] == "running"
    assert "adminPass" not in info["outputs"]
    assert [u["username"] for u in info["subresources"]["user"]] == ["app"]


def test_flask_redeploy_by_git_revision(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P14/P18: a changed git_revision redeploys (after a modify when params changed), unchanged does not; the
    create deploys the task's revision with a redeploy in the same run (issue 23)."""
    name = unique("it-flask")
    task = {"resource_name": name, "domain": name, "git_path": "https://git.example.test/app.git",
            "resource_realm": REALM, "git_revision": "aaa111"}  # fmt: skip
    created = ok(playbook.one("flask", task))
    assert created["operations"] == ["create", "redeploy"]
    results = playbook.run(
        [
            {"name": "same revision", "nubes.cloud.flask": task},
            {"name": "new revision", "nubes.cloud.flask": {**task, "git_revision": "bbb222"}},
            {"name": "both", "nubes.cloud.flask": {**task, "git_revision": "ccc333", "resource_cpu": 400}},
        ]
    )  # fmt: skip
    assert [ok(r)["operations"] for r in results] == [[], ["redeploy"], ["modify", "redeploy"]]
    assert [r["changed"] for r in results] == [False, True, True]
    destroyed = ok(playbook.one("flask", {"resource_name": name, "state": "absent"}))
    assert destroyed["operations"] == ["suspend"]


def test_s3_bucket_reference_by_name(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P37 (generalised): a reference given as a display name is resolved to the instance UUID; a
    non-suspendable child is deleted on destroy."""
    s3, bucket = unique("it-s3"), unique("it-bucket")
    parent = ok(playbook.one("s3", {"resource_name": s3, "display_name": s3, "resource_realm": REALM}))
    child = ok(playbook.one("s3_bucket", {"resource_name": bucket, "s3_user_uid": s3, "bucket_name": bucket}))
    assert child["instance"]["params"]["s3_user_uid"].lower() == parent["instance_uid"].lower()
    assert (
        ok(playbook.one("s3_bucket", {"resource_name": bucket, "s3_user_uid": s3, "bucket_name": bucket}))["changed"]
        is False
    )
    gone = ok(playbook.one("s3_bucket", {"resource_name": bucket, "state": "absent"}))
    assert gone["operations"] == ["delete"]
    assert instance_by_uid(emu, child["instance_uid"])["explainedStatus"] == "deleted"


def test_dns_non_suspendable(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P12/P29: services without suspend are deleted on destroy; suspend_on_destroy does not exist for them."""
    zone, record = unique("it-zone"), unique("it-rec")
    ok(playbook.one("dns_zone", {"resource_name": zone, "zone_name": f"{zone}.example.test"}))
    rec = {"resource_name": record, "zone_uid": zone, "record_name": "www", "record_input": "192.0.2.7"}
    created = ok(playbook.one("dns_record", rec))
    assert created["operations"] == ["create"]
    unknown = playbook.one("dns_record", {**rec, "suspend_on_destroy": False})
    assert unknown.get("failed") and "suspend_on_destroy" in unknown["msg"]
    results = playbook.run(
        [
            {"name": "record absent", "nubes.cloud.dns_record": {"resource_name": record, "state": "absent"}},
            {"name": "zone absent", "nubes.cloud.dns_zone": {"resource_name": zone, "state": "absent"}},
        ]
    )
    assert [ok(r)["operations"] for r in results] == [["delete"], ["delete"]]


def test_dummy_map_fixed_and_array(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P36/P40/P41, P23: map-fixed sub-options and arrays of maps go through; re-run is idempotent; a
    modifiable param change is a modify; a create-only map-fixed change is refused with its name."""
    name = unique("it-dummy")
    task = {
        "resource_name": name,
        "resource_realm": "dummy",
        "map_fixed": {"field_a": "x"},
        "array_map_fixed_example": [{"name": "a", "value": "b"}],
        "map_example": {"k": "v1"},
    }
    created = ok(playbook.one("dummy", task))
    assert created["operations"] == ["create"]
    results = playbook.run(
        [
            {"name": "again", "nubes.cloud.dummy": task},
            {"name": "modify", "nubes.cloud.dummy": {**task, "map_example": {"k": "v2"}}},
            {
                "name": "create-only",
                "nubes.cloud.dummy": {**task, "map_example": {"k": "v2"}, "map_fixed": {"field_a": "y"}},
            },
            {"name": "destroy", "nubes.cloud.dummy": {"resource_name": name, "state": "absent"}},
        ]
    )
    assert ok(results[0])["changed"] is False
    assert ok(results[1])["operations"] == ["modify"]
    assert results[2].get("failed") and "mapFixed" in results[2]["msg"] and "resource_name" in results[2]["msg"]
    assert ok(results[3])["operations"] == ["delete"]


def test_bad_input_fails_before_any_write(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Wrong types, unknown options, missing required params, invalid choices and a reference to a missing
    instance fail with a clear message, before any write call (the emulator log proves it)."""
    base = {"resource_name": unique("it-bad"), "s3_uid": unique("no-such-s3"), "resource_realm": REALM}
    cases = [
        ({**base, "resource_cpu": "lots"}, "resource_cpu"),
        ({**base, "no_such_option": 1}, "no_such_option"),
        ({"resource_name": base["resource_name"], "resource_realm": REALM}, "s3_uid"),
        ({**base, "app_version": "99"}, "app_version"),
        (base, base["s3_uid"]),
    ]
    seq = emu.last_seq
    results = playbook.run(
        [{"name": f"bad {i}", "nubes.cloud.postgres": args} for i, (args, _word) in enumerate(cases)]
    )
    for (_args, word), result in zip(cases, results):
        assert result.get("failed"), result
        assert word in result["msg"], result["msg"]
    assert write_calls(emu.requests(since=seq)) == []
