"""Tolerant readers (emulator-contract: unknown fields ignored, UUIDs in either case, Location forms)."""

from __future__ import annotations

from typing import List

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    Instance,
    Operation,
    normalize_status,
    same_uid,
    uid_from_body,
    uid_from_location,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

UID = "3A021B21-1B2C-4D5E-8F90-0123456789AB"


@pytest.mark.parametrize(
    "location",
    ["./" + UID, "/api/v1/svc/instances/" + UID, "https://gw.test/api/v1/svc/instances/" + UID, UID.lower()],
)
def test_location_forms(location: str) -> None:
    """Location as ./<uuid>, an absolute path or a URL."""
    assert same_uid(uid_from_location(location), UID)


def test_body_fallbacks() -> None:
    """Body {instanceUid}, a nested object or a bare JSON string."""
    assert uid_from_body({"instanceUid": UID}, "instanceUid") == UID
    assert uid_from_body({"instance": {"instanceUid": UID}}, "instanceUid") == UID
    assert uid_from_body(UID, "instanceUid") == UID
    assert uid_from_body({"other": 1}, "instanceUid") is None


def test_uuid_case_insensitive() -> None:
    assert same_uid(UID, UID.lower())
    assert not same_uid(UID, "")


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("running", "running"),
        ("Running", "running"),
        ("Active", "running"),
        ("Deployed", "running"),
        ("suspended", "suspended"),
        ("Приостановлена", "suspended"),
        ("deleted", "deleted"),
        ("not created", "not_created"),
        ("creating", "creating"),
        ("Creating", "creating"),
        ("modifying", "pending"),
        ("suspending", "pending"),
        ("Processing", "pending"),
        ("failed", "failed"),
        ("не удалось создать", "failed"),
        ("", "pending"),
    ],
)
def test_status_normalisation(raw: str, status: str) -> None:
    """status (normalised) vs status_raw (what the API said)."""
    assert normalize_status(raw) == status


def test_instance_reader_ignores_unknown_fields_and_reads_strings() -> None:
    instance = Instance(
        {
            "instanceUid": UID,
            "displayName": "db",
            "serviceId": "90",
            "explainedStatus": "Running",
            "isDeleted": "false",
            "operationIsPending": "true",
            "brandNewField": {"x": 1},
            "availableOperations": [
                {"svcOperationId": 1, "operation": "Modify"},
                {"name": "suspend", "svcOperationId": "2"},
                {"svcOperation": {"id": 3, "name": "resume"}},
            ],
            "state": {"params": {"resourceCPU": 500, "flag": True, "obj": {"a": 1}}},
        }
    )
    assert instance.service_id == 90
    assert instance.status == "running" and instance.status_raw == "Running"
    assert instance.operation_pending and instance.busy
    assert instance.available_operations() == {"modify": 1, "suspend": 2, "resume": 3}
    assert instance.params() == {"resourceCPU": "500", "flag": "true", "obj": '{"a":1}'}


def test_operation_reader() -> None:
    """deck-api 5.2/5.3: dtFinish is the completion signal; the literal "null" means unset."""
    op = Operation({"instanceOperationUid": "u", "dtFinish": "null", "isSuccessful": None})
    assert not op.finished
    op = Operation(
        {
            "dtFinish": "2026-01-01T00:00:00",
            "isSuccessful": False,
            "stages": [{"stage": "a", "isSuccessful": True}, {"stage": "b", "isSuccessful": False}],
        }
    )
    assert op.finished and op.is_successful is False and op.first_failed_stage() == "b"


@pytest.mark.parametrize("count_key", ["total", "totalCount"])
def test_list_accepts_total_and_totalcount_and_pages(count_key: str) -> None:
    """Both `total` and `totalCount`; pagination via page/pageSize until all are read."""
    pages: List[str] = []
    items = [{"instanceUid": f"{i:08d}-0000-0000-0000-000000000000", "displayName": f"n{i}"} for i in range(130)]

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        pages.append(request.url.params["page"])
        size = 60  # the server caps the page size below what was asked
        chunk = items[(page - 1) * size : page * size]
        return httpx.Response(200, json={"results": chunk, count_key: len(items)})

    api = DeckApi(
        ApiClient(
            ClientConfig("https://gw.test", "t"), policy=RetryPolicy(scale=0), transport=httpx.MockTransport(handler)
        )
    )
    assert len(api.list_instances(90)) == 130
    assert pages == ["1", "2", "3"]
