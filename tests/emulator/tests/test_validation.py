"""Parameter validation like a real backend: 400/422 with CFML-style bodies (deck-api.md 1.4, 2.3)."""

# ruff: noqa: RUF001 - Russian texts are part of the API

from __future__ import annotations

import httpx
import pytest

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import Api
from tests.emulator.tests.helpers import running_postgres, running_s3, running_zone


def assert_cfml(r: httpx.Response, status: int, text: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"ERROR", "TAGCONTEXT"}
    assert text in body["ERROR"], body
    assert ".cf" in body["TAGCONTEXT"]


@pytest.fixture
def dummy_op(api: Api, name: str) -> str:
    return api.new_operation(api.new_instance(1, name), "create")


def test_unknown_param_for_the_operation(api: Api, dummy_op: str) -> None:
    assert_cfml(api.set_param(dummy_op, 287, "1"), 400, "does not belong")  # 287 is dummy *modify*'s durationMs
    assert_cfml(api.set_param(dummy_op, 999999, "1"), 400, "does not belong")


@pytest.mark.parametrize(
    ("param_id", "value", "message"),
    [
        (198, "ten", "expected an integer"),
        (198, "1.5", "expected an integer"),
        (199, "yes", "expected true or false"),
        (199, "1", "expected true or false"),
        (321, "{broken", "malformed JSON"),
        (321, '"just a string"', "expected a JSON object"),
        (647, "[1, 2]", "expected a JSON object"),
        (647, '{"fieldZ": 1}', "unknown keys"),
        (647, '{"fieldB": "x"}', "expected an integer"),
        (647, '{"fieldC": "maybe"}', "expected true or false"),
        (654, '{"name": "a"}', "expected a JSON array"),
        (654, '[{"name": "a", "other": 1}]', "unknown keys"),
        (242, "elsewhere", "is not one of"),
    ],
)
def test_wrong_types_and_shapes_are_400(api: Api, dummy_op: str, param_id: int, value: str, message: str) -> None:
    assert_cfml(api.set_param(dummy_op, param_id, value), 400, message)


def test_well_formed_values_are_accepted(api: Api, dummy_op: str) -> None:
    for param_id, value in (
        (198, "-5"),
        (199, "TRUE"),
        (321, '{"k": [1]}'),
        (647, '{"fieldA": "z", "fieldB": 2, "fieldC": true}'),
        (647, '{"fieldB": "3", "fieldC": "false"}'),
        (654, '[{"name": "a", "value": "b"}]'),
        (242, "dummy"),
        (286, ""),
    ):
        assert api.set_param(dummy_op, param_id, value).status_code == 201, (param_id, value)


def test_choices_on_s3bucket_placement_and_dns_record_type(api: Api, name: str) -> None:
    bucket_op = api.new_operation(api.new_instance(13, name), "create")
    assert_cfml(api.set_param(bucket_op, api.param_ids(bucket_op)["placement"], "WARM"), 400, "HOT, COLD")
    record_op = api.new_operation(api.new_instance(111, f"{name}-r"), "create")
    assert_cfml(api.set_param(record_op, api.param_ids(record_op)["recordType"], "PTRX"), 400, "is not one of")


def test_missing_required_params_at_validate_and_run(api: Api, name: str) -> None:
    """Required params must be sent (a default does not count), checked by validate-cfs and run."""
    uid = api.new_instance(13, name)
    op = api.new_operation(uid, "create")
    r = api.get(f"/instanceOperations/{op}/validate-cfs")
    assert_cfml(r, 422, "Не заполнены обязательные параметры")
    for code in ("s3UserUid", "bucketName", "maxSize", "readAll", "listAll", "corsAll", "placement"):
        assert code in r.json()["ERROR"]
    assert_cfml(api.run(op), 422, "Не заполнены обязательные параметры")
    assert api.operation(op)["dtSubmit"] is None  # not queued


def test_validate_cfs_success_body(api: Api, name: str) -> None:
    uid = api.new_instance(110, name)
    op = api.prepare(uid, "create", {"zoneName": "ok.example"})
    r = api.get(f"/instanceOperations/{op}/validate-cfs")
    assert r.status_code == 200 and r.json() == {"isValid": True, "errors": []}
    assert api.get("/instanceOperations/00000000-0000-0000-0000-000000000000/validate-cfs").status_code == 404


def test_references_must_exist_and_be_of_the_right_service(api: Api, emu: EmulatorServer, name: str) -> None:
    """refSvcId: a UUID of a live instance of that service; else 422."""
    s3 = running_s3(api, name)
    zone = running_zone(api, name, "refs.example")
    op = api.new_operation(api.new_instance(13, f"{name}-b"), "create")
    s3_param = api.param_ids(op)["s3UserUid"]
    assert_cfml(api.set_param(op, s3_param, "my-s3-by-name"), 422, "is not an instance UUID")
    assert_cfml(api.set_param(op, s3_param, "00000000-0000-4000-8000-000000000000"), 422, "does not exist")
    assert_cfml(api.set_param(op, s3_param, zone), 422, "expected service 12")
    assert api.set_param(op, s3_param, s3.lower()).status_code == 201


def test_reference_to_a_deleted_instance(api: Api, name: str) -> None:
    s3 = running_s3(api, name)
    values = {"s3UserUid": s3, "bucketName": "b", "maxSize": "-1", "readAll": "false", "listAll": "false",
              "corsAll": "false", "placement": "HOT"}  # fmt: skip
    op = api.prepare(api.new_instance(13, f"{name}-b"), "create", values)
    assert api.get(f"/instanceOperations/{op}/validate-cfs").status_code == 200
    api.complete(s3, "delete")
    assert_cfml(api.get(f"/instanceOperations/{op}/validate-cfs"), 422, "does not exist")


def test_reference_inside_map_fixed(api: Api, name: str) -> None:
    """postgres tlsSettings.s3BackupUid (dataDescriptor refSvcId 12) is checked like a top-level reference."""
    s3 = running_s3(api, name)
    pg = running_postgres(api, name, s3)
    op = api.new_operation(api.new_instance(90, f"{name}-2"), "create")
    tls = api.param_ids(op)["tlsSettings"]
    assert_cfml(api.set_param(op, tls, f'{{"s3BackupUid": "{pg}"}}'), 422, "expected service 12")
    assert_cfml(api.set_param(op, tls, '{"type": "letsencrypt"}'), 400, "is not one of")
    assert api.set_param(op, tls, f'{{"type": "self-signed", "s3BackupUid": "{s3}"}}').status_code == 201


def test_request_body_errors(api: Api, dummy_op: str) -> None:
    assert (
        api.post("/instanceOperationCfsParams", {"svcOperationCfsParamId": 198, "paramValue": "1"}).status_code == 400
    )
    assert (
        api.post("/instanceOperationCfsParams", {"instanceOperationUid": dummy_op, "paramValue": "1"}).status_code
        == 400
    )
    r = api.post(
        "/instanceOperationCfsParams",
        {
            "instanceOperationUid": "00000000-0000-0000-0000-000000000000",
            "svcOperationCfsParamId": 198,
            "paramValue": "1",
        },
    )
    assert r.status_code == 404


def test_cname_needs_a_trailing_dot(api: Api, name: str) -> None:
    """deck-api.md 3.4: CNAME values need a trailing dot (checked by validate-cfs / run, also on modify)."""
    zone = running_zone(api, name, "cname.example")
    record = api.new_instance(111, f"{name}-cname")
    values = {"zoneUid": zone, "recordType": "CNAME", "recordName": "alias", "recordInput": "target.example"}
    op = api.prepare(record, "create", values)
    assert_cfml(api.get(f"/instanceOperations/{op}/validate-cfs"), 400, "ending with a dot")
    assert_cfml(api.run(op), 400, "ending with a dot")
    api.complete(record, "create", {**values, "recordInput": "target.example."})
    modify = api.prepare(record, "modify", {"recordInput": "elsewhere.example"})
    assert_cfml(api.get(f"/instanceOperations/{modify}/validate-cfs"), 400, "ending with a dot")
