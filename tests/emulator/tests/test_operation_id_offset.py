"""The operation-id offset mode: every svcOperationId the emulator serves and accepts is the catalogue's plus N.

No public source knows the real svcOperationIds (only DNS create 45 / delete 46), so clients must read them
at run time; this mode makes a client that trusts a spec's id fail with a clear 4xx.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.emulator.catalogue import Catalogue, CatalogueError
from tests.emulator.server import EmulatorServer
from tests.emulator.settings import OPERATION_ID_OFFSET_ENV, operation_id_offset_from_env
from tests.emulator.tests.api import PLAIN, Api

REPO = Path(__file__).resolve().parents[3]
OFFSET = 100_000
PLAIN_IDS = {o["operation"]: o["svcOperationId"] for o in Catalogue.load().services[110]["operations"]}


@pytest.fixture(scope="module")
def shifted() -> Iterator[EmulatorServer]:
    with EmulatorServer(seed=2, op_duration=0.2, operation_id_offset=OFFSET) as server:
        yield server


@pytest.fixture
def client(shifted: EmulatorServer) -> Iterator[Api]:
    api = Api(shifted)
    yield api
    api.close()


def test_catalogue_serves_shifted_operation_ids(shifted: EmulatorServer, client: Api) -> None:
    """GET /services/{id}, /serviceOperation/{id} and /instanceOperations/default/{id} use the shifted ids."""
    assert shifted.operation_id_offset == OFFSET
    served = {o["operation"]: o["svcOperationId"] for o in client.get("/services/110").json()["svc"]["operations"]}
    assert served == {name: oid + OFFSET for name, oid in PLAIN_IDS.items()}
    dns = {o["operation"]: o["svcOperationId"] for o in client.get("/services/111").json()["svc"]["operations"]}
    assert dns["create"] == 45 + OFFSET and dns["delete"] == 46 + OFFSET
    create = PLAIN_IDS["create"]
    assert client.get(f"/serviceOperation/{create + OFFSET}").json()["svcOperation"]["operation"] == "create"
    assert client.get(f"/serviceOperation/{create}").status_code == 404
    default = client.get(f"/instanceOperations/default/{create + OFFSET}").json()["svcOperation"]
    assert default["svcOperationId"] == create + OFFSET and default["cfsParams"]
    assert client.get(f"/instanceOperations/default/{create}").status_code == 404


def test_instance_operations_use_shifted_ids(shifted: EmulatorServer, client: Api) -> None:
    """availableOperations and the operation carry shifted ids; POST accepts the shifted id and the name alone."""
    uid = client.new_instance(110, "offset-zone")
    available = client.instance(uid)["availableOperations"]
    assert available == [{"svcOperationId": PLAIN_IDS["create"] + OFFSET, "operation": "create"}]
    op = client.new_operation(uid, "create", PLAIN_IDS["create"] + OFFSET)
    assert client.operation(op)["svcOperationId"] == PLAIN_IDS["create"] + OFFSET
    by_name = client.new_operation(uid, "create")
    assert client.operation(by_name)["svcOperationId"] == PLAIN_IDS["create"] + OFFSET
    client.complete(uid, "create", {"zoneName": "offset.example"})
    ids = {o["operation"]: o["svcOperationId"] for o in client.instance(uid)["availableOperations"]}
    assert ids["delete"] == PLAIN_IDS["delete"] + OFFSET
    # the emulator's admin view agrees with the API
    assert {o["svcOperationId"] for o in shifted.operations() if o["instanceUid"] == uid} == {
        PLAIN_IDS["create"] + OFFSET
    }


def test_a_spec_operation_id_gets_a_clear_4xx(client: Api) -> None:
    """A client that sends the id the specs were generated with gets 400 naming the id and the service."""
    uid = client.new_instance(110, "offset-stale-id")
    r = client.post("/instanceOperations", {"instanceUid": uid, "operation": "create", "svcOperationId": 11001})
    assert r.status_code == 400
    assert "11001" in r.json()["ERROR"] and "service 110" in r.json()["ERROR"]
    assert client.get("/serviceOperation/45").status_code == 404


def test_offset_from_the_environment() -> None:
    assert operation_id_offset_from_env({}) == 0
    assert operation_id_offset_from_env({OPERATION_ID_OFFSET_ENV: " 500 "}) == 500
    for bad in ("-1", "ten"):
        with pytest.raises(ValueError, match=OPERATION_ID_OFFSET_ENV):
            operation_id_offset_from_env({OPERATION_ID_OFFSET_ENV: bad})
    with pytest.raises(CatalogueError):
        Catalogue.load(operation_id_offset=-5)


def test_state_file_keeps_operations_across_offsets(tmp_path: Path) -> None:
    """A state file written with one offset, loaded with another: stored operations follow the new ids."""
    state = tmp_path / "state.json"
    with EmulatorServer(seed=3, state_file=state, operation_id_offset=10) as first:
        api = Api(first)
        uid = api.new_instance(110, "offset-durable")
        api.complete(uid, "create", {"zoneName": "durable.example"})
        api.close()
    assert json.loads(state.read_text())["operation_id_offset"] == 10
    with EmulatorServer(seed=3, state_file=state, operation_id_offset=0) as second:
        assert {o["svcOperationId"] for o in second.operations()} == {PLAIN_IDS["create"]}


def test_cli_flag_and_environment_variable(tmp_path: Path) -> None:
    """`serve --operation-id-offset N` wins over $NUBES_EMULATOR_OPERATION_ID_OFFSET, which applies otherwise."""
    for args, env_value, expected in ((["--operation-id-offset", "7"], "3", 7), ([], "3", 3)):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.emulator", "serve", *args],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", OPERATION_ID_OFFSET_ENV: env_value},
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            endpoint = proc.stdout.readline().strip().split("=", 1)[1]
            token = proc.stdout.readline().strip().split("=", 1)[1]
            body = PLAIN.get(endpoint + "/services/111", headers={"Authorization": f"Bearer {token}"}).json()
            assert {o["svcOperationId"] for o in body["svc"]["operations"]} == {
                45 + expected,
                46 + expected,
                90 + expected,
            }
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
        assert proc.returncode == 0
