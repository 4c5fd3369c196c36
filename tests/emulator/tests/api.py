"""A small deck-api client for the emulator's tests: real HTTP (httpx, keep-alive)."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.emulator.server import EmulatorServer

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


PLAIN = httpx.Client(timeout=10, verify=False)  # no Authorization header; plain HTTP on loopback


def uid_from(response: httpx.Response) -> str:
    location = response.headers.get("Location", "")
    assert location.startswith("./"), f"Location {location!r} is not ./<UUID>"
    match = UUID_RE.fullmatch(location[2:])
    assert match, f"Location {location!r} holds no UUID"
    return match.group(0)


class Api:
    """Gateway-form client by default; `form` selects legacy (proxy ?endpoint=) or pathinfo."""

    def __init__(self, emu: EmulatorServer, form: str = "gateway", token: str | None = None) -> None:
        self.emu = emu
        self.form = form
        # plain HTTP on loopback: verify=False only skips loading a CA bundle (80 ms per client)
        self.http = httpx.Client(headers={"Authorization": f"Bearer {token or emu.token}"}, timeout=10, verify=False)

    def close(self) -> None:
        self.http.close()

    def url(self, path: str) -> str:
        if self.form == "gateway":
            return self.emu.endpoint + path
        if self.form == "pathinfo":
            return self.emu.legacy_endpoint + path
        return self.emu.legacy_endpoint + "?" + httpx.QueryParams({"endpoint": path}).__str__()

    def request(self, method: str, path: str, params: dict[str, Any] | None = None, **kw: Any) -> httpx.Response:
        if params and self.form == "legacy":
            path = path + "?" + str(httpx.QueryParams(params))
            params = None
        return self.http.request(method, self.url(path), params=params, **kw)

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.request("GET", path, params=params or None)

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.request("POST", path, json=body)

    def put(self, path: str, body: Any = None) -> httpx.Response:
        return self.request("PUT", path, json=body)

    def delete(self, path: str) -> httpx.Response:
        return self.request("DELETE", path)

    # --- flows ---
    def new_instance(self, service_id: int, name: str, descr: str = "") -> str:
        r = self.post("/instances", {"serviceId": service_id, "displayName": name, "descr": descr})
        assert r.status_code == 201, r.text
        return uid_from(r)

    def new_operation(self, instance_uid: str, operation: str, svc_operation_id: int | None = None) -> str:
        body: dict[str, Any] = {"instanceUid": instance_uid, "operation": operation}
        if svc_operation_id is not None:
            body["svcOperationId"] = svc_operation_id
        r = self.post("/instanceOperations", body)
        assert r.status_code == 201, r.text
        return uid_from(r)

    def set_param(self, op_uid: str, param_id: int, value: Any) -> httpx.Response:
        body = {"instanceOperationUid": op_uid, "svcOperationCfsParamId": param_id, "paramValue": value}
        return self.post("/instanceOperationCfsParams", body)

    def param_ids(self, op_uid: str) -> dict[str, int]:
        params = self.get(f"/instanceOperations/{op_uid}", fields="cfsParams").json()["instanceOperation"]["cfsParams"]
        return {p["svcOperationCfsParam"]: p["svcOperationCfsParamId"] for p in params}

    def prepare(self, instance_uid: str, operation: str, values: dict[str, Any]) -> str:
        op = self.new_operation(instance_uid, operation)
        ids = self.param_ids(op)
        for code, value in values.items():
            r = self.set_param(op, ids[code], value)
            assert r.status_code == 201, r.text
        return op

    def run(self, op_uid: str) -> httpx.Response:
        return self.post(f"/instanceOperations/{op_uid}/run", {})

    def start(self, instance_uid: str, operation: str, values: dict[str, Any] | None = None) -> str:
        op = self.prepare(instance_uid, operation, values or {})
        assert self.get(f"/instanceOperations/{op}/validate-cfs").status_code == 200
        r = self.run(op)
        assert r.status_code == 200, r.text
        return op

    def operation(self, op_uid: str) -> dict[str, Any]:
        r = self.get(f"/instanceOperations/{op_uid}")
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()["instanceOperation"]
        return result

    def instance(self, uid: str) -> dict[str, Any]:
        r = self.get(f"/instances/{uid}")
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()["instance"]
        return result

    def finish(self, op_uid: str) -> dict[str, Any]:
        """Advance the emulator clock past the operation's end and return it."""
        self.emu.clock.advance(60)
        op = self.operation(op_uid)
        assert op["dtFinish"], op
        return op

    def complete(self, instance_uid: str, operation: str, values: dict[str, Any] | None = None) -> dict[str, Any]:
        op = self.finish(self.start(instance_uid, operation, values))
        assert op["isSuccessful"] is True, op
        return op
