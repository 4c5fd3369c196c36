"""Every fault kind of emulator-contract.md, matched by path/method, by count or probability, seeded."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import PLAIN, Api, uid_from
from tests.emulator.tests.helpers import REDIS_CREATE, running_s3, running_zone


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_http_status_faults(emu: EmulatorServer, api: Api, status: int) -> None:
    """P34 data: 429 (with Retry-After), 500, 502, 503, 504 for a count, then normal answers."""
    emu.set_faults([{"kind": "http", "status": status, "path": "/services/*", "method": "GET", "count": 2}])
    first, second, third = (api.get("/services/1") for _index in range(3))
    assert first.status_code == second.status_code == status
    assert third.status_code == 200
    if status == 429:
        assert first.headers["Retry-After"] == "1"
    assert [e["fault"] for e in emu.requests()] == ["http", "http", None]
    assert [e["status"] for e in emu.requests()] == [status, status, 200]
    assert emu.faults()[0]["fired"] == 2 and emu.faults()[0]["seen"] == 3


def test_http_fault_custom_body_and_retry_after(emu: EmulatorServer, api: Api) -> None:
    emu.set_faults([{"kind": "http", "status": 429, "retry_after": 7, "body": {"message": "slow down"}}])
    r = api.get("/services/1")
    assert r.status_code == 429 and r.headers["Retry-After"] == "7" and r.json() == {"message": "slow down"}


def test_transient_401_for_a_valid_token(emu: EmulatorServer, api: Api) -> None:
    """P32/P33 data: the gateway answers 401 to a valid token a few times, then succeeds."""
    emu.set_faults([{"kind": "unauthorized", "path": "/instances*", "count": 2}])
    statuses = [api.get("/instances").status_code for _index in range(3)]
    assert statuses == [401, 401, 200]
    assert api.get("/services/1").status_code == 200  # other paths are untouched


def test_connection_reset(emu: EmulatorServer, api: Api) -> None:
    emu.set_faults([{"kind": "reset", "path": "/services/12", "count": 1}])
    with pytest.raises(httpx.TransportError):
        PLAIN.get(emu.endpoint + "/services/12", headers={"Authorization": f"Bearer {emu.token}"})
    assert api.get("/services/12").status_code == 200
    assert emu.requests()[0]["status"] == 0 and emu.requests()[0]["fault"] == "reset"


def test_latency(emu: EmulatorServer, api: Api) -> None:
    """Latency delays the answer (asserted from the log's own duration, not a wall-clock bound on the test)."""
    emu.set_faults([{"kind": "latency", "ms": 150, "path": "/services/*", "count": 1}])
    assert api.get("/services/1").status_code == 200
    api.get("/services/1")
    slow, fast = emu.requests()
    assert slow["fault"] == "latency" and slow["ms"] >= 150
    assert fast["fault"] is None


def test_method_filter(emu: EmulatorServer, api: Api, name: str) -> None:
    emu.set_faults([{"kind": "http", "status": 503, "path": "/instances", "method": "POST"}])
    assert api.get("/instances").status_code == 200
    assert api.post("/instances", {"serviceId": 1, "displayName": name}).status_code == 503


def test_form_filter(emu: EmulatorServer) -> None:
    emu.set_faults([{"kind": "http", "status": 502, "form": "legacy"}])
    assert Api(emu, "gateway").get("/services/1").status_code == 200
    assert Api(emu, "pathinfo").get("/services/1").status_code == 200
    assert Api(emu, "legacy").get("/services/1").status_code == 502


def test_skip_lets_first_requests_through(emu: EmulatorServer, api: Api) -> None:
    emu.set_faults([{"kind": "http", "status": 500, "path": "/services/*", "skip": 2, "count": 1}])
    assert [api.get("/services/1").status_code for _index in range(4)] == [200, 200, 500, 200]


def _pattern(emu: EmulatorServer, api: Api, seed: int) -> list[int]:
    emu.set_faults([{"kind": "http", "status": 503, "path": "/services/*", "probability": 0.5}], seed=seed)
    return [api.get("/services/1").status_code for _index in range(30)]


def test_probability_is_reproducible_with_a_seed(emu: EmulatorServer, api: Api) -> None:
    first = _pattern(emu, api, 42)
    again = _pattern(emu, api, 42)
    other = _pattern(emu, api, 7)
    assert first == again
    assert first != other
    assert 0 < first.count(503) < 30


def test_commit_http_fault_on_run_still_queues_the_job(emu: EmulatorServer, api: Api, name: str) -> None:
    """A 504 from the gateway after the backend accepted the run: the operation runs all the same."""
    zone = api.new_instance(110, name)
    op = api.prepare(zone, "create", {"zoneName": "commit.example"})
    emu.set_faults([{"kind": "http", "status": 504, "path": "/instanceOperations/*/run", "commit": True, "count": 1}])
    assert api.run(op).status_code == 504
    assert api.operation(op)["dtSubmit"] is not None
    assert api.finish(op)["isSuccessful"] is True


def test_concurrent_operations_fault(emu: EmulatorServer, api: Api, name: str) -> None:
    """422 Concurrent operations on run; by default the job is not queued, so a retry runs it."""
    zone = api.new_instance(110, name)
    op = api.prepare(zone, "create", {"zoneName": "conc.example"})
    emu.set_faults([{"kind": "concurrent", "count": 1}])
    r = api.run(op)
    assert r.status_code == 422 and "Concurrent operations" in r.json()["ERROR"]
    assert api.operation(op)["dtSubmit"] is None
    assert api.run(op).status_code == 200


def test_executable_fault_queues_the_job(emu: EmulatorServer, api: Api, name: str) -> None:
    """deck-api.md 5.4: /run 500 `key [EXECUTABLE] doesn't exist` while the job is still queued."""
    zone = api.new_instance(110, name)
    op = api.prepare(zone, "create", {"zoneName": "exec.example"})
    emu.set_faults([{"kind": "executable", "count": 1}])
    r = api.run(op)
    assert r.status_code == 500 and "key [EXECUTABLE] doesn't exist" in r.json()["ERROR"]
    assert api.operation(op)["isPending"] or api.operation(op)["dtStart"]
    assert api.finish(op)["isSuccessful"] is True


@pytest.mark.parametrize(("stage", "expected"), [("Создание ресурсов", 2), (3, 3), (None, 4)])
def test_fail_at_named_stage(emu: EmulatorServer, api: Api, name: str, stage: Any, expected: int) -> None:
    """Operation failure at a named stage: errorLog, isSuccessful false, the stage marked failed."""
    rule: dict[str, Any] = {"kind": "fail_stage", "operation": "create", "service": "dnszone", "error": "Jenkins упал"}
    if stage is not None:
        rule["stage"] = stage
    emu.set_faults([rule])
    zone = api.new_instance(110, name)
    op = api.finish(api.start(zone, "create", {"zoneName": "fail.example"}))
    assert op["isSuccessful"] is False and "Jenkins упал" in op["errorLog"]
    assert len(op["stages"]) == expected
    assert [s["isSuccessful"] for s in op["stages"]] == [True] * (expected - 1) + [False]
    assert op["stages"][-1]["stage"] in op["errorLog"]
    inst = api.instance(zone)
    assert inst["explainedStatus"] == "failed" and inst["state"] is None


def test_fail_stage_filters_by_operation(emu: EmulatorServer, api: Api, name: str) -> None:
    s3 = running_s3(api, name)
    emu.set_faults([{"kind": "fail_stage", "operation": "delete"}])
    assert api.complete(s3, "modify", {"maxSizeGbPerUser": "3"})["isSuccessful"] is True
    op = api.finish(api.start(s3, "delete"))
    assert op["isSuccessful"] is False
    inst = api.instance(s3)
    assert inst["isDeleted"] is False and inst["explainedStatus"] == "running"  # a failed delete leaves it running


def test_display_name_uniqueness_per_service(emu: EmulatorServer, api: Api, name: str) -> None:
    """deck-api.md 2.1/5.4: DNS zones (110) and records (111) answer 400 `... not unique` to a reused display name,
    as both live-tested DNS clients rely on; other services allow duplicates (the seed; no evidence)."""
    for sid in (110, 111):
        api.new_instance(sid, name)
        r = api.post("/instances", {"serviceId": sid, "displayName": name, "descr": ""})
        assert r.status_code == 400 and r.json()["ERROR"].endswith("not unique for service " + str(sid)), r.text
    api.new_instance(1, name)
    api.new_instance(1, name)  # no uniqueness without evidence
    assert sum(1 for i in emu.instances() if i["displayName"] == name) == 4  # nothing was created by the 400s


def test_display_name_uniqueness_switch(emu: EmulatorServer, api: Api, name: str) -> None:
    """The switch forces uniqueness on for every service (True) or off for all (False); None is per service."""
    emu.configure(unique_display_names=True)
    api.new_instance(1, name)
    r = api.post("/instances", {"serviceId": 1, "displayName": name})
    assert r.status_code == 400 and "not unique" in r.json()["ERROR"]
    assert api.post("/instances", {"serviceId": 12, "displayName": name}).status_code == 201  # per service
    emu.configure(unique_display_names=False)
    api.new_instance(110, name)
    assert api.post("/instances", {"serviceId": 110, "displayName": name}).status_code == 201
    emu.configure(unique_display_names=None)
    assert api.post("/instances", {"serviceId": 110, "displayName": name}).status_code == 400


def test_deleted_instances_keep_their_names(emu: EmulatorServer, api: Api, name: str) -> None:
    """ED: deleted instances keep their display names: a DNS zone's name stays taken after its delete, and a
    create operation on the deleted instance itself answers 422 (no operation is available on it)."""
    zone = running_zone(api, name)
    api.complete(zone, "delete")
    r = api.post("/instances", {"serviceId": 110, "displayName": f"{name}-zone"})
    assert r.status_code == 400 and "not unique" in r.json()["ERROR"]
    r = api.post("/instanceOperations", {"instanceUid": zone, "operation": "create"})
    assert r.status_code == 422 and "not available" in r.json()["ERROR"], r.text
    assert api.instance(zone)["availableOperations"] == []
    # where uniqueness is off, the `not_unique` fault answers as the live API would, deleted names included
    dummy = api.new_instance(1, name)
    api.complete(
        dummy,
        "create",
        {"resourceRealm": "dummy", "durationMs": "0", "failAtStart": "false", "failInProgress": "false"},
    )
    api.complete(dummy, "delete")
    emu.set_faults([{"kind": "not_unique", "count": 1}])
    r = api.post("/instances", {"serviceId": 1, "displayName": name})
    assert r.status_code == 400 and "not unique" in r.json()["ERROR"]
    assert api.post("/instances", {"serviceId": 1, "displayName": name}).status_code == 201


def test_raw_localised_statuses(emu: EmulatorServer, api: Api, name: str) -> None:
    """explainedStatus raw variants: Running / Active / Приостановлена."""
    uid = api.new_instance(91, name)
    api.complete(uid, "create", REDIS_CREATE)
    emu.set_faults([{"kind": "raw_status"}])
    assert api.instance(uid)["explainedStatus"] == "Running"
    api.complete(uid, "suspend")
    assert api.instance(uid)["explainedStatus"] == "Приостановлена"
    listed = api.get("/instances", serviceId=91, pageSize=1000).json()["results"]
    assert next(i for i in listed if i["instanceUid"] == uid)["explainedStatus"] == "Приостановлена"
    emu.set_faults([{"kind": "raw_status", "map": {"suspended": "Suspended", "running": "Active"}}])
    api.complete(uid, "resume")
    assert api.instance(uid)["explainedStatus"] == "Active"


def test_bad_rules_are_rejected(emu: EmulatorServer) -> None:
    for rule in ({"kind": "boom"}, {"kind": "http"}, {"kind": "http", "status": 200}, {"kind": "latency", "oops": 1},
                 {"kind": "http", "status": 500, "probability": 2}):  # fmt: skip
        with pytest.raises(ValueError):
            emu.set_faults([rule])


def test_admin_api_for_faults(emu: EmulatorServer, api: Api) -> None:
    admin = emu.admin_url
    r = PLAIN.put(f"{admin}/faults", json={"seed": 3, "rules": [{"kind": "http", "status": 503, "count": 1}]})
    assert r.status_code == 200 and r.json()["rules"][0]["status"] == 503
    PLAIN.post(f"{admin}/faults", json={"kind": "http", "status": 502, "count": 1})
    assert [rule["status"] for rule in PLAIN.get(f"{admin}/faults").json()["rules"]] == [503, 502]
    assert [api.get("/services/1").status_code for _index in range(3)] == [503, 502, 200]
    assert PLAIN.delete(f"{admin}/faults").json() == {"rules": []}
    bad = PLAIN.post(f"{admin}/faults", json={"kind": "nope"})
    assert bad.status_code == 400 and "kind must be one of" in bad.json()["error"]


def test_faults_from_start_up_options() -> None:
    rules = [{"kind": "http", "status": 503, "path": "/services/*", "count": 1}]
    with EmulatorServer(seed=5, faults=rules) as emu:
        client = Api(emu)
        assert [client.get("/services/1").status_code for _index in range(2)] == [503, 200]
        client.close()


@pytest.mark.parametrize("status", [None, 400])
def test_operation_exists_conflict_carries_location(emu: EmulatorServer, api: Api, name: str, status: Any) -> None:
    """deck-api.md 2.2/5.4: 409 (or 400) + Location of the existing operation; the client reuses it."""
    zone = api.new_instance(110, name)
    first = api.new_operation(zone, "create")
    rule: dict[str, Any] = {"kind": "operation_exists", "count": 1}
    if status:
        rule["status"] = status
    emu.set_faults([rule])
    r = api.post("/instanceOperations", {"instanceUid": zone, "operation": "create"})
    assert r.status_code == (status or 409)
    assert uid_from(r) == first
    assert api.new_operation(zone, "create") != first  # the rule fired once


def test_operation_exists_only_fires_on_a_real_conflict(emu: EmulatorServer, api: Api, name: str) -> None:
    emu.set_faults([{"kind": "operation_exists"}])
    zone = api.new_instance(110, name)
    assert api.post("/instanceOperations", {"instanceUid": zone, "operation": "create"}).status_code == 201
    assert emu.faults()[0]["fired"] == 0


def test_cold_start_stall_keeps_the_operation_pending(frozen: EmulatorServer, api: Api, name: str) -> None:
    """deck-api.md 5.4 cold-start stalls: the job stays queued (isPending, no dtStart) for a while."""
    frozen.configure(op_duration=10)
    frozen.set_faults([{"kind": "stall", "ms": 60000, "count": 1}])
    zone = api.new_instance(110, name)
    op = api.start(zone, "create", {"zoneName": "stall.example"})
    frozen.clock.advance(50)
    body = api.operation(op)
    assert body["isPending"] is True and body["dtStart"] is None and body["stages"] == []
    assert api.instance(zone)["operationIsPending"] is True
    frozen.clock.advance(20)
    assert api.operation(op)["isSuccessful"] is True
