"""Issue 14: operation ids are not trustworthy in specs. The modules resolve `svcOperationId` by the operation's
name from the API (the live instance's `availableOperations`, or `GET /services/{svcId}` before an instance
exists) and use the spec's id only when the API gives none. Proved by specs whose ids are all wrong."""

from __future__ import annotations

import copy
from typing import Any, Dict

import httpx

from tests.integration.core.conftest import RunTask

REALM = "k8s-3.ext.nubes.ru"
WRONG_ID = 424242  # belongs to no service: the emulator refuses it with 400


def wrong_ids(service: Dict[str, Any]) -> Dict[str, Any]:
    broken = copy.deepcopy(service)
    for operation in broken["operations"]:
        operation["svc_operation_id"] = WRONG_ID
    return broken


def catalogue_ids(emu: Any, service_id: int) -> Dict[str, int]:
    answer = httpx.get(
        f"{emu.endpoint}/services/{service_id}", headers={"Authorization": f"Bearer {emu.token}"}, timeout=10
    )
    return {o["operation"]: o["svcOperationId"] for o in answer.json()["svc"]["operations"]}


def sent_ids(emu: Any, since: int) -> Dict[str, int]:
    return {
        r["body"]["operation"]: r["body"].get("svcOperationId")
        for r in emu.requests(since=since)
        if r["method"] == "POST" and r["path"] == "/instanceOperations"
    }


def test_operation_ids_come_from_the_api(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """Create, modify, sub-resource create and modify, suspend and resume all run with the API's ids although
    every id in the spec is wrong."""
    s3 = wrong_ids(specs["s3"])
    pg = wrong_ids(specs["postgres"])
    since = emu.last_seq
    s3_uid = task(s3, resource_name=name + "-s3", display_name=name, resource_realm=REALM)[0]["instance_uid"]
    args = {"resource_name": name, "s3_uid": s3_uid, "resource_realm": REALM}
    uid = task(pg, **args)[0]["instance_uid"]
    assert task(pg, **args, resource_cpu=700)[0]["operations"] == ["modify"]
    user = {"parent_instance_uid": uid, "username": "app", "password": "Pw-123456789"}
    assert task(pg, "subresource", "user", **user)[0]["operations"] == ["create_user"]
    assert task(pg, "subresource", "user", **user, role="owner")[0]["operations"] == ["modify_user"]
    assert task(pg, resource_name=name, state="absent")[0]["operations"] == ["suspend"]
    assert task(pg, **args, adopt_existing_on_create=True)[0]["operations"] == ["resume"]
    ids = catalogue_ids(emu, 90)
    sent = sent_ids(emu, since)
    assert {op: sent[op] for op in ("create", "modify", "create_user", "modify_user", "suspend", "resume")} == {
        op: ids[op] for op in ("create", "modify", "create_user", "modify_user", "suspend", "resume")
    }
    assert WRONG_ID not in sent.values()
