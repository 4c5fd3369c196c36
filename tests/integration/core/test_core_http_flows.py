"""The runner against the running emulator, asserting the exact request sequence from its request log.

Every test runs in three fault modes (conftest.FAULT_MODES): clean; transient 401/429/502/503/504 on every
GET (probability 0.3, fixed seed) — retried per P32-P34 and never causing a duplicate; and `/run`
answering 500 `key [EXECUTABLE] doesn't exist` while the job is queued (deck-api 5.4: poll)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import OperationTimeoutError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.integration.core.conftest import RunTask, create_flow, live_instances, operation_flow, shape

REALM = "k8s-3.ext.nubes.ru"
pytestmark = pytest.mark.usefixtures("fault_mode")


def s3_args(name: str, **extra: Any) -> Dict[str, Any]:
    args: Dict[str, Any] = {"resource_name": name, "display_name": name, "resource_realm": REALM}
    args.update(extra)
    return args


def recorded(task: RunTask, service: str, name: str) -> Any:
    """The instance's record as stored (JSON), or None; a read by identity (the service id plays no part in it)."""
    store = StateStore(FileBackend(task.state_path), "default")  # type: ignore[attr-defined]
    record = store.get(ResourceRef(service, 0, "default", name))
    return None if record is None else record.to_json()


@pytest.fixture
def s3(task: RunTask, specs: Dict[str, Any], name: str) -> str:
    result, _log = task(specs["s3"], **s3_args(name + "-s3"))
    return str(result["instance_uid"])


def test_create_then_noop(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P20/K3 create: list by name, POST /instances, the create operation's id from the catalogue, create op flow;
    P16 no-op: exactly ONE GET."""
    result, log = task(specs["s3"], **s3_args(name))
    assert result["changed"] and result["status"] == "running" and result["operations"] == ["create"]
    assert shape(log) == create_flow(12, 2)
    assert len(live_instances(emu, 12, name)) == 1
    record = recorded(task, "s3", name)
    assert record["instance_uid"] == result["instance_uid"] and record["status"] == "present"

    again, log = task(specs["s3"], **s3_args(name))
    assert not again["changed"] and again["operations"] == []
    assert shape(log) == ["GET /instances/<uid>"]
    assert [e["path"] for e in log if e["status"] < 400] == ["/instances/" + result["instance_uid"]]


def test_modify(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P38: a changed param -> modify with all params of the op; the re-run is a no-op."""
    created, _log = task(specs["s3"], **s3_args(name))
    result, log = task(specs["s3"], **s3_args(name, max_buckets_per_user=7))
    assert result["operations"] == ["modify"] and result["changed"]
    flow = shape(log)
    assert flow[0] == "GET /instances/<uid>" and flow[1:3] == operation_flow("modify", 0)[:2]
    pushes = [line for line in flow if line.endswith("/instanceOperationCfsParams")]
    assert len(pushes) == 3  # maxBucketsPerUser, maxObjectsPerBucket, maxSizeGbPerUser: all params of modify
    assert flow[3 + len(pushes) :] == operation_flow("modify", 0)[2:]
    instance = next(i for i in emu.instances() if i["instanceUid"] == created["instance_uid"])
    assert str(instance["state"]["params"]["maxBucketsPerUser"]) == "7"
    assert not task(specs["s3"], **s3_args(name, max_buckets_per_user=7))[0]["changed"]


def test_redeploy_only_when_git_revision_changes(task: RunTask, specs: Dict[str, Any], name: str) -> None:
    """P14/P18: git_revision change -> redeploy (and only then); a create deploys the task's revision with a
    redeploy in the same run, as the create operation takes none (issue 23)."""
    args = {
        "resource_name": name,
        "domain": name,
        "resource_realm": REALM,
        "git_path": "https://git.test/app.git",
        "git_revision": "r1",
    }
    assert task(specs["flask"], **args)[0]["operations"] == ["create", "redeploy"]
    same, log = task(specs["flask"], **args)
    assert same["operations"] == [] and shape(log) == ["GET /instances/<uid>"]
    args["git_revision"] = "r2"
    result, log = task(specs["flask"], **args)
    assert result["operations"] == ["redeploy"]
    assert shape(log) == ["GET /instances/<uid>", *operation_flow("redeploy", 1)]


def test_suspend_on_destroy_then_resume_with_adopt(
    task: RunTask, specs: Dict[str, Any], emu: Any, name: str, s3: str
) -> None:
    """P29 suspend on destroy; P22 re-apply without adopt fails; P21 with adopt: resume + adopt."""
    args = {"resource_name": name, "s3_uid": s3, "resource_realm": REALM, "json_parameters": {}}
    created, _log = task(specs["postgres"], **args)
    gone, log = task(specs["postgres"], resource_name=name, state="absent")
    assert gone["operations"] == ["suspend"] and gone["status"] == "suspended"
    assert shape(log) == ["GET /instances/<uid>", *operation_flow("suspend", 0)]
    assert recorded(task, "postgres", name) is None

    with pytest.raises(Exception, match="adopt_existing_on_create=true"):
        task(specs["postgres"], **args)
    back, log = task(specs["postgres"], adopt_existing_on_create=True, **args)
    assert back["operations"] == ["resume"] and back["status"] == "running"
    assert back["instance_uid"] == created["instance_uid"]
    # the name is looked up (list items are candidates only), the candidate read live, then resumed
    assert shape(log) == ["GET /instances", "GET /instances/<uid>", *operation_flow("resume", 0)]
    assert recorded(task, "postgres", name)["instance_uid"] == created["instance_uid"]
    assert len(live_instances(emu, 90, name)) == 1


def test_state_only_destroy_makes_no_request(task: RunTask, specs: Dict[str, Any], name: str, s3: str) -> None:
    """P29: suspend_on_destroy=false -> remove from state only, no API call."""
    task(specs["postgres"], resource_name=name, s3_uid=s3, resource_realm=REALM, json_parameters={})
    result, log = task(specs["postgres"], resource_name=name, state="absent", suspend_on_destroy=False)
    assert result["changed"] and log == []
    assert recorded(task, "postgres", name) is None


def test_delete_of_non_suspendable_service(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P29: the delete operation for services that cannot be suspended (the follow-up op is not an error)."""
    _created, _log = task(specs["s3"], **s3_args(name))
    result, log = task(specs["s3"], resource_name=name, state="absent")
    assert result["operations"] == ["delete"] and result["status"] == "deleted"
    assert shape(log) == ["GET /instances/<uid>", *operation_flow("delete", 0)]
    assert live_instances(emu, 12, name) == []
    again, log = task(specs["s3"], resource_name=name, state="absent")
    assert not again["changed"]


def test_subresource_create_modify_delete(task: RunTask, specs: Dict[str, Any], emu: Any, name: str, s3: str) -> None:
    """P13/P17: operations on the parent; identity {parent uid, key}; idempotent."""
    parent, _log = task(specs["postgres"], resource_name=name, s3_uid=s3, resource_realm=REALM, json_parameters={})
    pg = specs["postgres"]
    user = {"parent_instance_uid": parent["instance_uid"], "username": "app", "password": "Pw-0123456789"}
    created, log = task(pg, "subresource", "user", role="readonly", **user)
    assert created["operations"] == ["create_user"]
    assert shape(log) == ["GET /instances/<uid>", *operation_flow("create_user", 4, poll_instance_after=False)]
    same, log = task(pg, "subresource", "user", role="readonly", **user)
    assert same["operations"] == [] and shape(log) == ["GET /instances/<uid>"]
    modified, log = task(pg, "subresource", "user", role="owner", **user)
    assert modified["operations"] == ["modify_user"]
    deleted, log = task(
        pg, "subresource", "user", state="absent", parent_instance_uid=parent["instance_uid"], username="app"
    )
    assert deleted["operations"] == ["delete_user"]
    assert shape(log) == ["GET /instances/<uid>", *operation_flow("delete_user", 1, poll_instance_after=False)]
    instance = next(i for i in emu.instances() if i["instanceUid"] == parent["instance_uid"])
    assert [u for u in (instance["state"].get("subresources") or {}).get("user", []) if u["username"] == "app"] == []


def test_wait_false_returns_after_run(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """wait=false: return right after `run` with the operation uid, and the instance as read then (its status);
    the next run waits and records."""
    result, log = task(specs["s3"], wait=False, **s3_args(name))
    assert result["operation"]["uid"] and not result["operation"]["finished"]
    assert shape(log) == [*create_flow(12, 2)[:-2], "GET /instances/<uid>"]
    assert result["status"] in ("creating", "not_created")
    assert recorded(task, "s3", name)["status"] == "creating"
    done, _log = task(specs["s3"], **s3_args(name))
    assert done["status"] == "running"
    assert recorded(task, "s3", name)["status"] == "present"
    assert len(live_instances(emu, 12, name)) == 1


def test_timeout_then_rerun(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """wait_timeout bounds the wait with a clear error; the re-run picks the operation up, no duplicate."""
    emu.configure(durations={"s3.create": 2.5})
    with pytest.raises(OperationTimeoutError, match="did not finish within wait_timeout=1"):
        task(specs["s3"], wait_timeout=1, **s3_args(name))
    assert recorded(task, "s3", name)["status"] == "creating"
    done, log = task(specs["s3"], **s3_args(name))
    assert done["status"] == "running"
    # P27: the instance is busy with the operation this record started: wait for it, read it again, record; no write
    assert shape(log) == ["GET /instances/<uid>", "GET /instanceOperations/<uid>", "GET /instances/<uid>"]
    assert len(live_instances(emu, 12, name)) == 1
