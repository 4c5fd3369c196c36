"""Identity of service-generated ids: K1, K2, K3, K4a, K4b."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

RECORDED = "AAAAAAAA-0000-0000-0000-000000000001"
OTHER = "BBBBBBBB-0000-0000-0000-000000000002"
PARENT = {"service_id": 90, "workspace": "default"}


def api_with(handler: Any) -> DeckApi:
    """A DeckApi whose endpoint answers the instance collection as the deck-api does, and `handler` the rest."""

    def deck(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path.endswith("/instances"):
            return httpx.Response(200, json={"results": [], "total": 0})
        response: httpx.Response = handler(request)
        return response

    return DeckApi(
        ApiClient(
            ClientConfig("https://gw.test", "t"), policy=RetryPolicy(scale=0), transport=httpx.MockTransport(deck)
        )
    )


def test_task_id_never_from_resource_name() -> None:
    """K1: unset instance_uid means "", whatever resource_name is."""
    assert identity.task_id(None) == ""
    assert identity.task_id("  ") == ""
    assert identity.resolve_identity(None, None, PARENT) == identity.Resolved()


def test_find_with_empty_id_makes_no_http_call() -> None:
    """K2: an empty id is "not found" at once, with no HTTP call."""
    calls: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(500)

    assert identity.find(api_with(handler), "") is None
    assert calls == []


def test_find_404_is_plain_not_found() -> None:
    """K2: a NotFound from the API on a non-empty id is plain "not found"."""
    api = api_with(lambda r: httpx.Response(404, json={"ERROR": f"Instance {RECORDED} not found", "TAGCONTEXT": "x"}))
    assert identity.find(api, RECORDED) is None


def test_create_never_sends_an_id() -> None:
    """K3: POST /instances carries serviceId, displayName, descr and no id."""
    bodies: List[Dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(201, headers={"Location": "./" + RECORDED})

    uid = api_with(handler).create_instance(90, "db1")
    assert uid == RECORDED
    assert bodies == [{"serviceId": 90, "displayName": "db1", "descr": ""}]
    assert not any("uid" in key.lower() or key == "id" for key in bodies[0])


def test_recorded_identity_used_when_task_has_none() -> None:
    """K4a: no id in the task -> ids are not compared; the recorded identity is used."""
    record = {"instance_uid": RECORDED, "service_id": 90, "workspace": "default"}
    assert identity.resolve_identity("", record, PARENT) == identity.Resolved(RECORDED)


def test_recorded_identity_checks_immutable_parent_fields() -> None:
    """K4a: immutable parent fields (service id, workspace, parent uid) must match; a mismatch is a conflict, which
    lifecycle.decide() refuses."""
    record = {"instance_uid": RECORDED, "service_id": 91, "workspace": "default"}
    moved = identity.resolve_identity("", record, PARENT)
    assert moved.rule == "K4a" and "immutable parent fields" in moved.conflict
    sub_record = {"uid": "x", "parent_instance_uid": OTHER}
    assert identity.resolve_identity("", sub_record, {"parent_instance_uid": RECORDED}, uid_field="uid").rule == "K4a"


def test_task_id_must_equal_recorded_id() -> None:
    """K4b: exact error `cannot change resource identity (old="<recorded>", new="<task>")`."""
    record = {"instance_uid": RECORDED, "service_id": 90}
    resolved = identity.resolve_identity(OTHER, record, PARENT)
    assert resolved.rule == "K4b"
    assert resolved.conflict == f'cannot change resource identity (old="{RECORDED}", new="{OTHER}")'


def test_task_id_equal_to_recorded_in_other_case_is_accepted() -> None:
    """K4b with UUIDs in either case: equal ids in different case are the same identity."""
    record = {"instance_uid": RECORDED}
    assert identity.resolve_identity(RECORDED.lower(), record, PARENT) == identity.Resolved(RECORDED.lower())


def test_task_id_without_record_is_used() -> None:
    """K1: the user's explicit id is used when nothing is recorded."""
    assert identity.resolve_identity(OTHER, None, PARENT) == identity.Resolved(OTHER)


def test_not_unique_display_name_error_explains_the_choice() -> None:
    """deck-api 5.4: 400 `not unique` on POST /instances -> say that names stay reserved and what to do."""
    api = api_with(lambda r: httpx.Response(400, json={"ERROR": "displayName 'db' is not unique for service 90"}))
    with pytest.raises(Exception, match="choose another resource_name"):
        api.create_instance(90, "db")
