"""SERVICE dicts for the core's tests, built from the emulator's catalogue the way the generator does
(docs/dev/contracts.md "Unified service spec"), so the tests do not depend on the generator's output."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import (
    COMMON_OPTIONS,
    KIND_OPTION_NAMES,
    lifecycle_options,
)

CATALOGUE = Path(__file__).resolve().parents[2] / "emulator" / "catalogue"
INSTANCE_OPS = ("create", "modify", "delete", "suspend", "resume")
EXCLUDED_OPS = ("restart", "recovery", "reconcile")
# Service params must not shadow the common and lifecycle options (generator/naming.py takes them from the contract)
RESERVED = {
    "instance": frozenset(COMMON_OPTIONS) | frozenset(KIND_OPTION_NAMES["instance"]),
    "subresource": frozenset(COMMON_OPTIONS) | frozenset(KIND_OPTION_NAMES["subresource"]),
}


def snake(code: str) -> str:
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", code)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return text.lower()


def api_string(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _param(raw: Dict[str, Any], op_name: str, required: bool, reserved: FrozenSet[str] = frozenset()) -> Dict[str, Any]:
    code = raw["svcOperationCfsParam"]
    option = snake(code)
    while option in reserved:
        option += "_param"
    subs = [_param(s, op_name, False) for s in (raw.get("dataDescriptor") or {}).get("params") or []]
    for sub in subs:
        sub.pop("operations", None)
    return {
        "code": code,
        "option": option,
        "type": raw.get("dataType", "string"),
        "required": bool(raw.get("isRequired")) and required,
        "default": api_string(raw.get("defaultValue")),
        "choices": raw.get("choices"),
        "secret": bool(raw.get("isSecret")),
        "ref_service_id": raw.get("refSvcId"),
        "sub_params": subs,
        "operations": {op_name: raw.get("svcOperationCfsParamId")},
        "immutable": False,
    }


def _merge(params: Dict[str, Dict[str, Any]], raw: Dict[str, Any], op_name: str, create_name: str, kind: str) -> None:
    code = raw["svcOperationCfsParam"]
    new = _param(raw, op_name, op_name == create_name, RESERVED[kind])
    if code not in params:
        params[code] = new
        return
    old = params[code]
    old["operations"].update(new["operations"])
    known = {s["code"] for s in old["sub_params"]}
    old["sub_params"].extend(s for s in new["sub_params"] if s["code"] not in known)  # P41 union
    if op_name == create_name:
        old["required"] = new["required"]
        old["default"] = new["default"] if new["default"] is not None else old["default"]


def service_from_catalogue(service_id: int, timeouts: Optional[Dict[str, int]] = None) -> Dict[str, Any]:
    path = next(CATALOGUE.glob(f"{service_id:03d}-*.json"))
    svc = json.loads(path.read_text(encoding="utf-8"))
    ops = {op["operation"]: op for op in svc["operations"]}
    params: Dict[str, Dict[str, Any]] = {}
    for name in ("create", "modify"):
        for raw in (ops.get(name) or {}).get("cfsParams") or []:
            _merge(params, raw, name, "create", "instance")
    for param in params.values():
        param["immutable"] = "modify" not in param["operations"]
    operations: List[Dict[str, Any]] = []
    subs: Dict[str, Dict[str, Any]] = {}
    for op in svc["operations"]:
        name = op["operation"]
        item: Dict[str, Any] = {"name": name, "svc_operation_id": op["svcOperationId"]}
        if name in INSTANCE_OPS:
            item["kind"] = "instance"
        elif name == "redeploy":
            item["kind"] = "action"
            item["params"] = [_param(p, name, False) for p in op.get("cfsParams") or []]
            for param in item["params"]:
                if param["code"] == "gitRevision":
                    param["option"] = "git_revision"
        elif name in EXCLUDED_OPS:
            item["kind"] = "excluded"
            item["reason"] = "UI-only operational task"
        else:
            verb, _sep, sub = name.partition("_")
            item["kind"] = "subresource"
            item["subresource"] = sub
            entry = subs.setdefault(sub, {"name": sub, "operations": {}, "_params": {}})
            entry["operations"][verb] = name
            for raw in op.get("cfsParams") or []:
                _merge(entry["_params"], raw, verb, "create", "subresource")
                if raw.get("uniqueScope") == "parent":
                    entry["key_code"] = raw["svcOperationCfsParam"]
                    entry["key"] = snake(raw["svcOperationCfsParam"])
        operations.append(item)
    subresources = []
    for entry in subs.values():
        entry["params"] = sorted(entry.pop("_params").values(), key=lambda p: p["code"])
        subresources.append(entry)
    suspendable = "suspend" in ops and "resume" in ops
    return {
        "name": svc["svcShort"],
        "service_id": svc["svcId"],
        "service_display_name": svc.get("svcName", ""),
        "service_short_name": svc["svcShort"],
        "lifecycle": {
            "suspendable": suspendable,
            "deletable": "delete" in ops,
            "redeploy": "redeploy" in ops,
            "adopt_existing_on_create": False,
            "suspend_on_destroy": True,
            "timeouts": timeouts
            or {"create": 60, "modify": 60, "delete": 60, "suspend": 60, "resume": 60, "redeploy": 60},
        },
        "outputs": [
            {"code": o["code"], "type": o.get("dataType", "string"), "secret": bool(o.get("isSecret"))}
            for o in svc.get("outputs") or []
        ],
        "operations": sorted(operations, key=lambda o: o["name"]),
        "params": sorted(params.values(), key=lambda p: p["code"]),
        "subresources": subresources,
    }


ANSIBLE_TYPES = {
    "string": "str",
    "integer": "int",
    "boolean": "bool",
    "array": "list",
    "map-fixed": "dict",
    "json": "raw",
}


def argument_spec(service: Dict[str, Any], kind: str = "instance", sub: Optional[str] = None) -> Dict[str, Any]:
    """The module ARGUMENT_SPEC as the generator emits it: the kind's lifecycle options from the option contract,
    then the params (contracts.md: no required/default on params)."""
    spec: Dict[str, Any] = lifecycle_options(service, kind, sub)
    if kind == "info":
        return spec
    if kind == "instance":
        params = service["params"]
    else:
        params = next(s for s in service["subresources"] if s["name"] == sub)["params"]
    for param in params:
        option: Dict[str, Any] = {"type": ANSIBLE_TYPES.get(param["type"], "str")}
        if param["type"] == "array":
            option["elements"] = "str"
        if param["type"] == "map-fixed":
            option["options"] = {
                s["option"]: {"type": ANSIBLE_TYPES.get(s["type"], "str")} for s in param["sub_params"]
            }
        if param.get("choices"):
            option["choices"] = list(param["choices"])
        if param.get("secret"):
            option["no_log"] = True
        spec[param["option"]] = option
    return spec
