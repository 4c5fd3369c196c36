"""A small stubbed deck-api (httpx.MockTransport) for the core's unit tests.

It keeps instances, operations and param rows in memory and finishes an operation after a given
number of polls. The HTTP-level truth is the emulator (tests/integration/core, tests/integration/lifecycle);
this stub exists so unit tests run without it and can script quirks precisely. It answers exactly what the
API answers: list items carry no `state`, params or `availableOperations` (deck-api.md 4.1; the emulator's
LIST_ITEM_FIELDS), and an instance's `availableOperations` follow its status as the emulator's do.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import parse_qsl, urlsplit

import httpx

from tests.emulator.assumptions import LIST_ITEM_FIELDS

Handler = Callable[[httpx.Request], Optional[httpx.Response]]


class FakeDeck:
    def __init__(self, services: List[Dict[str, Any]], polls_to_finish: int = 1) -> None:
        self.services = {s["service_id"]: s for s in services}
        self.instances: Dict[str, Dict[str, Any]] = {}
        self.operations: Dict[str, Dict[str, Any]] = {}
        self.log: List[Tuple[str, str]] = []
        self.bodies: List[Any] = []
        self.polls_to_finish = polls_to_finish
        self.hooks: List[Handler] = []
        self.fail_operation: Dict[str, str] = {}  # op name -> errorLog
        self.token = "tok-" + uuid.uuid4().hex

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def writes(self) -> List[Tuple[str, str]]:
        return [entry for entry in self.log if entry[0] != "GET"]

    # -- helpers for tests ---------------------------------------------------------------------

    def add_instance(self, service_id: int, name: str, status: str = "running", **extra: Any) -> str:
        uid = str(uuid.uuid4()).upper()
        self.instances[uid] = {
            "instanceUid": uid,
            "displayName": name,
            "serviceId": service_id,
            "explainedStatus": status,
            "isDeleted": status == "deleted",
            "operationIsPending": False,
            "operationIsInProgress": False,
            "instanceConfigDtCreated": f"2026-01-01T00:00:{len(self.instances):02d}",
            "state": {"params": {}, "out": {}, "subresources": {}},
        }
        self.instances[uid].update(extra)
        return uid

    # -- HTTP ----------------------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        path = url.path
        query = dict(parse_qsl(url.query))
        if "index.cfm" in path and "endpoint" in query:
            inner = urlsplit(query.pop("endpoint"))
            path, query = inner.path, dict(parse_qsl(inner.query))
        elif "/api/v1/svc" in path:
            path = path.split("/api/v1/svc", 1)[1]
        self.log.append((request.method, path))
        body = json.loads(request.content) if request.content else None
        self.bodies.append(body)
        for hook in self.hooks:
            answer = hook(request)
            if answer is not None:
                return answer
        if request.headers.get("Authorization") != "Bearer " + self.token:
            return httpx.Response(401, json={"ERROR": "401 Unauthorized"})
        return self.route(request.method, path, query, body)

    def route(self, method: str, path: str, query: Dict[str, str], body: Any) -> httpx.Response:
        parts = [p for p in path.split("/") if p]
        if parts == ["instances"] and method == "GET":
            sid = int(query.get("serviceId", 0))
            items = [i for i in self.instances.values() if not sid or i["serviceId"] == sid]
            listed = [{k: v for k, v in i.items() if k in LIST_ITEM_FIELDS} for i in items]
            return httpx.Response(200, json={"results": listed, "total": len(listed)})
        if parts == ["instances"] and method == "POST":
            uid = self.add_instance(body["serviceId"], body["displayName"], "not created")
            return httpx.Response(201, headers={"Location": "./" + uid}, json={})
        if len(parts) == 2 and parts[0] == "instances":
            inst = self._instance(parts[1])
            if inst is None:
                return httpx.Response(404, json={"ERROR": "Instance not found"})
            return httpx.Response(200, json={"instance": {**inst, "availableOperations": self.available(inst)}})
        if parts == ["instanceOperations"] and method == "POST":
            return self._create_op(body)
        if len(parts) >= 2 and parts[0] == "instanceOperations":
            op = self.operations.get(parts[1].lower())
            if op is None:
                return httpx.Response(404, json={"ERROR": "operation not found"})
            if len(parts) == 3 and parts[2] == "validate-cfs":
                return httpx.Response(200, json={})
            if len(parts) == 3 and parts[2] == "run":
                op["isPending"] = True
                op["dtSubmit"] = "2026-01-01T00:00:00"
                op["_polls"] = 0
                return httpx.Response(200, json={})
            return httpx.Response(200, json={"instanceOperation": self._poll(op)})
        if parts == ["instanceOperationCfsParams"]:
            op = self.operations[body["instanceOperationUid"].lower()]
            for param in op["cfsParams"]:
                if param["svcOperationCfsParamId"] == body["svcOperationCfsParamId"]:
                    param["paramValue"] = body["paramValue"]
                    param["instanceOperationCfsParamUid"] = str(uuid.uuid4())
            return httpx.Response(201 if method == "POST" else 200, json={})
        return httpx.Response(404, json={"ERROR": "no route " + path})

    def available(self, inst: Dict[str, Any]) -> List[Dict[str, Any]]:
        """The emulator's rule: no state -> create; running -> all but create/resume; suspended -> resume,
        delete; deleted -> none."""
        if "availableOperations" in inst:
            return list(inst["availableOperations"])
        status = inst["explainedStatus"]
        ops = self.services[inst["serviceId"]]["operations"]
        if inst.get("isDeleted") or status == "deleted":
            names: set[str] = set()
        elif status in ("not created", "failed"):
            names = {"create"}
        elif status == "suspended":
            names = {"resume", "delete"}
        else:
            names = {o["name"] for o in ops} - {"create", "resume"}
        return [{"svcOperationId": o["svc_operation_id"], "operation": o["name"]} for o in ops if o["name"] in names]

    def _instance(self, uid: str) -> Optional[Dict[str, Any]]:
        for key, inst in self.instances.items():
            if key.lower() == uid.lower():
                return inst
        return None

    def _create_op(self, body: Dict[str, Any]) -> httpx.Response:
        inst = self._instance(body["instanceUid"])
        if inst is None:
            return httpx.Response(404, json={"ERROR": "instance not found"})
        service = self.services[inst["serviceId"]]
        name = body["operation"]
        cfs = []
        param_sets = [service["params"]] + [s["params"] for s in service.get("subresources") or []]
        param_sets += [o.get("params") or [] for o in service["operations"] if o["name"] == name]
        verb = name.split("_", 1)[0]
        sub = name.split("_", 1)[1] if "_" in name else None
        for params in param_sets:
            for p in params:
                op_key = verb if sub else name
                if op_key in (p.get("operations") or {}) and (
                    not sub or any(p in s["params"] for s in service["subresources"] if s["name"] == sub)
                ):
                    cfs.append(
                        {
                            "svcOperationCfsParamId": p["operations"][op_key],
                            "svcOperationCfsParam": p["code"],
                            "dataType": p["type"],
                            "defaultValue": p.get("default"),
                            "paramValue": None,
                        }
                    )
                elif name == "redeploy" and params is not service["params"]:
                    cfs.append({"svcOperationCfsParamId": 7777, "svcOperationCfsParam": p["code"], "paramValue": None})
        uid = str(uuid.uuid4())
        self.operations[uid] = {
            "instanceOperationUid": uid,
            "instanceUid": inst["instanceUid"],
            "operation": name,
            "cfsParams": cfs,
            "isPending": False,
            "isInProgress": False,
            "isSuccessful": None,
            "dtFinish": None,
            "errorLog": None,
        }
        inst["lastOperation"] = name
        inst["lastOperationUid"] = uid
        return httpx.Response(201, headers={"Location": "./" + uid}, json={})

    def _poll(self, op: Dict[str, Any]) -> Dict[str, Any]:
        if op.get("dtSubmit") and not op.get("dtFinish"):
            op["_polls"] += 1
            if op["_polls"] >= self.polls_to_finish:
                self._finish(op)
            else:
                op["isPending"], op["isInProgress"] = False, True
        return {k: v for k, v in op.items() if not k.startswith("_")}

    def _finish(self, op: Dict[str, Any]) -> None:
        op.update({"isPending": False, "isInProgress": False, "dtFinish": "2026-01-01T00:00:01", "duration": 0.5})
        inst = self._instance(op["instanceUid"])
        assert inst is not None
        name = op["operation"]
        if name in self.fail_operation:
            op.update({"isSuccessful": False, "errorLog": self.fail_operation[name]})
            op["stages"] = [{"stage": "Подготовка среды", "isSuccessful": False}]
            if name == "create":
                inst["explainedStatus"] = "failed"
            return
        op["isSuccessful"] = True
        values = {p["svcOperationCfsParam"]: p["paramValue"] for p in op["cfsParams"] if p["paramValue"] is not None}
        state = inst["state"]
        if name in ("create", "modify"):
            state["params"].update(values)
            inst["explainedStatus"] = "running"
        elif name in ("resume", "redeploy"):
            inst["explainedStatus"] = "running"
        elif name == "suspend":
            inst["explainedStatus"] = "suspended"
        elif name == "delete":
            inst["explainedStatus"] = "deleted"
            inst["isDeleted"] = True
        elif "_" in name:
            verb, sub = name.split("_", 1)
            service = self.services[inst["serviceId"]]
            entry = next(s for s in service["subresources"] if s["name"] == sub)
            items = state["subresources"].setdefault(sub, [])
            secret = {p["code"] for p in entry["params"] if p.get("secret")}
            clean = {k: v for k, v in values.items() if k not in secret}
            existing = [i for i in items if i.get(entry["key_code"]) == values.get(entry["key_code"])]
            if verb == "create":
                items.append(clean)
            elif verb == "modify" and existing:
                existing[0].update(clean)
            elif verb == "delete" and existing:
                items.remove(existing[0])
