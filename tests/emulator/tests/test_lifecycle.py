"""Operations over time and their effects on instances: a full lifecycle per service kind."""

from __future__ import annotations

import json
from typing import Any

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import Api, uid_from
from tests.emulator.tests.helpers import (
    FLASK_CREATE,
    RABBITMQ_CREATE,
    REDIS_CREATE,
    running_postgres,
    running_s3,
    running_zone,
)


def names(inst: dict[str, Any]) -> set[str]:
    return {o["operation"] for o in inst["availableOperations"]}


def test_timeline_pending_in_progress_finished(frozen: EmulatorServer, api: Api, name: str) -> None:
    """deck-api.md 5.2/5.3: pending -> in progress -> finished; dtFinish is the completion signal."""
    frozen.configure(op_duration=10)  # 2 s queued, then 4 stages of 2 s
    uid = api.new_instance(110, name)
    op_uid = api.start(uid, "create", {"zoneName": "timeline.example"})

    op = api.operation(op_uid)
    inst = api.instance(uid)
    assert (op["isPending"], op["isInProgress"], op["isSuccessful"]) == (True, False, None)
    assert op["dtSubmit"] and op["dtStart"] is None and op["dtFinish"] is None and op["submitResult"] == "201"
    assert op["stages"] == [] and op["duration"] is None
    assert inst["explainedStatus"] == "creating" and inst["operationIsPending"] and not inst["operationIsInProgress"]
    assert inst["lastOperation"] == "create" and inst["lastOperationUid"] == op_uid

    frozen.clock.advance(3)  # first stage running
    op = api.operation(op_uid)
    assert (op["isPending"], op["isInProgress"], op["isSuccessful"]) == (False, True, None)
    assert op["dtStart"] and op["dtFinish"] is None
    assert [s["stage"] for s in op["stages"]] == ["Подготовка среды"]
    assert op["stages"][0]["isSuccessful"] is None and op["stages"][0]["stageMsg"] == "[PROCESS]"
    inst = api.instance(uid)
    assert inst["operationIsInProgress"] and not inst["operationIsPending"] and inst["explainedStatus"] == "creating"
    assert inst["state"] is None

    frozen.clock.advance(2)  # second stage
    stages = api.operation(op_uid)["stages"]
    assert [s["isSuccessful"] for s in stages] == [True, None]
    assert json.loads(stages[0]["stageMsg"])["result"] == "SUCCESS"

    frozen.clock.advance(6)
    op = api.operation(op_uid)
    assert op["isSuccessful"] is True and op["dtFinish"] and op["errorLog"] is None
    assert op["duration"] == 8.0
    assert len(op["stages"]) == 4 and all(s["isSuccessful"] for s in op["stages"])
    assert op["state"]["params"]["zoneName"] == "timeline.example"
    inst = api.instance(uid)
    assert inst["explainedStatus"] == "running" and not inst["operationIsInProgress"] and not inst["operationIsPending"]
    assert op["dtCreated"] <= op["dtSubmit"] <= op["dtStart"] <= op["dtFinish"] == op["dtUpdated"]


def test_durations_per_service_and_operation(frozen: EmulatorServer, api: Api, name: str) -> None:
    """Durations: op_duration default, overridden per service and per service.operation."""
    frozen.configure(op_duration=100, durations={"dnszone": 10, "dnszone.delete": 1})
    zone = api.new_instance(110, name)
    create = api.start(zone, "create", {"zoneName": "durations.example"})
    frozen.clock.advance(10)
    assert api.operation(create)["isSuccessful"] is True
    delete = api.start(zone, "delete")
    frozen.clock.advance(1)
    assert api.operation(delete)["isSuccessful"] is True


def test_concurrent_operations_get_422(frozen: EmulatorServer, api: Api, name: str) -> None:
    """deck-api.md 2.2/5.4: a run while another operation is pending or running -> 422 Concurrent operations."""
    s3 = running_s3(api, name)
    first = api.start(s3, "modify", {"maxSizeGbPerUser": "5"})
    second = api.prepare(s3, "modify", {"maxSizeGbPerUser": "6"})
    r = api.run(second)
    assert r.status_code == 422 and "Concurrent operations" in r.json()["ERROR"]
    again = api.run(first)
    assert again.status_code == 422 and "Concurrent operations" in again.json()["ERROR"]
    api.finish(first)
    assert api.run(second).status_code == 200
    api.finish(second)
    rerun = api.run(first)  # a finished operation cannot be run again
    assert rerun.status_code == 500 and "orchestrator" in rerun.json()["ERROR"]
    assert api.instance(s3)["state"]["params"]["maxSizeGbPerUser"] == 6


def test_params_cannot_change_after_run(api: Api, name: str) -> None:
    s3 = running_s3(api, name)
    op = api.start(s3, "modify", {"maxSizeGbPerUser": "5"})
    r = api.set_param(op, 50, "7")
    assert r.status_code == 422 and "submitted" in r.json()["ERROR"]


def test_postgres_lifecycle_with_subresources(api: Api, emu: EmulatorServer, name: str) -> None:
    """P12/P13 data: postgres create, modify, users and databases on the parent, suspend/resume, delete."""
    pg = running_postgres(api, name)
    inst = api.instance(pg)
    state = inst["state"]
    assert inst["explainedStatus"] == "running" and inst["resourceRealm"] == "k8s-3.ext.nubes.ru"
    assert state["params"]["resourceCPU"] == 500 and state["params"]["appVersion"] == "16"
    assert state["params"]["allowNoSSL"] is False and state["params"]["tlsSettings"] == {}
    assert state["out"]["adminUser"] == "postgres" and len(state["out"]["adminPass"]) == 24
    assert state["out"]["internalConnect"]["master"].endswith(".k8s-3.ext.nubes.ru:5432")
    assert state["out"]["externalConnect"]["master"]["fqdn"].endswith(".ext.nubes.ru")
    assert state["out"]["vault"]["url"].endswith(pg) and state["vault"]["url"] == state["out"]["vault"]["url"]
    assert state["subresources"] == {"user": [], "database": []}
    assert names(inst) == {
        "modify", "delete", "suspend", "create_user", "modify_user", "delete_user", "create_database",
        "modify_database", "delete_database", "restart", "recovery", "reconcile",
    }  # fmt: skip

    api.complete(pg, "modify", {"resourceCPU": "1000", "tlsSettings": '{"type": "self-signed", "durationCA": 8760}'})
    params = api.instance(pg)["state"]["params"]
    assert params["resourceCPU"] == 1000 and params["appVersion"] == "16"
    assert params["tlsSettings"] == {"type": "self-signed", "durationCA": 8760}

    user_op = api.complete(pg, "create_user", {"username": "app", "password": "S3cret!pass", "role": "readonly"})
    users = api.instance(pg)["state"]["subresources"]["user"]
    assert users == [{"username": "app", "role": "readonly", "connectionLimit": -1}]
    assert all(p["paramValue"] != "S3cret!pass" for p in user_op["cfsParams"])
    logged = [e for e in emu.requests() if e["path"] == "/instanceOperationCfsParams" and e["method"] == "POST"]
    assert "S3cret!pass" not in json.dumps(logged) and any(e["body"]["paramValue"] == "***" for e in logged)

    api.complete(pg, "modify_user", {"username": "app", "connectionLimit": "20"})
    assert api.instance(pg)["state"]["subresources"]["user"][0]["connectionLimit"] == 20
    api.complete(pg, "create_database", {"dbName": "appdb", "owner": "app", "extensions": '["pg_trgm"]'})
    dbs = api.instance(pg)["state"]["subresources"]["database"]
    assert dbs == [{"dbName": "appdb", "owner": "app", "encoding": "UTF8", "extensions": ["pg_trgm"]}]
    api.complete(pg, "delete_user", {"username": "app"})
    assert api.instance(pg)["state"]["subresources"]["user"] == []

    api.complete(pg, "restart")
    assert api.instance(pg)["explainedStatus"] == "running"
    api.complete(pg, "suspend")
    inst = api.instance(pg)
    assert inst["explainedStatus"] == "suspended" and names(inst) == {"resume", "delete"}
    api.complete(pg, "resume")
    assert api.instance(pg)["explainedStatus"] == "running"
    api.complete(pg, "delete")
    inst = api.instance(pg)
    assert inst["isDeleted"] is True and inst["explainedStatus"] == "deleted" and names(inst) == set()


def test_subresource_keys_are_unique_per_parent(api: Api, name: str) -> None:
    """uniqueScope parent: a second user with the same name, or changing a missing one, is rejected."""
    pg = running_postgres(api, name)
    api.complete(pg, "create_user", {"username": "dup", "password": "x"})
    op = api.new_operation(pg, "create_user")
    ids = api.param_ids(op)
    r = api.set_param(op, ids["username"], "dup")
    assert r.status_code == 422 and "not unique" in r.json()["ERROR"]
    modify = api.new_operation(pg, "modify_user")
    r = api.set_param(modify, api.param_ids(modify)["username"], "ghost")
    assert r.status_code == 422 and "not found" in r.json()["ERROR"]


def test_rabbitmq_vhosts(api: Api, name: str) -> None:
    mq = api.new_instance(93, name)
    api.complete(mq, "create", RABBITMQ_CREATE)
    api.complete(mq, "create_vhost", {"vhostName": "orders", "maxQueues": "10"})
    api.complete(mq, "modify_vhost", {"vhostName": "orders", "maxConnections": "5"})
    assert api.instance(mq)["state"]["subresources"]["vhost"] == [
        {"vhostName": "orders", "maxConnections": 5, "maxQueues": 10}
    ]
    api.complete(mq, "delete_vhost", {"vhostName": "orders"})
    assert api.instance(mq)["state"]["subresources"]["vhost"] == []


def test_flask_lifecycle_with_redeploy(api: Api, name: str) -> None:
    """P14 data: redeploy records gitRevision; without one it deploys HEAD."""
    app = api.new_instance(89, name)
    api.complete(
        app,
        "create",
        FLASK_CREATE,
    )
    inst = api.instance(app)
    assert inst["state"]["out"]["url"] == "https://myapp.k8s-3.ext.nubes.ru"
    assert {"redeploy", "suspend", "restart"} <= names(inst)
    api.complete(app, "redeploy", {"gitRevision": "abc1234"})
    assert api.instance(app)["state"]["params"]["gitRevision"] == "abc1234"
    api.complete(app, "redeploy")
    assert api.instance(app)["state"]["params"]["gitRevision"] == "HEAD"
    api.complete(
        app,
        "modify",
        {"resourceCPU": "400", "resourceMemory": "512", "resourceInstances": "2", "gitPath": "https://git.example/app.git",
         "jsonEnv": '{"DEBUG": "1"}'},
    )  # fmt: skip
    params = api.instance(app)["state"]["params"]
    assert params["resourceInstances"] == 2 and params["jsonEnv"] == {"DEBUG": "1"}
    api.complete(app, "suspend")
    api.complete(app, "resume")
    api.complete(app, "delete")
    assert api.instance(app)["isDeleted"] is True


def test_s3bucket_references_s3(api: Api, name: str) -> None:
    """refSvcId: the bucket's s3UserUid is an s3 (12) instance; the s3 outputs include a secret key."""
    s3 = running_s3(api, name)
    s3_state = api.instance(s3)["state"]
    assert s3_state["out"]["endpoint"] == "https://s3.nubes.ru" and len(s3_state["out"]["secretKey"]) == 40
    bucket = api.new_instance(13, f"{name}-bucket")
    api.complete(bucket, "create", {"s3UserUid": s3, "bucketName": "data", "maxSize": "-1", "readAll": "false",
                                    "listAll": "false", "corsAll": "true", "placement": "COLD"})  # fmt: skip
    inst = api.instance(bucket)
    assert inst["state"]["params"]["s3UserUid"] == s3 and inst["state"]["params"]["placement"] == "COLD"
    assert inst["state"]["out"]["bucketUrl"] == "https://s3.nubes.ru/data"
    assert names(inst) == {"delete"}  # no modify, not suspendable
    api.complete(bucket, "delete")
    api.complete(s3, "delete")
    assert api.instance(bucket)["isDeleted"] and api.instance(s3)["isDeleted"]


def test_dns_zone_and_records(api: Api, name: str) -> None:
    """DNS 111 (create=45, modify=90, delete=46) pointing at a zone (110); not suspendable."""
    zone = running_zone(api, name, "dns-test.example")
    record = api.new_instance(111, f"{name}-www")
    op = api.new_operation(record, "create", 45)
    default = api.get("/instanceOperations/default/45", fields="cfsParams").json()["svcOperation"]["cfsParams"]
    by_label = {p["label"]: p["svcOperationCfsParamId"] for p in default}
    for label, value in (("UUID Зоны", zone), ("Тип DNS-записи", "CNAME"), ("Имя записи", "www"),
                         ("Значение записи", "target.example."), ("TTL записи (в секундах)", "300")):  # fmt: skip
        assert api.set_param(op, by_label[label], value).status_code == 201
    assert api.run(op).status_code == 200
    api.finish(op)
    inst = api.instance(record)
    assert inst["state"]["out"]["fqdn"] == "www.dns-test.example"
    assert names(inst) == {"modify", "delete"}
    assert {o["svcOperationId"] for o in inst["availableOperations"]} == {90, 46}
    api.complete(record, "modify", {"recordInput": "other.example."})
    assert api.instance(record)["state"]["params"]["recordInput"] == "other.example."

    twin = api.new_instance(111, f"{name}-www2")
    op2 = api.prepare(twin, "create", {"zoneUid": zone, "recordType": "A", "recordInput": "10.0.0.1"})
    r = api.set_param(op2, by_label["Имя записи"], "www")
    assert r.status_code == 422 and "not unique" in r.json()["ERROR"]
    other_zone = running_zone(api, f"{name}-2", "dns-other.example")
    assert api.set_param(op2, by_label["UUID Зоны"], other_zone).status_code == 201
    assert api.set_param(op2, by_label["Имя записи"], "www").status_code == 201


def test_delete_produces_failed_follow_up(api: Api, name: str) -> None:
    """deck-api.md 5.4: every delete produces a follow-up operation finishing isSuccessful:false, `Услуга удалена`."""
    zone = running_zone(api, name, "followup.example")
    op = api.prepare(zone, "delete", {})
    run = api.run(op)
    assert run.status_code == 200
    child = uid_from(run)  # /run of a delete answers the follow-up's Location (CM-old followed it)
    assert child != op
    delete = api.finish(op)
    assert delete["isSuccessful"] is True
    follow = api.operation(child)
    assert follow["isSuccessful"] is False and "Услуга удалена" in follow["errorLog"]
    assert follow["operation"] == "delete" and follow["updaterLogin"] == "system"
    inst = api.instance(zone)
    assert inst["isDeleted"] is True and inst["lastOperation"] == "delete" and inst["lastOperationUid"] == child
    listed = api.get("/instances", serviceId=110, pageSize=1000).json()["results"]
    assert any(i["instanceUid"] == zone and i["isDeleted"] for i in listed)  # never removed
    r = api.post("/instanceOperations", {"instanceUid": zone, "operation": "create"})
    assert r.status_code == 422


def test_dummy_fails_at_start_and_in_progress(api: Api, name: str) -> None:
    """deck-api.md 3.4 dummy semantics: failAtStart, failInProgress + whereFail; errorLog on failure."""
    base = {"durationMs": "0", "failAtStart": "false", "failInProgress": "false", "resourceRealm": "dummy"}
    first = api.new_instance(1, f"{name}-start")
    op = api.finish(api.start(first, "create", {**base, "failAtStart": "true"}))
    assert op["isSuccessful"] is False and "failAtStart" in op["errorLog"]
    assert [s["isSuccessful"] for s in op["stages"]] == [False]
    inst = api.instance(first)
    assert inst["explainedStatus"] == "failed" and inst["state"] is None and names(inst) == {"create"}

    second = api.new_instance(1, f"{name}-progress")
    op = api.finish(api.start(second, "create", {**base, "failInProgress": "true", "whereFail": "2"}))
    assert [(s["stage"], s["isSuccessful"]) for s in op["stages"]] == [
        ("Подготовка", True),
        ("Заполнение данных", False),
    ]
    assert "Заполнение данных" in op["errorLog"]
    retry = api.complete(second, "create", {**base, "bodymessage": "hello"})
    assert retry["isSuccessful"] is True
    inst = api.instance(second)
    assert inst["explainedStatus"] == "running" and inst["state"]["out"]["message"] == "hello"


def test_dummy_duration_ms(frozen: EmulatorServer, api: Api, name: str) -> None:
    uid = api.new_instance(1, name)
    op = api.start(uid, "create", {"durationMs": "30000", "failAtStart": "false", "failInProgress": "false",
                                   "resourceRealm": "dummy"})  # fmt: skip
    frozen.clock.advance(20)
    assert api.operation(op)["dtFinish"] is None
    frozen.clock.advance(11)
    assert api.operation(op)["isSuccessful"] is True


def test_statuses_while_operations_run(frozen: EmulatorServer, api: Api, name: str) -> None:
    """explainedStatus: creating, running, modifying, suspending, suspended, resuming, deleting, deleted."""
    uid = api.new_instance(91, name)
    seen = []
    for operation in ("create", "suspend", "resume", "delete"):
        op = api.start(uid, operation, REDIS_CREATE if operation == "create" else None)
        seen.append(api.instance(uid)["explainedStatus"])
        frozen.clock.advance(60)
        api.operation(op)
        seen.append(api.instance(uid)["explainedStatus"])
    assert seen == ["creating", "running", "suspending", "suspended", "resuming", "running", "deleting", "deleted"]
