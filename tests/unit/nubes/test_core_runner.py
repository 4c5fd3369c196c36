"""The runner on a stubbed deck-api: validation before writes, check/diff mode, identity, matrix, secrets,
wait=false, crash recovery, redeploy, sub-resources, info."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.unit.nubes.conftest import RunFactory, stored_record
from tests.unit.nubes.fake_deck import FakeDeck

REALM = "k8s-3.ext.nubes.ru"
DB1 = ResourceRef("postgres", 90, "default", "db1")  # the record of postgres `db1` (service 90)


@pytest.fixture
def s3_uid(deck: FakeDeck) -> str:
    return deck.add_instance(12, "backups")


def pg_args(s3_uid: str, **extra: Any) -> Dict[str, Any]:
    args: Dict[str, Any] = {"resource_name": "db1", "s3_uid": s3_uid, "resource_realm": REALM, "json_parameters": {}}
    args.update(extra)
    return args


def record(state_path: str, name: str = "db1", service: str = "postgres") -> Any:
    return stored_record(state_path, service, name)


# -- input validation -----------------------------------------------------------------------------


def test_missing_required_param_fails_before_any_write(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """Bad input fails with a clear message and no write call."""
    with pytest.raises(NubesError, match=r"missing required parameter.*resource_realm"):
        run(services["postgres"], resource_name="db1", s3_uid=s3_uid)
    assert deck.writes() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"resource_cpu": "lots"}, "must be an integer"),
        ({"app_version": "99"}, "must be one of"),
        ({"s3_uid": "no-such-s3"}, "no live instance of service 12"),
    ],
)
def test_invalid_input_makes_no_write(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, args: Dict[str, Any], message: str
) -> None:
    """Types, choices and references are validated before any write call."""
    task = pg_args(s3_uid)
    task.update(args)
    with pytest.raises(NubesError, match=message):
        run(services["postgres"], **task)
    assert deck.writes() == []


def test_missing_endpoint_or_token_is_explained(run: RunFactory, services: Dict[str, Any]) -> None:
    with pytest.raises(NubesError, match="NUBES_API_TOKEN"):
        run(services["s3"], api_token=None, resource_name="b")


# -- create / no-op / modify ------------------------------------------------------------------------


def test_create_records_uid_and_second_run_is_one_get(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """P16/P20/K3: create, then a re-run with the same input makes exactly one GET and changes nothing."""
    first = run(services["postgres"], **pg_args(s3_uid))
    assert first["changed"] and first["operations"] == ["create"] and first["status"] == "running"
    saved = record(state_path)
    assert saved["instance_uid"] == first["instance_uid"] and saved["status"] == "present"
    deck.log.clear()
    again = run(services["postgres"], **pg_args(s3_uid))
    assert not again["changed"] and again["operations"] == []
    assert deck.log == [("GET", "/instances/" + first["instance_uid"])]


def test_modify_sends_task_values_and_keeps_the_rest(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """P38: modify sends all params of the op: the task's, the current ones, defaults for new ones."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    result = run(services["postgres"], resource_name="db1", resource_cpu=1000)
    assert result["operations"] == ["modify"] and result["changed"]
    assert deck.instances[uid]["state"]["params"]["resourceCPU"] == "1000"
    assert deck.instances[uid]["state"]["params"]["resourceMemory"] == "512"
    assert not run(services["postgres"], resource_name="db1", resource_cpu=1000)["changed"]


def test_changing_a_create_only_param_is_an_error(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """P23: key (immutable) params cannot change on an existing instance."""
    run(services["postgres"], **pg_args(s3_uid))
    deck.log.clear()
    with pytest.raises(NubesError, match="create-only"):
        run(services["postgres"], **pg_args(s3_uid, resource_realm="k8s-2.ext.nubes.ru"))
    assert deck.writes() == []


# -- check mode and diff mode ---------------------------------------------------------------------------


def test_check_mode_create_predicts_change_without_writes(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """Check mode: decide and report; no write call; no state written."""
    result = run(services["postgres"], check_mode=True, diff_mode=True, **pg_args(s3_uid))
    assert result["changed"] and result["operations"] == ["create"]
    assert deck.writes() == []
    assert not os.path.exists(state_path)
    assert result["diff"]["before"] == {} and result["diff"]["after"]["resource_cpu"] == 500


def test_check_mode_matches_the_real_run(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """Check mode's `changed` equals what the real run reports, for no-op and modify."""
    run(services["postgres"], **pg_args(s3_uid))
    assert not run(services["postgres"], check_mode=True, **pg_args(s3_uid))["changed"]
    deck.log.clear()
    planned = run(services["postgres"], check_mode=True, resource_name="db1", resource_memory=1024)
    assert planned["changed"] and planned["operations"] == ["modify"] and deck.writes() == []
    real = run(services["postgres"], resource_name="db1", resource_memory=1024)
    assert real["changed"] == planned["changed"] and real["operations"] == planned["operations"]


def test_diff_mode_masks_secrets(run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str) -> None:
    """Diff mode: before/after params, secrets masked."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    result = run(
        services["postgres"],
        "subresource",
        "user",
        diff_mode=True,
        parent_instance_uid=uid,
        username="app",
        password="s3cr3t-pass",
        role="readonly",
    )
    assert result["diff"]["after"]["password"] == "********"
    assert result["diff"]["before"] == {}
    assert "s3cr3t-pass" not in json.dumps(result)


def test_modify_diff_shows_before_and_after(run: RunFactory, services: Dict[str, Any], s3_uid: str) -> None:
    run(services["postgres"], **pg_args(s3_uid))
    result = run(services["postgres"], diff_mode=True, check_mode=True, resource_name="db1", resource_cpu=900)
    assert result["diff"]["before"]["resource_cpu"] == 500
    assert result["diff"]["after"]["resource_cpu"] == 900


# -- identity -------------------------------------------------------------------------------------------


def test_identity_change_is_refused(run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str) -> None:
    """K4b through the runner: the exact error text, no write."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    other = deck.add_instance(90, "elsewhere")
    deck.log.clear()
    with pytest.raises(NubesError) as info:
        run(services["postgres"], instance_uid=other, **pg_args(s3_uid))
    assert info.value.msg == f'cannot change resource identity (old="{uid}", new="{other}")'
    assert deck.log == []


def test_no_id_and_no_record_reads_no_instance(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> None:
    """K1/K2: nothing recorded, no instance_uid -> no GET /instances/{uid}; only the name lookup."""
    run(services["s3"], check_mode=True, resource_name="fresh", display_name="fresh", resource_realm=REALM)
    assert [entry for entry in deck.log if entry[1].startswith("/instances/")] == []


def test_explicit_uid_adopts_that_instance(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """K1: the instance comes from instance_uid; with adopt it is recorded under resource_name. Adopting writes
    nothing to the cloud, so the task reports no change (issue 27: an exported estate's first run is empty)."""
    uid = deck.add_instance(12, "legacy-name", state={"params": {"displayName": "x", "resourceRealm": REALM}})
    result = run(
        services["s3"],
        resource_name="mine",
        instance_uid=uid.lower(),
        adopt_existing_on_create=True,
        display_name="x",
        resource_realm=REALM,
    )
    assert result["decision"] == "adopt" and not result["changed"] and result["operations"] == []
    assert record(state_path, "mine", "s3")["instance_uid"].lower() == uid.lower()


# -- the matrix through the runner ------------------------------------------------------------------------


def test_running_without_adopt_fails_with_two_choices(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """P25/P28/P30: multiline diagnostics with the two choices; no write."""
    deck.add_instance(90, "db1")
    with pytest.raises(NubesError) as info:
        run(services["postgres"], **pg_args(s3_uid))
    assert "\n" not in info.value.msg and "already exists" in info.value.msg  # one line; the details follow once
    text = info.value.details["diagnostics"]
    assert "Controlling flag: adopt_existing_on_create=false" in text
    assert "1. change resource_name" in text and "2. import/adopt" in text
    assert "resource_name: db1" in text and "status: running" in text
    assert deck.writes() == []


def test_running_with_adopt_is_recorded_and_converged(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """P24: adopt (import); params that differ from the instance's are modified."""
    uid = deck.add_instance(
        90, "db1", state={"params": {"resourceCPU": "500", "s3Uid": s3_uid, "resourceRealm": REALM}}
    )
    result = run(services["postgres"], adopt_existing_on_create=True, **pg_args(s3_uid, resource_cpu=700))
    assert result["operations"] == ["modify"]
    assert record(state_path)["instance_uid"] == uid
    deck.log.clear()
    assert not run(services["postgres"], **pg_args(s3_uid, resource_cpu=700))["changed"]
    assert deck.log == [("GET", "/instances/" + uid)]


def test_suspended_with_adopt_is_resumed(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """P21: suspended + adopt + key params match -> resume and adopt."""
    uid = deck.add_instance(90, "db1", "suspended", state={"params": {"s3Uid": s3_uid, "resourceRealm": REALM}})
    result = run(services["postgres"], adopt_existing_on_create=True, **pg_args(s3_uid))
    assert result["operations"] == ["resume"] and result["status"] == "running"
    assert deck.instances[uid]["explainedStatus"] == "running"


def test_suspended_with_key_mismatch_is_refused(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """P23: suspended + key params mismatch -> error."""
    deck.add_instance(90, "db1", "suspended", state={"params": {"s3Uid": s3_uid, "resourceRealm": "other"}})
    with pytest.raises(NubesError, match="key"):
        run(services["postgres"], adopt_existing_on_create=True, **pg_args(s3_uid))
    assert deck.writes() == []


def test_several_live_instances_are_listed(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """Several live instances with the name -> error listing them."""
    first = deck.add_instance(90, "db1")
    second = deck.add_instance(90, "db1")
    deck.add_instance(90, "db1", "deleted")
    with pytest.raises(NubesError, match="2 live instances") as info:
        run(services["postgres"], adopt_existing_on_create=True, **pg_args(s3_uid))
    assert first in info.value.msg and second in info.value.msg


# -- destroy ------------------------------------------------------------------------------------------------


def test_destroy_suspends_and_forgets(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """P29: suspend_on_destroy=true -> suspend, and the record goes."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    result = run(services["postgres"], resource_name="db1", state="absent")
    assert result["operations"] == ["suspend"] and result["status"] == "suspended"
    assert record(state_path) is None and deck.instances[uid]["explainedStatus"] == "suspended"


def test_state_only_destroy_makes_no_api_call(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """P29: suspend_on_destroy=false -> remove from state only, no API call at all."""
    run(services["postgres"], **pg_args(s3_uid))
    deck.log.clear()
    result = run(services["postgres"], resource_name="db1", state="absent", suspend_on_destroy=False)
    assert result["changed"] and deck.log == [] and record(state_path) is None


def test_unrecorded_instance_is_left_alone_with_warning(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck
) -> None:
    """P29: an instance that is not in the state is left alone, with a warning."""
    deck.add_instance(90, "db1")
    result = run(services["postgres"], resource_name="db1", state="absent")
    assert not result["changed"] and deck.writes() == []
    assert any("left alone" in w for w in result["_warnings"])


def test_non_suspendable_service_is_deleted(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> None:
    """P29: a delete operation for non-suspendable services."""
    uid = run(services["s3"], resource_name="b1", display_name="b1", resource_realm=REALM)["instance_uid"]
    result = run(services["s3"], resource_name="b1", state="absent")
    assert result["operations"] == ["delete"] and deck.instances[uid]["isDeleted"]


# -- secrets, wait=false, crash recovery, redeploy ---------------------------------------------------------------


def test_secrets_never_reach_state_or_results(
    run: RunFactory, services: Dict[str, Any], s3_uid: str, state_path: str
) -> None:
    """Secret params are never echoed and never written to the state file."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    result = run(
        services["postgres"], "subresource", "user", parent_instance_uid=uid, username="app", password="Very-Secret-1"
    )
    assert "Very-Secret-1" not in json.dumps(result)
    with open(state_path) as handle:
        assert "Very-Secret-1" not in handle.read()
    user = {"parent_instance_uid": uid, "username": "app"}
    assert not run(services["postgres"], "subresource", "user", password="Very-Secret-1", **user)["changed"]
    # update_password=on_create (the default): a new password in the task is not sent to an existing user
    assert not run(services["postgres"], "subresource", "user", password="Other-Secret-2", **user)["changed"]
    changed = run(
        services["postgres"], "subresource", "user", password="Other-Secret-2", update_password="always", **user
    )
    assert changed["operations"] == ["modify_user"] and "Other-Secret-2" not in json.dumps(changed)
    with open(state_path) as handle:
        assert "Other-Secret-2" not in handle.read()
    again = run(
        services["postgres"], "subresource", "user", password="Other-Secret-2", update_password="always", **user
    )
    assert not again["changed"]  # always: set when it differs from the last applied one (salted digest)


def test_wait_false_returns_the_operation_and_next_run_records(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """wait=false returns after run with the operation uid; the next run waits and records the result."""
    deck.polls_to_finish = 2
    result = run(services["postgres"], wait=False, **pg_args(s3_uid))
    assert result["changed"] and result["operation"]["uid"] and not result["operation"]["finished"]
    assert record(state_path)["status"] == "creating"
    deck.instances[result["instance_uid"]]["operationIsInProgress"] = True
    deck.hooks.append(lambda r: deck.instances[result["instance_uid"]].update(operationIsInProgress=False))
    deck.polls_to_finish = 1
    deck._poll(deck.operations[result["operation"]["uid"]])
    again = run(services["postgres"], **pg_args(s3_uid))
    assert again["status"] == "running"
    assert record(state_path)["status"] == "present"
    assert len([i for i in deck.instances.values() if i["serviceId"] == 90]) == 1


def test_lost_create_answer_is_resolved_by_reading(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """A POST /instances whose answer is lost is resolved by listing by display name, never by posting twice."""
    import httpx

    def lose_answer(request: httpx.Request) -> Any:
        if request.method == "POST" and request.url.path.endswith("/instances"):
            deck.hooks.clear()
            deck.route("POST", "/instances", {}, json.loads(request.content))
            return httpx.Response(504, json={"ERROR": "gateway timeout"})
        return None

    deck.hooks.append(lose_answer)
    result = run(services["postgres"], **pg_args(s3_uid))
    assert result["status"] == "running"
    assert [e for e in deck.log if e == ("POST", "/instances")] == [("POST", "/instances")]
    assert len([i for i in deck.instances.values() if i["serviceId"] == 90]) == 1


def test_interrupted_create_is_continued(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """The uid is recorded as soon as POST /instances returns; a re-run continues that create."""
    uid = deck.add_instance(90, "db1", "not created")
    StateStore(FileBackend(state_path), "default").put(DB1, Record(status="creating", instance_uid=uid))
    result = run(services["postgres"], **pg_args(s3_uid))
    assert result["instance_uid"] == uid and result["operations"] == ["create"]
    assert ("POST", "/instances") not in deck.log
    assert record(state_path)["status"] == "present"


def test_create_requested_without_uid_adopts_the_named_placeholder(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """Killed between POST /instances and recording the uid: the re-run finds the placeholder by name."""
    uid = deck.add_instance(90, "db1", "not created")
    StateStore(FileBackend(state_path), "default").put(DB1, Record(status="create_requested", instance_uid=""))
    result = run(services["postgres"], **pg_args(s3_uid))
    assert result["instance_uid"] == uid and ("POST", "/instances") not in deck.log


def test_redeploy_only_when_git_revision_changes(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> None:
    """P14/P18: git_revision change -> redeploy (with gitRevision); unchanged -> nothing; a create whose operation
    takes no revision is followed by a redeploy of the task's revision (issue 23: one run settles)."""
    args = {"resource_name": "app", "domain": "app1", "resource_realm": REALM, "git_path": "https://git/x.git"}
    assert run(services["flask"], git_revision="abc", **args)["operations"] == ["create", "redeploy"]
    assert run(services["flask"], git_revision="abc", **args)["operations"] == []
    result = run(services["flask"], git_revision="def", **args)
    assert result["operations"] == ["redeploy"]
    op = deck.operations[result["operation"]["uid"]]
    assert {p["svcOperationCfsParam"]: p["paramValue"] for p in op["cfsParams"]}["gitRevision"] == "def"
    both = run(services["flask"], git_revision="ghi", resource_cpu=400, **args)
    assert both["operations"] == ["modify", "redeploy"]


# -- sub-resources and info -------------------------------------------------------------------------------


def test_subresource_create_modify_delete(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """P13/P17: identity {parent uid, key}; create, no-op, modify, delete on the parent."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    sub = {"parent_resource_name": "db1", "username": "app", "password": "pw-123456"}
    assert run(services["postgres"], "subresource", "user", role="readonly", **sub)["operations"] == ["create_user"]
    assert run(services["postgres"], "subresource", "user", role="readonly", **sub)["operations"] == []
    modified = run(services["postgres"], "subresource", "user", role="owner", **sub)
    assert modified["operations"] == ["modify_user"] and modified["subresource"]["params"]["role"] == "owner"
    assert deck.instances[uid]["state"]["subresources"]["user"][0]["role"] == "owner"
    gone = run(services["postgres"], "subresource", "user", state="absent", parent_instance_uid=uid, username="app")
    assert gone["operations"] == ["delete_user"] and deck.instances[uid]["state"]["subresources"]["user"] == []


def test_existing_subresource_needs_adopt(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> None:
    """P13: an existing sub-resource is adopted only with adopt_existing_on_create."""
    uid = deck.add_instance(90, "db9")
    deck.instances[uid]["state"]["subresources"] = {"user": [{"username": "app", "role": "readonly"}]}
    with pytest.raises(NubesError) as info:
        run(services["postgres"], "subresource", "user", parent_instance_uid=uid, username="app", role="readonly")
    assert "adopt_existing_on_create=true" in info.value.details["diagnostics"]
    adopted = run(
        services["postgres"],
        "subresource",
        "user",
        parent_instance_uid=uid,
        username="app",
        role="readonly",
        adopt_existing_on_create=True,
    )
    assert not adopted["changed"] and adopted["operations"] == []  # issue 27: adopting writes nothing


def test_info_reports_state_outputs_and_subresources(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    deck.instances[uid]["state"]["out"] = {"adminUser": "postgres", "adminPass": "hidden!", "vault": {"url": "v"}}
    deck.instances[uid]["state"]["subresources"] = {"user": [{"username": "app"}]}
    info = run(services["postgres"], "info", resource_name="db1")
    assert info["exists"] and not info["changed"] and info["instance_uid"] == uid
    assert info["outputs"] == {"adminUser": "postgres", "vault.url": "v"}
    assert info["subresources"]["user"] == [{"username": "app"}]
    assert info["state"]["status"] == "present"
    assert not run(services["postgres"], "info", resource_name="nope")["exists"]


def test_return_secrets_is_opt_in_and_needs_no_log(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """Issue 16: secret outputs are returned only with return_secrets, and only from a no_log task (refused before
    any call otherwise); they never reach the state file."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    deck.instances[uid]["state"]["out"] = {"adminUser": "postgres", "adminPass": "Hidden-pw-1", "vault": {"url": "v"}}
    assert "adminPass" not in run(services["postgres"], "info", resource_name="db1")["outputs"]
    deck.log.clear()
    with pytest.raises(NubesError, match="no_log: true"):
        run(services["postgres"], "info", resource_name="db1", return_secrets=True)
    assert deck.log == []
    info = run(services["postgres"], "info", no_log=True, resource_name="db1", return_secrets=True)
    assert info["outputs"]["adminPass"] == "Hidden-pw-1" and info["instance"]["outputs"]["adminPass"] == "Hidden-pw-1"
    again = run(services["postgres"], no_log=True, return_secrets=True, diff_mode=True, **pg_args(s3_uid))
    assert again["outputs"]["adminPass"] == "Hidden-pw-1" and "Hidden-pw-1" not in str(again["diff"])
    assert "Hidden-pw-1" not in Path(state_path).read_text(encoding="utf-8")


def test_info_lists_the_services_instances_with_filters(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck
) -> None:
    """Issue 16: without resource_name and instance_uid the info module lists the service's instances, each with the
    fields of the single view; status filters on the list items, so only the instances listed are read."""
    running = deck.add_instance(12, "a", state={"params": {"displayName": "a"}, "out": {"endpoint": "e"}})
    suspended = deck.add_instance(12, "b", status="suspended")
    deleted = deck.add_instance(12, "c", status="deleted", isDeleted=True)
    deck.add_instance(90, "other-service")
    deck.log.clear()
    listed = run(services["s3"], "info")
    assert [i["instance_uid"] for i in listed["instances"]] == [running, suspended] and listed["exists"]
    first = listed["instances"][0]
    assert first["params"] == {"display_name": "a"} and first["outputs"] == {"endpoint": "e"}
    assert set(first) == {
        "instance_uid",
        "resource_name",
        "service_id",
        "status",
        "status_raw",
        "operation_pending",
        "operation_in_progress",
        "params",
        "outputs",
    }
    assert [p for _m, p in deck.log] == ["/instances", "/instances/" + running, "/instances/" + suspended]
    deck.log.clear()
    only = run(services["s3"], "info", status=["suspended", "deleted"])
    assert [i["instance_uid"] for i in only["instances"]] == [suspended, deleted]
    assert [p for _m, p in deck.log] == ["/instances", "/instances/" + suspended, "/instances/" + deleted]
    named = run(services["s3"], "info", resource_name="b", status=["running"])
    assert named["instance_uid"] == suspended and named["instances"] == []
    assert not run(services["s3"], "info", status=["failed"])["exists"]
    twin = deck.add_instance(12, "a")
    both = run(services["s3"], "info", resource_name="a")  # a filter: every live instance with the name
    assert [i["instance_uid"] for i in both["instances"]] == [running, twin] and "instance" not in both
    assert both["exists"] and "give instance_uid" in both["_warnings"][0]


def test_subresource_check_mode_makes_no_write(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """Check mode for sub-resources: planned operation, no write call."""
    uid = run(services["postgres"], **pg_args(s3_uid))["instance_uid"]
    deck.log.clear()
    planned = run(
        services["postgres"],
        "subresource",
        "user",
        check_mode=True,
        parent_instance_uid=uid,
        username="app",
        password="pw-123456",
    )
    assert planned["changed"] and planned["operations"] == ["create_user"] and deck.writes() == []


def test_modify_without_waiting_is_settled_by_the_next_run(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """wait=false on modify: the next run waits for that operation and records what it applied (no re-modify)."""
    run(services["postgres"], **pg_args(s3_uid))
    started = run(services["postgres"], wait=False, resource_name="db1", resource_cpu=800)
    assert started["operations"] == ["modify"] and not started["operation"]["finished"]
    assert record(state_path)["operation"] == {
        "uid": started["operation"]["uid"],
        "name": "modify",
        "done": False,
        "digests": {},
    }
    settled = run(services["postgres"], resource_name="db1", resource_cpu=800)
    assert settled["operations"] == [] and not settled["changed"]
    assert record(state_path)["operation"]["done"] is True


def test_failed_unwaited_modify_is_applied_again(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """A failed operation the earlier run did not wait for is reported and applied again."""
    run(services["postgres"], **pg_args(s3_uid))
    deck.fail_operation["modify"] = "node pool exhausted"
    started = run(services["postgres"], wait=False, resource_name="db1", resource_cpu=800)
    deck._poll(deck.operations[started["operation"]["uid"]])  # it finishes (and fails) in the cloud meanwhile
    del deck.fail_operation["modify"]
    again = run(services["postgres"], resource_name="db1", resource_cpu=800)
    assert again["operations"] == ["modify"]
    assert any("node pool exhausted" in w for w in again["_warnings"])


def test_operation_abandoned_before_run_is_not_waited_for(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """A modify whose param push failed (outcome unknown) was never run: the next run applies it again at once."""
    import httpx

    run(services["postgres"], **pg_args(s3_uid))

    def push_lost(request: httpx.Request) -> Any:
        if request.url.path.endswith("/instanceOperationCfsParams"):
            return httpx.Response(504, json={"ERROR": "gateway timeout"})
        return None

    deck.hooks.append(push_lost)
    with pytest.raises(NubesError, match=r"outcome|504"):
        run(services["postgres"], resource_name="db1", resource_cpu=800)
    deck.hooks.clear()
    again = run(services["postgres"], resource_name="db1", resource_cpu=800)
    assert again["operations"] == ["modify"] and any("never started" in w for w in again["_warnings"])


def test_check_mode_destroy_plans_without_writes(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str, state_path: str
) -> None:
    """Check mode for destroy: the suspend is planned, nothing is written, the record stays."""
    run(services["postgres"], **pg_args(s3_uid))
    deck.log.clear()
    planned = run(services["postgres"], check_mode=True, diff_mode=True, resource_name="db1", state="absent")
    assert planned["changed"] and planned["operations"] == ["suspend"] and deck.writes() == []
    assert record(state_path) is not None
    assert planned["diff"]["after"] == {} and planned["diff"]["before"]["resource_cpu"] == 500


def _race_on_create(deck: FakeDeck, service_id: int, name: str) -> Any:
    """Another workspace creates `name` between the lookup and our POST, and the API enforces uniqueness."""
    import httpx

    def hook(request: httpx.Request) -> Any:
        if request.method == "POST" and request.url.path.endswith("/instances"):
            deck.hooks.clear()
            deck.add_instance(service_id, name, state={"params": {"displayName": name, "resourceRealm": REALM}})
            return httpx.Response(400, json={"ERROR": f"displayName '{name}' is not unique for service {service_id}"})
        return None

    deck.hooks.append(hook)


def test_not_unique_answer_names_the_holder(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> None:
    """Issue 14: a create refused with 400 `not unique` (the name was taken meanwhile) is decided again on what
    is live: without adopt_existing_on_create a clear error naming the holder (P25, two choices), no duplicate."""
    _race_on_create(deck, 12, "b9")
    with pytest.raises(NubesError) as info:
        run(services["s3"], resource_name="b9", display_name="b9", resource_realm=REALM)
    holder = next(uid for uid, i in deck.instances.items() if i["displayName"] == "b9")
    assert holder in info.value.msg and "adopt_existing_on_create=true" in info.value.details["diagnostics"]
    assert [e for e in deck.log if e == ("POST", "/instances")] == [("POST", "/instances")]
    assert len([i for i in deck.instances.values() if i["displayName"] == "b9"]) == 1


def test_not_unique_answer_takes_the_adopt_path(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """Issue 14: with adopt_existing_on_create the live holder of the name is adopted instead; never a duplicate,
    never a traceback."""
    _race_on_create(deck, 12, "b10")
    result = run(
        services["s3"], resource_name="b10", display_name="b10", resource_realm=REALM, adopt_existing_on_create=True
    )
    holder = next(uid for uid, i in deck.instances.items() if i["displayName"] == "b10")
    assert result["instance_uid"] == holder and result["decision"] == "adopt"
    assert record(state_path, "b10", "s3")["instance_uid"] == holder


def test_lookup_by_name_never_picks_a_deleted_instance(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck
) -> None:
    """Issue 14: a deleted instance keeps its display name; the lookup ignores it and adopts the live one."""
    deck.add_instance(12, "b11", "deleted")
    live = deck.add_instance(12, "b11", state={"params": {"displayName": "b11", "resourceRealm": REALM}})
    result = run(
        services["s3"], resource_name="b11", display_name="b11", resource_realm=REALM, adopt_existing_on_create=True
    )
    assert result["instance_uid"] == live


def test_subresource_parent_of_another_service_is_refused(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, s3_uid: str
) -> None:
    """K4a for sub-resources: a parent uid of another service (an S3 given to postgres_user) fails naming both
    services, before any write."""
    with pytest.raises(NubesError, match=r"service 12.*postgres \(service 90\)"):
        run(services["postgres"], "subresource", "user", parent_instance_uid=s3_uid, username="app", password="pw-1234")
    assert deck.writes() == []
