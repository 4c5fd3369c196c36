"""`--check` on a new stack (issue 16): tasks that reference what an earlier task would create predict their change
instead of failing; a real run still resolves every reference or fails. Real ansible-playbook, session emulator."""

from __future__ import annotations

import json
from typing import Any

from tests.emulator import EmulatorServer
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

PENDING = "would resolve after create"


def stack(prefix: str) -> list[dict[str, Any]]:
    """S3, a bucket and a PostgreSQL that name the S3 by display name, a user by the PostgreSQL's name and a
    database by the uid the PostgreSQL task registered."""
    s3 = f"{prefix}-s3"
    return [
        {"name": "s3", "nubes.cloud.s3": {"resource_name": s3, "display_name": s3, "resource_realm": REALM}},
        {
            "name": "bucket",
            "nubes.cloud.s3_bucket": {"resource_name": f"{prefix}-b", "s3_user_uid": s3, "bucket_name": f"{prefix}-b"},
        },
        {
            "name": "postgres",
            "nubes.cloud.postgres": {"resource_name": f"{prefix}-pg", "s3_uid": s3, "resource_realm": REALM},
        },
        {
            "name": "user",
            "nubes.cloud.postgres_user": {
                "parent_resource_name": f"{prefix}-pg",
                "username": "app",
                "password": "Check-mode-Pw-1",
            },
        },
        {
            "name": "database",
            "nubes.cloud.postgres_database": {
                "parent_instance_uid": "{{ r2.instance_uid }}",
                "db_name": "app",
                "owner": "app",
            },
        },
    ]


def test_check_mode_predicts_a_new_stack_and_the_real_run_creates_it(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """P13/P20: in check mode a reference that cannot be resolved yet (a display name nothing has yet, the empty
    uid of a planned create) is reported as "would resolve after create" and the task predicts its change; no
    write is made. The real run then creates exactly what check mode predicted."""
    prefix = unique("chk")
    seq = emu.last_seq
    planned = playbook.run(stack(prefix), check=True, diff=True)
    failed = [(i, r.get("msg")) for i, r in enumerate(planned) if r.get("failed")]
    assert not failed, failed
    # No write about this stack (nothing of it exists, so any write would carry its names); a write another test
    # left in flight (its emulator latency fault) may still land in the log meanwhile.
    assert [r for r in write_calls(emu.requests(since=seq)) if prefix in json.dumps(r.get("body"))] == []
    assert [r["operations"] for r in planned] == [
        ["create"],
        ["create"],
        ["create"],
        ["create_user"],
        ["create_database"],
    ]
    assert all(r["changed"] for r in planned)
    bucket, postgres, user, database = planned[1:]
    assert PENDING in bucket["diff"]["after"]["s3_user_uid"] and PENDING in bucket["diagnostics"]
    assert PENDING in postgres["diff"]["after"]["s3_uid"] and PENDING in postgres["diagnostics"]
    assert (
        PENDING in user["diagnostics"]
        and user["subresource"]["exists"]
        and user["subresource"]["parent_instance_uid"] == ""
    )
    assert PENDING in database["diagnostics"] and database["diff"]["after"]["db_name"] == "app"
    assert not [i for i in emu.instances() if i["displayName"].startswith(prefix)]

    applied = playbook.run(stack(prefix))
    assert [r["operations"] for r in applied] == [r["operations"] for r in planned], [r.get("msg") for r in applied]
    s3_uid = applied[0]["instance_uid"]
    live = {i["displayName"]: i for i in emu.instances() if i["displayName"].startswith(prefix)}
    assert live[f"{prefix}-b"]["state"]["params"]["s3UserUid"].lower() == s3_uid.lower()
    assert live[f"{prefix}-pg"]["state"]["params"]["s3Uid"].lower() == s3_uid.lower()
    subs = live[f"{prefix}-pg"]["state"]["subresources"]
    assert [u["username"] for u in subs["user"]] == ["app"] and [d["dbName"] for d in subs["database"]] == ["app"]

    rerun = playbook.run(stack(prefix), check=True)
    assert [r["changed"] for r in rerun] == [False] * 5 and not any(PENDING in r["diagnostics"] for r in rerun)


def test_unresolved_references_stay_errors_in_a_real_run(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """In a real run a name nothing has is an error before any write, and so is an empty parent_instance_uid."""
    prefix = unique("chk-real")
    seq = emu.last_seq
    results = playbook.run(
        [
            {"name": "postgres", "nubes.cloud.postgres": {"resource_name": prefix, "s3_uid": f"{prefix}-nothing"}},
            {"name": "user", "nubes.cloud.postgres_user": {"parent_resource_name": f"{prefix}-none", "username": "u"}},
            {"name": "database", "nubes.cloud.postgres_database": {"parent_instance_uid": "", "db_name": "d"}},
        ]
    )
    assert [bool(r.get("failed")) for r in results] == [True, True, True]
    assert "no live instance of service 12 is named" in results[0]["msg"]
    assert "matches 0 live instances" in results[1]["msg"]
    assert "parent_instance_uid is empty" in results[2]["msg"]
    assert write_calls(emu.requests(since=seq)) == []


def test_check_mode_predicts_a_reference_to_a_registered_uid(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 16 (check mode across dependent tasks, docs/dev/rules.md): a required reference given the empty uid
    that an earlier check-mode create registered (the demo's `s3_user_uid: "{{ demo_s3.instance.instance_uid }}"`)
    is reported as "would resolve after create" and the bucket's create is predicted, with no write; the real run
    sends the S3's real uid (read from the emulator), and the same "" in a real run stays an error before any
    write (test_hostile_input's s3_bucket case)."""
    prefix = unique("chk-uid")
    s3 = f"{prefix}-s3"
    tasks = [
        {"name": "s3", "nubes.cloud.s3": {"resource_name": s3, "display_name": s3, "resource_realm": REALM}},
        {
            "name": "bucket",
            "nubes.cloud.s3_bucket": {
                "resource_name": f"{prefix}-b",
                "s3_user_uid": "{{ r0.instance_uid }}",
                "bucket_name": f"{prefix}-b",
            },
        },
    ]
    seq = emu.last_seq
    planned = playbook.run(tasks, check=True, diff=True)
    assert not [r.get("msg") for r in planned if r.get("failed")]
    assert [r["operations"] for r in planned] == [["create"], ["create"]]
    assert PENDING in planned[1]["diff"]["after"]["s3_user_uid"] and PENDING in planned[1]["diagnostics"]
    assert [r for r in write_calls(emu.requests(since=seq)) if prefix in json.dumps(r.get("body"))] == []

    applied = playbook.run(tasks)
    assert not [r.get("msg") for r in applied if r.get("failed")]
    live = {i["displayName"]: i for i in emu.instances() if i["displayName"].startswith(prefix)}
    assert live[f"{prefix}-b"]["state"]["params"]["s3UserUid"].lower() == live[s3]["instanceUid"].lower()
