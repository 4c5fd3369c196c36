"""Put many instances into the emulator quickly, through the deck-api itself (real HTTP, real operations).

The inventory tests and the 1,000-instance bench need instances of several services in several states. The
modules would create them one playbook task at a time (seconds each); this helper drives the API's own create
flow instead: `POST /instances`, `POST /instanceOperations`, one `POST /instanceOperationCfsParams` per
required param (the task's value, else the catalogue default), `run`; every create is started before the first
one is waited for, then follow-up operations (`suspend`, `delete`) run the same way.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


@dataclass
class Seed:
    """One instance: its service, display name, create param values (by code) and the operations to run in
    order (none leaves a `not created` placeholder)."""

    service_id: int
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    operations: tuple[str, ...] = ("create",)
    uid: str = ""


def api_text(value: Any) -> str:
    """A param value as the API's string (`true`, `500`, JSON text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


class Seeder:
    """Creates instances through the gateway endpoint of an emulator (or any deck-api)."""

    def __init__(self, endpoint: str, token: str, timeout: float = 120.0) -> None:
        self.http = httpx.Client(base_url=endpoint, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        self.timeout = timeout
        self._templates: dict[tuple[int, str], list[dict[str, Any]]] = {}

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Seeder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def seed(self, seeds: list[Seed], wait: bool = True) -> dict[str, str]:
        """Create every instance and run its operations, step by step (all first operations, wait, all second
        ones, ...); `wait=False` leaves the last step running. Returns {name: uid} (the last one of a name wins)."""
        for item in seeds:
            item.uid = self._uid(self._post("/instances", {"serviceId": item.service_id, "displayName": item.name}))
        steps = max((len(item.operations) for item in seeds), default=0)
        for step in range(steps):
            started = [self._start(item, item.operations[step]) for item in seeds if len(item.operations) > step]
            if wait or step < steps - 1:
                self._wait(started)
        return {item.name: item.uid for item in seeds}

    def _start(self, item: Seed, operation: str) -> str:
        op_uid = self._uid(self._post("/instanceOperations", {"instanceUid": item.uid, "operation": operation}))
        for param in self._template(item.service_id, operation):
            code = param["svcOperationCfsParam"]
            if code in item.params and operation == "create":
                value = api_text(item.params[code])
            elif param.get("isRequired") and param.get("defaultValue") not in (None, ""):
                value = api_text(param["defaultValue"])
            elif param.get("isRequired"):
                raise AssertionError(f"seed {item.name}: required param {code} of service {item.service_id} unset")
            else:
                continue
            body = {"instanceOperationUid": op_uid, "svcOperationCfsParamId": param["svcOperationCfsParamId"]}
            self._post("/instanceOperationCfsParams", {**body, "paramValue": value})
        self._post(f"/instanceOperations/{op_uid}/run", {})
        return op_uid

    def _template(self, service_id: int, operation: str) -> list[dict[str, Any]]:
        key = (service_id, operation)
        if key not in self._templates:
            svc = self.http.get(f"/services/{service_id}").json()["svc"]
            op_id = next(o["svcOperationId"] for o in svc["operations"] if o["operation"] == operation)
            definition = self.http.get(f"/serviceOperation/{op_id}").json()["svcOperation"]
            self._templates[key] = list(definition.get("cfsParams") or [])
        return self._templates[key]

    def _wait(self, op_uids: list[str]) -> None:
        deadline = time.monotonic() + self.timeout
        for op_uid in op_uids:
            while True:
                op = self.http.get(f"/instanceOperations/{op_uid}").json()["instanceOperation"]
                if op.get("dtFinish"):
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"operation {op_uid} did not finish within {self.timeout} s")
                time.sleep(0.05)

    def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        response = self.http.post(path, json=body)
        if response.status_code >= 300:
            raise AssertionError(f"POST {path} {body}: HTTP {response.status_code} {response.text}")
        return response

    @staticmethod
    def _uid(response: httpx.Response) -> str:
        found = UUID.findall(response.headers.get("Location", ""))
        if not found:
            raise AssertionError(f"no uid in the answer: {response.status_code} {response.headers}")
        return found[-1]
