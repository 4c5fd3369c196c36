"""Playbook-level proofs that the modules carry the live catalogue's facts (issue 14): params the live API
requires without a default must be given (an argument error before any write, never a zero value sent), live
defaults are what a create sends, and DNS display names are unique as the live API keeps them.

Each test reads what the emulator received (its request log) or holds (its admin view), not the module's result.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, write_calls

REALM = "k8s-3.ext.nubes.ru"
# ../shared/reference/live-catalogue/service_90.yaml, create param 311 (the default text, spaces included)
LIVE_JSON_PARAMETERS_DEFAULT = '{ "log_connections": "off", "log_disconnections": "off" }'
pytestmark = pytest.mark.slow


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def param_id(emu: EmulatorServer, service_id: int, operation: str, code: str) -> int:
    """The param id the emulator serves for (service, operation, code), read through its catalogue API."""
    svc = emu.app.engine.service(str(service_id)).body["svc"]
    op_id = next(o["svcOperationId"] for o in svc["operations"] if o["operation"] == operation)
    params = emu.app.engine.service_operation(str(op_id)).body["svcOperation"]["cfsParams"]
    return int(next(p["svcOperationCfsParamId"] for p in params if p["svcOperationCfsParam"] == code))


def sent_params(requests: list[dict[str, Any]]) -> dict[int, str]:
    """svcOperationCfsParamId -> paramValue of every param value a client posted, from the request log."""
    return {
        int(r["body"]["svcOperationCfsParamId"]): r["body"]["paramValue"]
        for r in requests
        if r["method"] == "POST" and r["path"] == "/instanceOperationCfsParams" and r["status"] < 300
    }


def test_kafka_without_resource_options_is_an_argument_error(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P35 (no zero value for a required param): live kafka requires resourceInstances/Memory/CPU/Disk with no
    default: leaving them out fails with a message naming each, before any write (no instance, no operation, no
    zero value sent); deleting does not ask for them."""
    name = unique("it-kafka")
    seq = emu.last_seq
    create, absent = playbook.run(
        [
            {"name": "create bare", "nubes.cloud.kafka": {"resource_name": name, "resource_realm": REALM}},
            {"name": "absent bare", "nubes.cloud.kafka": {"resource_name": name, "state": "absent"}},
        ]
    )
    planned = playbook.one("kafka", {"resource_name": name, "resource_realm": REALM}, check=True)
    for result in (create, planned):
        assert result.get("failed"), result
        for option in ("resource_cpu", "resource_disk", "resource_instances", "resource_memory"):
            assert option in result["msg"], result["msg"]
    assert not absent.get("failed") and absent["changed"] is False, absent
    assert write_calls(emu.requests(since=seq)) == []
    assert not [i for i in emu.instances() if i["displayName"] == name]


def test_kafka_with_resource_options_is_created(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """The same task with the four resource options creates it, sending exactly those values."""
    name = unique("it-kafka")
    task = {"resource_name": name, "resource_realm": REALM, "resource_instances": 1, "resource_memory": 2048,
            "resource_cpu": 1000, "resource_disk": 20}  # fmt: skip
    seq = emu.last_seq
    created = playbook.one("kafka", task)
    assert not created.get("failed"), created.get("msg")
    sent = sent_params(emu.requests(since=seq))
    expected = {"resourceInstances": "1", "resourceMemory": "2048", "resourceCPU": "1000", "resourceDisk": "20"}
    assert {code: sent[param_id(emu, 116, "create", code)] for code in expected} == expected
    stored = next(i for i in emu.instances() if i["displayName"] == name)
    assert stored["explainedStatus"] == "running" and stored["state"]["params"]["resourceDisk"] == 20


def test_postgres_create_sends_the_live_json_parameters_default(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P35 (task value, else the API default): a postgres create without json_parameters sends the live default
    text of jsonParameters (311)."""
    s3 = unique("it-s3")
    ok_s3 = playbook.one("s3", {"resource_name": s3, "display_name": s3, "resource_realm": REALM})
    assert not ok_s3.get("failed"), ok_s3.get("msg")
    name = unique("it-pg")
    seq = emu.last_seq
    created = playbook.one(
        "postgres", {"resource_name": name, "s3_uid": ok_s3["instance_uid"], "resource_realm": REALM}
    )
    assert not created.get("failed"), created.get("msg")
    pid = param_id(emu, 90, "create", "jsonParameters")
    served_default = emu.app.catalogue.params[pid]["defaultValue"]
    assert served_default == LIVE_JSON_PARAMETERS_DEFAULT
    assert sent_params(emu.requests(since=seq))[pid] == LIVE_JSON_PARAMETERS_DEFAULT
    stored = next(i for i in emu.instances() if i["displayName"] == name)
    assert stored["state"]["params"]["jsonParameters"] == json.loads(LIVE_JSON_PARAMETERS_DEFAULT)


def test_reused_dns_record_name_is_refused_or_adopted(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path
) -> None:
    """P28/P24: DNS display names are unique (400 `not unique` live): a second playbook (its own state) that reuses a
    record's name gets a clear error naming the existing instance, no duplicate; with adopt_existing_on_create
    it adopts that record."""
    zone, record = unique("it-zone"), unique("it-rec")
    assert not playbook.one("dns_zone", {"resource_name": zone, "zone_name": f"{zone}.example.test"}).get("failed")
    rec = {"resource_name": record, "zone_uid": zone, "record_name": "api", "record_input": "192.0.2.8"}
    first = playbook.one("dns_record", rec)
    assert not first.get("failed"), first.get("msg")
    other = PlaybookRunner(tmp_path / "other", playbook.endpoint, playbook.token)
    other.workdir.mkdir()
    seq = emu.last_seq
    refused = other.one("dns_record", rec)
    assert refused.get("failed") and first["instance_uid"].lower() in refused["msg"].lower(), refused
    assert "adopt_existing_on_create" in refused["msg"]
    assert write_calls(emu.requests(since=seq)) == []
    adopted = other.one("dns_record", {**rec, "adopt_existing_on_create": True})
    assert not adopted.get("failed") and adopted["instance_uid"].lower() == first["instance_uid"].lower(), adopted
    assert len([i for i in emu.instances() if i["displayName"] == record]) == 1
