"""Another workspace: changes made to the cloud straight through the deck-api, outside Ansible.

The lifecycle tests use it to change, delete or busy an instance out of band, and then check what the
modules make of it. It speaks the API as any public client does (deck-api.md 5.1): create an operation, push
its params, validate, run, poll; it reads nothing from the collection.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

from tests.emulator import EmulatorServer

UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


def _client(emu: EmulatorServer) -> httpx.Client:
    return httpx.Client(base_url=emu.endpoint, headers={"Authorization": f"Bearer {emu.token}"}, timeout=30)


def instance(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    """The live instance as the emulator holds it (admin API), deleted ones included."""
    return next(i for i in emu.instances() if i["instanceUid"].lower() == uid.lower())


def live_named(emu: EmulatorServer, service_id: int, name: str) -> list[dict[str, Any]]:
    return [
        i
        for i in emu.instances()
        if i["displayName"] == name and int(i["serviceId"]) == service_id and not i.get("isDeleted")
    ]


def start_operation(emu: EmulatorServer, uid: str, name: str, values: dict[str, str] | None = None) -> str:
    """Create, fill and run an operation on an instance; returns its uid without waiting."""
    values = values or {}
    with _client(emu) as client:
        created = client.post("/instanceOperations", json={"instanceUid": uid, "operation": name})
        created.raise_for_status()
        op_uid = UUID.findall(created.headers["Location"])[-1]
        op = client.get(f"/instanceOperations/{op_uid}", params={"fields": "cfsParams"}).json()["instanceOperation"]
        for param in op.get("cfsParams") or []:
            code = param["svcOperationCfsParam"]
            value = values.get(code, _fitted(param))
            if value is not None:
                client.post(
                    "/instanceOperationCfsParams",
                    json={
                        "instanceOperationUid": op_uid,
                        "svcOperationCfsParamId": param["svcOperationCfsParamId"],
                        "paramValue": value,
                    },
                ).raise_for_status()
        client.post(f"/instanceOperations/{op_uid}/run", json={}).raise_for_status()
    return op_uid


def _fitted(param: dict[str, Any]) -> str | None:
    """A pre-filled map-fixed value without the sub-keys this operation's dataDescriptor does not know (the
    emulator pre-fills modify with the create's value; a client must drop them, P41), else None (keep it)."""
    subs = [s["svcOperationCfsParam"] for s in (param.get("dataDescriptor") or {}).get("params") or []]
    text = param.get("paramValue")
    if not subs or not isinstance(text, str) or not text.startswith("{"):
        return None
    value = json.loads(text)
    return json.dumps({k: v for k, v in value.items() if k in subs}) if set(value) - set(subs) else None


def run_operation(emu: EmulatorServer, uid: str, name: str, values: dict[str, str] | None = None) -> None:
    """start_operation, then poll it until it finished successfully."""
    op_uid = start_operation(emu, uid, name, values)
    wait_operation(emu, op_uid)


def wait_operation(emu: EmulatorServer, op_uid: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    with _client(emu) as client:
        while time.monotonic() < deadline:
            op = client.get(f"/instanceOperations/{op_uid}").json()["instanceOperation"]
            if op.get("dtFinish"):
                assert op.get("isSuccessful"), op.get("errorLog")
                return
            time.sleep(0.05)
    raise AssertionError(f"operation {op_uid} did not finish within {limit} s")
