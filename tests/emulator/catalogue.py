"""The service catalogue: one JSON data file per service under `catalogue/`, loaded and indexed.

Keys starting with `emulator` (for example an output's `emulatorValue`) drive the emulator only and are
never served by the API.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.emulator.validation import stringify_default

CATALOGUE_DIR = Path(__file__).resolve().parent / "catalogue"
SUB_OP_PREFIXES = ("create_", "modify_", "delete_")
INSTANCE_OPERATIONS = ("create", "modify", "delete", "suspend", "resume")

Json = dict[str, Any]


class CatalogueError(ValueError):
    """A catalogue data file is inconsistent (duplicate ids, unknown types, ...)."""


DATA_TYPES = ("string", "integer", "boolean", "array", "map-fixed", "json")


def public(obj: Any) -> Any:
    """A deep copy of `obj` without the emulator-only keys."""
    if isinstance(obj, dict):
        return {k: public(v) for k, v in obj.items() if not k.startswith("emulator")}
    if isinstance(obj, list):
        return [public(v) for v in obj]
    return obj


def _shifted(svc: Json, offset: int) -> Json:
    """A copy of `svc` with `offset` added to each of its svcOperationIds."""
    svc = copy.deepcopy(svc)
    for op in svc["operations"]:
        op["svcOperationId"] = int(op["svcOperationId"]) + offset
    return svc


def _as_served(param: Json) -> Json:
    """A catalogue param as the live API serves it: `defaultValue` as text ("true", "20", '["22"]'), the way the
    live catalogue has it and an operation's cfsParams carry it (deck-api.md §5; issue 23)."""
    param["defaultValue"] = stringify_default(param.get("defaultValue"))
    return param


class Catalogue:
    """Services, their operations and cfsParams, indexed by id.

    `operation_id_offset` is added to every svcOperationId (the operation-id offset mode: the catalogue then
    serves ids other than the ones the specs were generated with, as the real API may; only DNS 45/46 are
    known live). Param ids are not shifted.
    """

    def __init__(self, services: list[Json], operation_id_offset: int = 0) -> None:
        if operation_id_offset < 0:
            raise CatalogueError(f"the operation id offset must be 0 or more, got {operation_id_offset}")
        self.operation_id_offset = operation_id_offset
        self.services: dict[int, Json] = {}
        self.operations: dict[int, Json] = {}
        self.operation_service: dict[int, int] = {}
        self.params: dict[int, Json] = {}
        self.param_operation: dict[int, int] = {}
        for svc in services:
            self._add(_shifted(svc, operation_id_offset) if operation_id_offset else svc)

    @classmethod
    def load(cls, directory: Path | None = None, operation_id_offset: int = 0) -> Catalogue:
        directory = directory or CATALOGUE_DIR
        files = sorted(directory.glob("*.json"))
        if not files:
            raise CatalogueError(f"no catalogue files (*.json) in {directory}")
        services = []
        for path in files:
            try:
                services.append(json.loads(path.read_text(encoding="utf-8")))
            except ValueError as exc:
                raise CatalogueError(f"{path}: not valid JSON: {exc}") from exc
        return cls(services, operation_id_offset)

    def _add(self, svc: Json) -> None:
        sid = svc["svcId"]
        if sid in self.services:
            raise CatalogueError(f"duplicate svcId {sid}")
        self.services[sid] = svc
        for op in svc["operations"]:
            oid = op["svcOperationId"]
            if oid in self.operations:
                raise CatalogueError(f"duplicate svcOperationId {oid} (service {sid})")
            self.operations[oid] = op
            self.operation_service[oid] = sid
            for param in op["cfsParams"]:
                pid = param["svcOperationCfsParamId"]
                if pid in self.params:
                    raise CatalogueError(f"duplicate svcOperationCfsParamId {pid} (operation {oid})")
                if param["dataType"] not in DATA_TYPES:
                    raise CatalogueError(f"param {pid}: unknown dataType {param['dataType']!r}")
                self.params[pid] = param
                self.param_operation[pid] = oid

    # --- lookups ---
    def service(self, sid: int) -> Json | None:
        return self.services.get(sid)

    def operation(self, oid: int) -> Json | None:
        return self.operations.get(oid)

    def operation_by_name(self, sid: int, name: str) -> Json | None:
        for op in self.services[sid]["operations"]:
            if op["operation"].lower() == name.lower():
                return op
        return None

    def operation_names(self, sid: int) -> list[str]:
        return [op["operation"] for op in self.services[sid]["operations"]]

    def is_suspendable(self, sid: int) -> bool:
        names = self.operation_names(sid)
        return "suspend" in names and "resume" in names

    def subresources(self, sid: int) -> dict[str, str]:
        """Sub-resource name -> code of its key param (the param with uniqueScope parent)."""
        subs: dict[str, str] = {}
        for op in self.services[sid]["operations"]:
            name = op["operation"]
            if name.startswith("create_"):
                key = next(
                    (p["svcOperationCfsParam"] for p in op["cfsParams"] if p.get("uniqueScope") == "parent"), None
                )
                if key:
                    subs[name[len("create_") :]] = key
        return subs

    @staticmethod
    def subresource_of(operation: str) -> tuple[str, str] | None:
        """('create', 'user') for 'create_user'; None for instance and action operations."""
        for prefix in SUB_OP_PREFIXES:
            if operation.startswith(prefix):
                return prefix[:-1], operation[len(prefix) :]
        return None

    def unique_display_names(self, sid: int) -> bool:
        """Whether the service answers 400 `not unique` to a reused display name (`emulatorUniqueDisplayNames`:
        a per-service catalogue fact, on for DNS zones 110 and records 111, which both live-tested DNS clients
        rely on; off where there is no evidence)."""
        return bool(self.services[sid].get("emulatorUniqueDisplayNames", False))

    def realms(self, sid: int) -> list[str]:
        return list(self.services[sid].get("resourceRealms", []))

    # --- API views ---
    def service_view(self, sid: int) -> Json:
        svc = self.services[sid]
        return {
            "svcId": sid,
            "svcShort": svc["svcShort"],
            "svcName": svc["svcName"],
            "man": svc["man"],
            "operations": [
                {"svcOperationId": o["svcOperationId"], "operation": o["operation"]} for o in svc["operations"]
            ],
            "outputs": public(svc.get("outputs", [])),
        }

    def operation_view(self, oid: int) -> Json:
        op = self.operations[oid]
        return {
            "svcOperationId": oid,
            "operation": op["operation"],
            "svcId": self.operation_service[oid],
            "man": op.get("man", ""),
            "cfsParams": [_as_served(param) for param in public(copy.deepcopy(op["cfsParams"]))],
        }
