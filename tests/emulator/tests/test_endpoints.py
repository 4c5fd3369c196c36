"""Every endpoint of deck-api.md section 2, in all three URL forms, with its shapes and status codes."""

# ruff: noqa: RUF001 - Russian texts are part of the API

from __future__ import annotations

import httpx
import pytest

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import PLAIN, UUID_RE, Api, uid_from
from tests.emulator.tests.helpers import running_s3

FORMS = ("gateway", "legacy", "pathinfo")


@pytest.mark.parametrize("form", FORMS)
def test_three_endpoint_forms_share_one_state(emu: EmulatorServer, form: str, name: str) -> None:
    """P9/P10: gateway, legacy proxy (?endpoint=) and path-info serve the same instances."""
    writer = Api(emu, form)
    uid = writer.new_instance(1, name)
    for reader_form in FORMS:
        reader = Api(emu, reader_form)
        assert reader.instance(uid)["displayName"] == name
        listed = reader.get("/instances", serviceId=1, pageSize=1000, fields="instanceUid,displayName").json()
        assert uid in [i["instanceUid"] for i in listed["results"]]
        reader.close()
    writer.close()
    forms = {e["form"] for e in emu.requests()}
    assert forms == set(FORMS)
    assert {e["path"] for e in emu.requests() if e["method"] == "GET" and "fields" not in e["query"]} == {
        f"/instances/{uid}"
    }


def test_legacy_proxy_merges_inner_and_outer_query(emu: EmulatorServer, api: Api) -> None:
    """P9: `index.cfm?endpoint=/path?query` (URL-encoded) and outer parameters both reach the API."""
    query = httpx.QueryParams({"endpoint": "/instances?serviceId=1&pageSize=1", "page": "1"})
    r = api.http.get(f"{emu.legacy_endpoint}?{query}")
    assert r.status_code == 200
    entry = emu.requests()[-1]
    assert entry["path"] == "/instances"
    assert entry["query"] == {"serviceId": "1", "pageSize": "1", "page": "1"}
    assert entry["form"] == "legacy"


def test_create_instance_location_and_get(api: Api, name: str) -> None:
    r = api.post("/instances", {"serviceId": 12, "displayName": name, "descr": ""})
    assert r.status_code == 201
    assert r.headers["Location"].startswith("./")
    uid = uid_from(r)
    inst = api.instance(uid)
    assert inst["instanceUid"] == uid
    assert inst["serviceId"] == 12 and inst["svc"] == "s3"
    assert inst["explainedStatus"] == "not created"
    assert inst["isDeleted"] is False and inst["lastOperation"] is None and inst["lastOperationUid"] is None
    assert inst["operationIsPending"] is False and inst["operationIsInProgress"] is False
    assert inst["availableOperations"] == [{"svcOperationId": 1201, "operation": "create"}]
    assert inst["state"] is None


def test_get_instance_with_fields(api: Api, name: str) -> None:
    uid = api.new_instance(1, name, "описание")
    r = api.get(f"/instances/{uid}", fields="instanceUid,displayName,descr,explainedStatus")
    assert r.json() == {
        "instance": {"instanceUid": uid, "displayName": name, "descr": "описание", "explainedStatus": "not created"}
    }


def test_uids_are_case_insensitive(api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    assert api.instance(uid.lower())["instanceUid"] == uid


def test_instance_errors(api: Api) -> None:
    assert api.get("/instances/00000000-0000-0000-0000-000000000000").status_code == 404
    bad = api.post("/instances", {"serviceId": 99999, "displayName": "x"})
    assert bad.status_code == 400 and "ERROR" in bad.json() and "TAGCONTEXT" in bad.json()
    assert api.post("/instances", {"serviceId": 1}).status_code == 400
    assert api.post("/instances", {"displayName": "x"}).status_code == 400
    assert api.post("/instances", [1, 2]).status_code == 400
    raw = api.http.post(api.url("/instances"), content=b"{not json", headers={"Content-Type": "application/json"})
    assert raw.status_code == 400 and "ERROR" in raw.json()


def test_list_pagination_total_and_filter(api: Api, name: str) -> None:
    uids = [api.new_instance(113, f"{name}-{i}") for i in range(5)]
    first = api.get("/instances", serviceId=113, page=1, pageSize=2).json()
    assert first["total"] >= 5 and "totalCount" not in first
    assert len(first["results"]) == 2
    seen = []
    page = 1
    while True:
        chunk = api.get("/instances", serviceId=113, page=page, pageSize=2).json()["results"]
        if not chunk:
            break
        seen += [i["instanceUid"] for i in chunk]
        page += 1
    assert seen[-5:] == uids  # oldest first, every page in order
    assert all(i["serviceId"] == 113 for i in api.get("/instances", serviceId=113).json()["results"])


def test_list_items_default_fields_and_fields_param(api: Api, name: str) -> None:
    uid = api.new_instance(113, name)
    items = api.get("/instances", serviceId=113, pageSize=1000).json()["results"]
    item = next(i for i in items if i["instanceUid"] == uid)
    for key in (
        "instanceUid",
        "displayName",
        "isDeleted",
        "lastOperation",
        "lastOperationUid",
        "instanceConfigDtCreated",
    ):
        assert key in item
    assert "state" not in item
    narrow = api.get(
        "/instances", fields="instanceUid,displayName,instanceConfigDtCreated", serviceId=113, pageSize=1000
    ).json()["results"]
    assert set(next(i for i in narrow if i["instanceUid"] == uid)) == {
        "instanceUid",
        "displayName",
        "instanceConfigDtCreated",
    }


def test_list_size_param_is_not_honoured(api: Api, name: str) -> None:
    """deck-api.md 2.1: whether `size` works is unknown; the emulator ignores it (assumption)."""
    for i in range(3):
        api.new_instance(113, f"{name}-{i}")
    assert len(api.get("/instances", serviceId=113, size=1).json()["results"]) > 1


def test_list_bad_page_params(api: Api) -> None:
    assert api.get("/instances", page=0).status_code == 400
    assert api.get("/instances", pageSize="x").status_code == 400
    assert api.get("/instances", serviceId="abc").status_code == 400


def test_delete_placeholder_then_422_once_it_has_state(api: Api, name: str) -> None:
    """deck-api.md 2.1/5.4: DELETE /instances/{uid} -> 422 once an operation has run on it."""
    placeholder = api.new_instance(1, f"{name}-a")
    assert api.delete(f"/instances/{placeholder}").status_code == 200
    assert api.get(f"/instances/{placeholder}").status_code == 404
    uid = api.new_instance(110, f"{name}-b")
    api.complete(uid, "create", {"zoneName": "del.example"})
    r = api.delete(f"/instances/{uid}")
    assert r.status_code == 422
    assert "Instance deletion disabled when having state" in r.json()["ERROR"]


def test_create_operation_without_operation_is_500(api: Api, name: str) -> None:
    """deck-api.md 2.2: leaving out `operation` gives HTTP 500."""
    uid = api.new_instance(1, name)
    r = api.post("/instanceOperations", {"instanceUid": uid})
    assert r.status_code == 500
    assert set(r.json()) == {"ERROR", "TAGCONTEXT"}


def test_create_operation_errors(api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    assert api.post("/instanceOperations", {"operation": "create"}).status_code == 400
    assert (
        api.post("/instanceOperations", {"instanceUid": "00000000-0000-0000-0000-000000000000", "operation": "create"})
    ).status_code == 404
    assert api.post("/instanceOperations", {"instanceUid": uid, "operation": "explode"}).status_code == 400
    wrong_id = api.post("/instanceOperations", {"instanceUid": uid, "operation": "create", "svcOperationId": 9001})
    assert wrong_id.status_code == 400
    mismatch = api.post("/instanceOperations", {"instanceUid": uid, "operation": "modify", "svcOperationId": 101})
    assert mismatch.status_code == 400
    not_available = api.post("/instanceOperations", {"instanceUid": uid, "operation": "modify"})
    assert not_available.status_code == 422


def test_create_operation_with_svc_operation_id(api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    op = api.new_operation(uid, "create", 101)
    body = api.operation(op)
    assert body["svcOperationId"] == 101 and body["operation"] == "create"


def test_operation_draft_shape(api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    op_uid = api.new_operation(uid, "create")
    op = api.operation(op_uid)
    assert op["instanceOperationUid"] == op_uid and op["instanceUid"] == uid
    assert op["serviceId"] == 1 and op["svc"] == "dummy" and op["displayName"] == name
    assert op["isPending"] is False and op["isInProgress"] is False and op["isSuccessful"] is None
    assert op["dtCreated"] and op["dtSubmit"] is None and op["dtStart"] is None and op["dtFinish"] is None
    assert op["submitResult"] is None and op["errorLog"] is None and op["stages"] == []
    assert op["updaterLogin"] == "emulator-user" and op["updaterShortname"] == "Т. Э."
    assert op["man"]


def test_operation_fields_cfs_params(api: Api, name: str) -> None:
    """deck-api.md 2.2: ?fields=cfsParams lists the operation's params with defaults and current values."""
    uid = api.new_instance(1, name)
    op_uid = api.new_operation(uid, "create")
    body = api.get(f"/instanceOperations/{op_uid}", fields="cfsParams").json()
    assert set(body) == {"instanceOperation"}
    params = body["instanceOperation"]["cfsParams"]
    by_code = {p["svcOperationCfsParam"]: p for p in params}
    assert by_code["durationMs"]["svcOperationCfsParamId"] == 198
    assert by_code["durationMs"]["defaultValue"] == "0"  # strings in operation cfsParams
    assert by_code["failAtStart"]["defaultValue"] == "false"
    assert by_code["durationMs"]["paramValue"] is None and by_code["durationMs"]["instanceOperationCfsParamUid"] is None
    api.set_param(op_uid, 198, "5")
    again = api.get(f"/instanceOperations/{op_uid}", fields="cfsParams").json()["instanceOperation"]["cfsParams"]
    row = next(p for p in again if p["svcOperationCfsParamId"] == 198)
    assert row["paramValue"] == "5" and UUID_RE.fullmatch(row["instanceOperationCfsParamUid"])


def test_default_operation_answers_svc_operation(api: Api) -> None:
    """deck-api.md 2.2: /instanceOperations/default/{id} answers key `svcOperation`, labels in Russian."""
    r = api.get("/instanceOperations/default/45", fields="operation,svcOperationId,cfsParams")
    body = r.json()
    assert set(body) == {"svcOperation"}
    assert body["svcOperation"]["operation"] == "create" and body["svcOperation"]["svcOperationId"] == 45
    labels = {p["label"] for p in body["svcOperation"]["cfsParams"]}
    assert labels == {"UUID Зоны", "Тип DNS-записи", "Имя записи", "Значение записи", "TTL записи (в секундах)"}
    assert api.get("/instanceOperations/default/424242").status_code == 404


def test_instance_operations_list_is_broken(api: Api, name: str) -> None:
    """deck-api.md 2.2: GET /instanceOperations?instanceUid= fails with the SQL error."""
    uid = api.new_instance(1, name)
    r = api.get("/instanceOperations", instanceUid=uid)
    assert r.status_code == 500
    assert "operator does not exist: uuid = character varying" in r.json()["ERROR"]


def test_cfs_params_post_put_get(api: Api, name: str) -> None:
    """deck-api.md 2.3: POST one per param, PUT by row uid, GET by operation."""
    uid = api.new_instance(1, name)
    op = api.new_operation(uid, "create")
    r = api.set_param(op, 286, "привет")
    assert r.status_code == 201
    row_uid = uid_from(r)
    put = api.put(
        "/instanceOperationCfsParams",
        {
            "instanceOperationUid": op,
            "svcOperationCfsParamId": 286,
            "instanceOperationCfsParamUid": row_uid,
            "paramValue": "пока",
        },
    )
    assert put.status_code == 200
    listed = api.get("/instanceOperationCfsParams", instanceOperationUid=op).json()["results"]
    assert listed == [
        {
            "instanceOperationCfsParamUid": row_uid,
            "instanceOperationUid": op,
            "svcOperationCfsParamId": 286,
            "svcOperationCfsParam": "bodymessage",
            "label": "Сообщение",
            "paramValue": "пока",
        }
    ]
    missing = api.put("/instanceOperationCfsParams", {"instanceOperationCfsParamUid": op, "paramValue": "x"})
    assert missing.status_code == 404
    assert api.get("/instanceOperationCfsParams").status_code == 400


def test_cfs_param_values_are_sent_as_strings_but_json_types_accepted(api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    op = api.new_operation(uid, "create")
    assert api.set_param(op, 198, 250).status_code == 201
    assert api.set_param(op, 199, False).status_code == 201
    assert api.set_param(op, 321, {"a": 1}).status_code == 201
    values = {
        r["svcOperationCfsParamId"]: r["paramValue"]
        for r in api.get("/instanceOperationCfsParams", instanceOperationUid=op).json()["results"]
    }
    assert values == {198: "250", 199: "false", 321: '{"a": 1}'}


def test_modify_operation_prefills_current_values(api: Api, name: str) -> None:
    """deck-api.md 2.2: cfsParams of a modify are pre-filled with current values (and have row uids)."""
    s3 = running_s3(api, name)
    api.complete(s3, "modify", {"maxSizeGbPerUser": "10"})
    op = api.new_operation(s3, "modify")
    params = {p["svcOperationCfsParam"]: p for p in api.operation(op)["cfsParams"]}
    assert params["maxSizeGbPerUser"]["paramValue"] == "10"
    assert params["maxSizeGbPerUser"]["instanceOperationCfsParamUid"]
    assert params["maxBucketsPerUser"]["paramValue"] is None


def test_catalogue_services_and_service_operation(api: Api) -> None:
    """deck-api.md 2.4 + emulator-contract.md: svc with operations and outputs; svcOperation with cfsParams."""
    for form in FORMS:
        client = Api(api.emu, form)
        svc = client.get("/services/90").json()["svc"]
        assert svc["svcId"] == 90 and svc["svcShort"] == "postgres" and svc["svcName"] == "PostgreSQL" and svc["man"]
        ops = {o["operation"]: o["svcOperationId"] for o in svc["operations"]}
        assert {"create", "modify", "delete", "suspend", "resume", "create_user", "create_database"} <= set(ops)
        assert {o["code"] for o in svc["outputs"]} >= {"adminUser", "adminPass", "internalConnect.master", "vault.url"}
        assert all("emulatorValue" not in o for o in svc["outputs"])
        op = client.get(f"/serviceOperation/{ops['create']}").json()["svcOperation"]
        assert op["svcOperationId"] == ops["create"] and op["operation"] == "create"
        by_code = {p["svcOperationCfsParam"]: p for p in op["cfsParams"]}
        assert by_code["s3Uid"]["refSvcId"] == 12 and by_code["s3Uid"]["isRequired"] is True
        # the live API serves a default as text (live-catalogue; issue 23), also for an integer param
        assert by_code["resourceCPU"]["defaultValue"] == "500" and by_code["resourceCPU"]["dataType"] == "integer"
        tls = by_code["tlsSettings"]
        assert tls["dataType"] == "map-fixed"
        subs = {p["svcOperationCfsParam"]: p["defaultValue"] for p in tls["dataDescriptor"]["params"]}
        assert subs == {"type": "off", "durationCA": 175200, "s3BackupUid": ""}
        client.close()
    assert api.get("/services/4242").status_code == 404
    assert api.get("/serviceOperation/4242").status_code == 404
    assert api.get("/services/abc").status_code == 400


def test_resource_realms_available(api: Api) -> None:
    """deck-api.md 2.4: /resourceRealms/available?svcId=1 gives `dummy`."""
    assert api.get("/resourceRealms/available", svcId=1).json() == {"results": ["dummy"]}
    legacy = Api(api.emu, "legacy")
    assert legacy.get("/resourceRealms/available", svcId=90).json()["results"]
    legacy.close()


def test_unknown_endpoint_and_method(api: Api, emu: EmulatorServer) -> None:
    r = api.get("/nothing/here")
    assert r.status_code == 404 and "ERROR" in r.json()
    assert api.put("/instances").status_code == 405
    assert PLAIN.get(emu.base_url + "/elsewhere").status_code == 404


def test_keep_alive_http11(emu: EmulatorServer, api: Api) -> None:
    """Many requests over one HTTP/1.1 connection."""
    with httpx.Client(headers={"Authorization": f"Bearer {emu.token}"}) as client:
        for _index in range(20):
            r = client.get(emu.endpoint + "/services/1")
            assert r.status_code == 200 and r.http_version == "HTTP/1.1"


def test_parallel_clients_get_unique_ids_and_a_complete_log(emu: EmulatorServer, name: str) -> None:
    """The threading server under 8 parallel keep-alive clients: every create answered, ids unique, log complete."""
    import threading

    uids: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        client = Api(emu)
        for number in range(15):
            r = client.post("/instances", {"serviceId": 113, "displayName": f"{name}-{index}-{number}", "descr": ""})
            with lock:
                if r.status_code == 201:
                    uids.append(uid_from(r))
                else:
                    errors.append(r.text)
        client.close()

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(uids) == len(set(uids)) == 120
    entries = [e for e in emu.requests() if e["method"] == "POST"]
    assert len(entries) == 120 and len({e["seq"] for e in entries}) == 120
