"""The request log, the admin API, durable state and the `serve` command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import PLAIN, Api, uid_from
from tests.emulator.tests.helpers import running_postgres

REPO = Path(__file__).resolve().parents[3]


def test_request_log_entries(emu: EmulatorServer, api: Api, name: str) -> None:
    """Log entries: seq, method, normalised path (any URL form), query, status, ms, body."""
    uid = Api(emu, "legacy").new_instance(1, name)
    Api(emu, "pathinfo").get(f"/instances/{uid}", fields="instanceUid")
    api.get("/nothing")
    entries = emu.requests()
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("POST", "/instances", 201),
        ("GET", f"/instances/{uid}", 200),
        ("GET", "/nothing", 404),
    ]
    assert entries[0]["body"] == {"serviceId": 1, "displayName": name, "descr": ""}
    assert entries[1]["query"] == {"fields": "instanceUid"}
    assert [e["seq"] for e in entries] == sorted(e["seq"] for e in entries)
    assert all(isinstance(e["ms"], float) for e in entries)
    assert emu.requests(since=entries[1]["seq"]) == [entries[2]]


def test_request_log_redacts_secrets(emu: EmulatorServer, api: Api, name: str) -> None:
    uid = api.new_instance(96, name)
    op = api.new_operation(uid, "create")
    ids = api.param_ids(op)
    api.set_param(op, ids["password"], "Very$ecret1")
    api.post("/instances", {"serviceId": 1, "displayName": f"{name}-2", "password": "p4ss", "apiToken": "t0k"})
    text = json.dumps(emu.requests())
    assert "Very$ecret1" not in text and "p4ss" not in text and "t0k" not in text
    assert emu.requests()[-1]["body"]["password"] == "***"


def test_admin_requests_endpoint(emu: EmulatorServer, api: Api) -> None:
    api.get("/services/1")
    api.get("/services/12")
    data = PLAIN.get(f"{emu.admin_url}/requests").json()
    assert [e["path"] for e in data["requests"]] == ["/services/1", "/services/12"]
    since = data["requests"][0]["seq"]
    assert [e["path"] for e in PLAIN.get(f"{emu.admin_url}/requests", params={"since": since}).json()["requests"]] == [
        "/services/12"
    ]
    PLAIN.delete(f"{emu.admin_url}/requests")
    assert PLAIN.get(f"{emu.admin_url}/requests").json()["requests"] == []


def test_admin_settings_instances_clock_token(emu: EmulatorServer, api: Api, name: str) -> None:
    admin = emu.admin_url
    assert PLAIN.get(f"{admin}/health").json() == {"ok": True}
    settings = PLAIN.patch(f"{admin}/settings", json={"durations": {"dnszone.create": 30}}).json()
    assert settings["durations"] == {"dnszone.create": 30.0} and settings["op_duration"] == 0.2
    assert PLAIN.patch(f"{admin}/settings", json={"nope": 1}).status_code == 400
    clock = PLAIN.post(f"{admin}/clock", json={"freeze": True}).json()
    assert clock["frozen"] is True
    zone = api.new_instance(110, name)
    op = api.start(zone, "create", {"zoneName": "admin.example"})
    assert api.operation(op)["dtFinish"] is None
    after = PLAIN.post(f"{admin}/clock", json={"advance": 31}).json()
    assert after["now"] >= clock["now"] + 31
    assert api.operation(op)["isSuccessful"] is True
    PLAIN.post(f"{admin}/clock", json={"freeze": False})
    everything = PLAIN.get(f"{admin}/instances").json()["results"]
    assert any(i["instanceUid"] == zone and i["explainedStatus"] == "running" for i in everything)
    assert any(o["instanceOperationUid"] == op for o in PLAIN.get(f"{admin}/operations").json()["results"])
    token = PLAIN.post(f"{admin}/token", json={"ttl": 60}).json()["token"]
    assert PLAIN.get(emu.endpoint + "/services/1", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert PLAIN.get(f"{admin}/nothing").status_code == 404


def test_instances_helper_includes_deleted(emu: EmulatorServer, api: Api, name: str) -> None:
    zone = api.new_instance(110, name)
    api.complete(zone, "create", {"zoneName": "helper.example"})
    api.complete(zone, "delete")
    found = [i for i in emu.instances() if i["instanceUid"] == zone]
    assert found and found[0]["isDeleted"] is True


def test_admin_reset_on_a_private_server() -> None:
    with EmulatorServer() as server:
        client = Api(server)
        client.new_instance(1, "to-be-forgotten")
        assert PLAIN.post(f"{server.admin_url}/reset").json() == {"ok": True}
        assert server.instances() == [] and server.requests() == []
        client.close()


def test_state_survives_a_restart_mid_operation(tmp_path: Path) -> None:
    """Durable state: instances and a running operation survive a restart; the file is replaced atomically."""
    state = tmp_path / "emulator-state.json"
    key = "restart-signing-key-0123456789abcdef"
    with EmulatorServer(seed=9, key=key, op_duration=2, state_file=state) as first:
        client = Api(first)
        zone = client.new_instance(110, "durable")
        op = client.start(zone, "create", {"zoneName": "durable.example"})
        client.close()
    assert json.loads(state.read_text())["version"] == 1
    assert [p.name for p in tmp_path.iterdir()] == [state.name]  # no temp files left behind
    with EmulatorServer(seed=9, key=key, op_duration=2, state_file=state) as second:
        client = Api(second)
        assert client.instance(zone)["displayName"] == "durable"
        finished = client.finish(op)
        assert finished["isSuccessful"] is True
        assert client.instance(zone)["explainedStatus"] == "running"
        other = client.new_instance(110, "second")
        assert other != zone
        client.close()
    with EmulatorServer(key=key, state_file=state) as third:
        assert {i["displayName"] for i in third.instances()} == {"durable", "second"}


def test_broken_state_file_is_reported(tmp_path: Path) -> None:
    state = tmp_path / "broken.json"
    state.write_text("{nope")
    try:
        EmulatorServer(state_file=state)
    except ValueError as exc:
        assert "not valid JSON" in str(exc) and str(state) in str(exc)
    else:
        raise AssertionError("a broken state file must be refused")


def test_cli_serve_prints_endpoint_and_token_first(tmp_path: Path) -> None:
    """`python -m tests.emulator serve` prints NUBES_API_ENDPOINT and NUBES_API_TOKEN, serves, stops on SIGTERM."""
    faults = tmp_path / "faults.yml"
    faults.write_text("seed: 4\nrules:\n  - {kind: http, status: 503, path: /services/*, count: 1}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.emulator", "serve", "--faults", str(faults), "--op-duration", "0.1",
         "--state", str(tmp_path / "state.json")],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        second = proc.stdout.readline().strip()
        assert first.startswith("NUBES_API_ENDPOINT=http://127.0.0.1:") and first.endswith("/api/v1/svc")
        assert second.startswith("NUBES_API_TOKEN=")
        endpoint, token = first.split("=", 1)[1], second.split("=", 1)[1]
        headers = {"Authorization": f"Bearer {token}"}
        assert PLAIN.get(endpoint + "/services/1", headers=headers).status_code == 503
        r = PLAIN.post(endpoint + "/instances", json={"serviceId": 1, "displayName": "cli"}, headers=headers)
        assert r.status_code == 201 and uid_from(r)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert json.loads((tmp_path / "state.json").read_text())["instances"][0]["display_name"] == "cli"


def test_cli_rejects_a_bad_fault_file(tmp_path: Path) -> None:
    faults = tmp_path / "faults.json"
    faults.write_text('[{"kind": "explode"}]')
    out = subprocess.run(
        [sys.executable, "-m", "tests.emulator", "serve", "--faults", str(faults)],
        cwd=REPO, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert out.returncode != 0 and "kind must be one of" in out.stderr


def test_platform_change_sets_live_params_without_an_operation(emu: EmulatorServer, api: Api, name: str) -> None:
    """The platform's own changes (autoScale growing a PostgreSQL disk): live params change, no operation is
    added, and a param the instance does not have is refused."""
    uid = running_postgres(api, name)

    def live() -> dict:
        return next(i for i in emu.instances() if i["instanceUid"] == uid)["state"]["params"]

    before = len(emu.operations())
    grown = PLAIN.post(f"{emu.admin_url}/instances/{uid}/platform-change", json={"params": {"resourceDisk": 250}})
    assert grown.status_code == 200, grown.text
    assert live()["resourceDisk"] == 250
    assert len(emu.operations()) == before
    unknown = PLAIN.post(f"{emu.admin_url}/instances/{uid}/platform-change", json={"params": {"nope": 1}})
    assert unknown.status_code == 400 and "nope" in unknown.text


def test_platform_change_of_a_subresource_entry(emu: EmulatorServer, api: Api, name: str) -> None:
    """A sub-resource changed by hand (a role altered in the database): the entry's params change, no operation is
    added; an entry or a param the instance does not have is refused (the contract suite's out-of-band case)."""
    uid = running_postgres(api, name)
    api.complete(uid, "create_user", {"username": "app", "password": "S3cret!pass", "role": "readonly"})

    def users() -> list:
        return next(i for i in emu.instances() if i["instanceUid"] == uid)["state"]["subresources"]["user"]

    before = len(emu.operations())
    body = {"subresource": {"name": "user", "key": "app", "params": {"role": "owner"}}}
    changed = PLAIN.post(f"{emu.admin_url}/instances/{uid}/platform-change", json=body)
    assert changed.status_code == 200, changed.text
    assert [u["role"] for u in users() if u["username"] == "app"] == ["owner"]
    assert len(emu.operations()) == before
    body = {"subresource": {"name": "user", "key": "nobody", "params": {"role": "owner"}}}
    missing = PLAIN.post(f"{emu.admin_url}/instances/{uid}/platform-change", json=body)
    assert missing.status_code == 400 and "nobody" in missing.text
    body = {"subresource": {"name": "user", "key": "app", "params": {"nope": 1}}}
    unknown = PLAIN.post(f"{emu.admin_url}/instances/{uid}/platform-change", json=body)
    assert unknown.status_code == 400 and "nope" in unknown.text


def test_grow_disk_grows_as_autoscale_does_and_refuses_what_the_platform_never_does(
    emu: EmulatorServer, api: Api, name: str
) -> None:
    """Issue 23: `grow-disk` grows a live `resourceDisk` while autoScale is on (no operation, nothing in the request
    log); it refuses a shrink, no growth and an instance with autoScale off with 409 and a body that says why, a
    malformed size with 400 and an unknown instance with 404."""
    uid = running_postgres(api, name)

    def live() -> dict:
        return next(i for i in emu.instances() if i["instanceUid"] == uid)["state"]["params"]

    url = f"{emu.admin_url}/instances/{uid}/grow-disk"
    operations, seq, size = len(emu.operations()), emu.last_seq, int(live()["resourceDisk"])
    grown = PLAIN.post(url, json={"gb": size + 5})
    assert grown.status_code == 200, grown.text
    assert live()["resourceDisk"] == size + 5 and grown.json()["state"]["params"]["resourceDisk"] == size + 5
    assert len(emu.operations()) == operations and emu.requests(since=seq) == []
    for gb in (size, size + 5):
        refused = PLAIN.post(url, json={"gb": gb})
        assert refused.status_code == 409 and "only grows a disk" in refused.json()["error"], refused.text
    assert PLAIN.post(url, json={"gb": "ten"}).status_code == 400
    assert PLAIN.post(url, json={"gb": 0}).status_code == 400
    missing = PLAIN.post(f"{emu.admin_url}/instances/00000000-0000-4000-8000-000000000000/grow-disk", json={"gb": 9})
    assert missing.status_code == 404
    emu.platform_change(uid, {"autoScale": False})
    off = PLAIN.post(url, json={"gb": size + 50})
    assert off.status_code == 409 and "autoScale off" in off.json()["error"], off.text
    assert live()["resourceDisk"] == size + 5
