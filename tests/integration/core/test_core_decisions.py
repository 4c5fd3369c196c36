"""Lifecycle decisions on live data, run in-process against the emulator (the playbook-level cases are in
tests/integration/lifecycle): what the matrix says when the emulator holds the situation, checked in the
emulator afterwards."""

from __future__ import annotations

from typing import Any, Dict

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from tests.integration.core.conftest import RunTask, live_instances

REALM = "k8s-3.ext.nubes.ru"


def s3_args(name: str, **extra: Any) -> Dict[str, Any]:
    return {"resource_name": name, "display_name": name, "resource_realm": REALM, **extra}


def placeholder(emu: Any, service_id: int, name: str) -> str:
    """An instance that was never created (POST /instances only), as another client leaves it."""
    answer = httpx.post(
        f"{emu.endpoint}/instances",
        json={"serviceId": service_id, "displayName": name, "descr": ""},
        headers={"Authorization": f"Bearer {emu.token}"},
        timeout=10,
    )
    return answer.headers["Location"].rsplit("/", 1)[-1]


def test_placeholder_found_by_name_is_never_adopted(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P26: a `not created` instance found by name is an error, also with adopt_existing_on_create; nothing is
    created beside it."""
    uid = placeholder(emu, 12, name)
    with pytest.raises(NubesError, match="never created successfully") as info:
        task(specs["s3"], adopt_existing_on_create=True, **s3_args(name))
    assert uid in info.value.msg
    assert [i["instanceUid"] for i in live_instances(emu, 12, name)] == [uid]


def test_two_live_instances_with_the_name_are_listed(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P42: two live instances carry the resource_name: an error listing both uids, no write."""
    first = placeholder(emu, 12, name)
    second = placeholder(emu, 12, name)
    since = emu.last_seq
    with pytest.raises(NubesError, match="2 live instances") as info:
        task(specs["s3"], adopt_existing_on_create=True, **s3_args(name))
    assert first in info.value.msg and second in info.value.msg
    assert [r for r in emu.requests(since=since) if r["method"] != "GET"] == []


def test_existing_user_is_adopted_and_its_password_set_with_always(
    task: RunTask, specs: Dict[str, Any], emu: Any, name: str
) -> None:
    """P28 (two choices without the flag), P13/P24: adopting an existing user sends the task's password only with
    update_password=always, in the same run; the next run with the same password changes nothing."""
    pg = specs["postgres"]
    s3 = task(specs["s3"], **s3_args(name + "-s3"))[0]["instance_uid"]
    parent = task(pg, resource_name=name, s3_uid=s3, resource_realm=REALM)[0]["instance_uid"]
    other_state = {"state_path": task.state_path + ".other"}  # type: ignore[attr-defined]
    user = {"parent_instance_uid": parent, "username": "app", "role": "owner"}
    task(pg, "subresource", "user", password="First-Pass-1", **user, **other_state)  # another workspace made it
    with pytest.raises(NubesError) as info:
        task(pg, "subresource", "user", password="Second-Pass-2", **user)
    ways = info.value.details["diagnostics"]  # the one-line msg names them in one sentence (P28)
    assert "1. change username" in ways and "2. import/adopt" in ways
    assert "Either change username to create a new user, or import/adopt the existing one" in info.value.msg
    adopted = task(pg, "subresource", "user", password="Second-Pass-2", adopt_existing_on_create=True, **user)[0]
    assert adopted["operations"] == [] and adopted["decision"] == "adopt"  # on_create: nothing sent
    since = emu.last_seq
    always = {"password": "Second-Pass-2", "update_password": "always"}
    assert task(pg, "subresource", "user", **always, **user)[0]["operations"] == ["modify_user"]
    pushed = [r["body"] for r in emu.requests(since=since) if r["path"] == "/instanceOperationCfsParams"]
    assert any(body["paramValue"] == "***" for body in pushed)  # the password row (masked in the log) was sent
    assert task(pg, "subresource", "user", **always, **user)[0]["changed"] is False
