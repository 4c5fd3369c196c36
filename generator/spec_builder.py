"""API catalogue data -> the unified per-service spec (P1, P11-P15, P41). Pure functions, no I/O."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from generator.config import ServiceEntry, Timeouts
from generator.errors import GeneratorError
from generator.naming import instance_reserved, option_name, snake_case, subresource_reserved
from generator.placeholders import is_placeholder

INSTANCE_OPERATIONS: tuple[str, ...] = ("create", "modify", "delete", "suspend", "resume")  # P12
ACTION_OPERATIONS: tuple[str, ...] = ("redeploy",)  # P14
# P15: operational tasks done in the UI only, with the seed's reasons.
EXCLUDED_OPERATIONS: dict[str, str] = {
    "restart": "modify handles pod restart when needed",
    "recovery": "creates a new instance from backup, not a modification of existing",
    "reconcile": "sync after manual changes; the collection owns its own state (the state store)",
}
# P41 merge: when create and modify disagree on a param's type, the stricter one names the option's type: every value
# travels as text, so an integer such as postgres resourceDisk (string on create, integer on modify, live data)
# is valid for both operations, while free text would be refused by modify.
_STRICTER_TYPES: tuple[str, ...] = ("integer", "boolean")
_SUBRESOURCE_OPERATION = re.compile(r"^(create|modify|delete)_([A-Za-z][A-Za-z0-9_]*)$")  # P13
DATA_TYPES: tuple[str, ...] = ("string", "integer", "boolean", "array", "map-fixed", "json")


def normalize_type(data_type: Any) -> str:
    """The API's ``dataType`` -> one of DATA_TYPES (tolerant of older spellings such as ``bool``/``int64``)."""
    text = str(data_type or "string").strip().lower()
    if text in DATA_TYPES:
        return text
    if "bool" in text:
        return "boolean"
    if "int" in text:
        return "integer"
    if "map-fixed" in text or "mapfixed" in text:
        return "map-fixed"
    if "array" in text or "list" in text:
        return "array"
    if "json" in text or "map" in text:
        return "json"
    return "string"


def normalize_default(value: Any) -> str | None:
    """The API default as the API's string: bools -> "true"/"false", numbers -> text, objects -> JSON,
    HTML entities decoded (flask ``jsonEnv``: ``{ &quot;param&quot;: ... }``), empty -> None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    text = html.unescape(str(value))
    return text if text != "" else None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


@dataclass
class ApiParam:
    """One cfsParam descriptor of one operation, normalised."""

    param_id: int | None
    code: str
    label: str
    type: str
    required: bool
    default: str | None
    choices: list[str] | None
    secret: bool
    ref_service_id: int | None
    unique_scope: str | None
    man: str
    sub_params: list[ApiParam] = field(default_factory=list)


def parse_param(desc: Any, where: str) -> ApiParam:
    """A cfsParam descriptor (emulator-contract.md, "Catalogue") -> ApiParam."""
    if not isinstance(desc, dict) or not desc.get("svcOperationCfsParam"):
        raise GeneratorError(f"{where}: a cfsParam without 'svcOperationCfsParam' (the param code)")
    code = str(desc["svcOperationCfsParam"])
    choices_raw = desc.get("choices")
    choices = None
    if isinstance(choices_raw, list) and choices_raw:
        choices = [normalize_default(c) or "" for c in choices_raw]
    descriptor = desc.get("dataDescriptor") or {}
    sub_raw = descriptor.get("params", []) if isinstance(descriptor, dict) else []
    ref = desc.get("refSvcId")
    param_id = desc.get("svcOperationCfsParamId")
    return ApiParam(
        param_id=int(param_id) if param_id is not None else None,
        code=code,
        label=_text(desc.get("label")),
        type=normalize_type(desc.get("dataType")),
        required=bool(desc.get("isRequired")),
        default=normalize_default(desc.get("defaultValue")),
        choices=choices,
        secret=bool(desc.get("isSecret")),
        ref_service_id=int(ref) if ref not in (None, "", 0) else None,
        unique_scope=desc.get("uniqueScope") or None,
        man=_text(desc.get("man")),
        sub_params=[parse_param(s, f"{where}.{code}") for s in sub_raw],
    )


@dataclass
class MergedParam:
    """A param merged over the operations that carry it (P41: sub-params are united, not replaced)."""

    first: ApiParam
    operations: dict[str, int | None] = field(default_factory=dict)
    required_on_create: bool = False
    sub_params: dict[str, MergedParam] = field(default_factory=dict)

    def absorb(self, param: ApiParam, operation: str | None, parent: ApiParam | None = None) -> None:
        """Add one more occurrence: record its operation and unite its sub-params (P41).

        A sub-param (``parent``: the top-level param that carries it) records the operation whose dataDescriptor has
        it, under its parent's id, so a sub-param that modify does not take is known as create-only (issue 23)."""
        if operation is not None and parent is None:
            self.operations[operation] = param.param_id
            if operation == "create":
                self.required_on_create = param.required
            if self.first.type == "string" and param.type in _STRICTER_TYPES:
                self.first.type = param.type
        else:  # a dataDescriptor sub-param: required when any occurrence says so
            if operation is not None and parent is not None:
                self.operations[operation] = parent.param_id
            self.required_on_create = self.required_on_create or param.required
        if self.first.default is None and param.default is not None:
            self.first.default = param.default
        for sub in param.sub_params:
            merge_into(self.sub_params, sub, operation, parent or param)


def merge_into(
    target: dict[str, MergedParam], param: ApiParam, operation: str | None, parent: ApiParam | None = None
) -> None:
    """Union merge by code; the first occurrence (create before modify) decides type, label and man."""
    if param.code not in target:
        target[param.code] = MergedParam(first=param)
    target[param.code].absorb(param, operation, parent)


def param_entry(merged: MergedParam, option: str, immutable: bool, sub_reserved: frozenset[str]) -> dict[str, Any]:
    """The spec's per-param mapping, keys in the contract's order."""
    p = merged.first
    taken: set[str] = set()
    subs = []
    for code in sorted(merged.sub_params):
        sub_option = option_name(code, sub_reserved, taken)
        taken.add(sub_option)
        sub = merged.sub_params[code]
        # issue 23: a sub-param that the modify operation's dataDescriptor lacks is set on create only
        sub_immutable = immutable or "modify" not in sub.operations
        subs.append(param_entry(sub, sub_option, sub_immutable, sub_reserved))
    # issue 23: one rule for every param (generator/placeholders.py); the default is kept as `placeholder` (P1) and
    # never applied (P35: default null)
    placeholder = p.default if is_placeholder(p.type, p.default, p.choices, p.ref_service_id) else None
    entry: dict[str, Any] = {
        "code": p.code,
        "option": option,
        "label": p.label,
        "type": p.type,
        "required": merged.required_on_create,
        "default": None if placeholder is not None else p.default,
    }
    if placeholder is not None:
        entry["placeholder"] = placeholder
    return entry | {
        "choices": p.choices,
        "secret": p.secret,
        "ref_service_id": p.ref_service_id,
        "sub_params": subs,
        "man": p.man,
        "operations": dict(sorted(merged.operations.items(), key=lambda kv: _OP_ORDER.get(kv[0], 9))),
        "immutable": immutable,
    }


_OP_ORDER = {"create": 0, "modify": 1, "delete": 2}


def build_params(
    per_operation: dict[str, list[ApiParam]], reserved: frozenset[str], taken: set[str] | None = None
) -> list[dict[str, Any]]:
    """Params of one resource: union over its create/modify/delete operations, sorted by code (P41).

    ``per_operation`` maps the generic op name (create/modify/delete) to that operation's params.
    A param that modify does not carry is ``immutable`` (create-only; a key param for adopt, P21/P23)."""
    merged: dict[str, MergedParam] = {}
    for operation in sorted(per_operation, key=lambda o: _OP_ORDER.get(o, 9)):
        for param in per_operation[operation]:
            merge_into(merged, param, operation)
    taken = set() if taken is None else taken
    entries = []
    for code in sorted(merged):
        option = option_name(code, reserved, taken)
        taken.add(option)
        immutable = "modify" not in merged[code].operations
        entries.append(param_entry(merged[code], option, immutable, frozenset()))
    return entries


@dataclass
class FetchedService:
    """Everything the API says about one service: ``svc`` and its operations by svcOperationId."""

    entry: ServiceEntry
    svc: dict[str, Any]
    operations: dict[int, dict[str, Any]]


def classify(operation: str) -> tuple[str, str | None]:
    """Operation name -> (kind, subresource name); unknown operations fail fast (P47)."""
    if operation in INSTANCE_OPERATIONS:
        return "instance", None
    if operation in ACTION_OPERATIONS:
        return "action", None
    if operation in EXCLUDED_OPERATIONS:
        return "excluded", None
    match = _SUBRESOURCE_OPERATION.match(operation)
    if match:
        return "subresource", snake_case(match.group(2))
    raise GeneratorError(
        f"unknown operation {operation!r}: the generator knows instance operations {INSTANCE_OPERATIONS}, "
        f"sub-resource operations create_/modify_/delete_<sub>, actions {ACTION_OPERATIONS} and excluded "
        f"{tuple(EXCLUDED_OPERATIONS)}; teach generator/spec_builder.py the new kind first"
    )


def _operation_params(op: dict[str, Any], where: str) -> list[ApiParam]:
    raw = op.get("cfsParams") or []
    if not isinstance(raw, list):
        raise GeneratorError(f"{where}: 'cfsParams' must be a list")
    return [parse_param(d, where) for d in raw]


def build_spec(fetched: FetchedService, timeouts: Timeouts) -> dict[str, Any]:
    """The unified spec of one service (P11 top-level fields, contracts.md shape and key order)."""
    entry, svc = fetched.entry, fetched.svc
    name = entry.name
    listed = svc.get("operations") or []
    ops_by_name: dict[str, dict[str, Any]] = {}
    for item in listed:
        op_id = int(item["svcOperationId"])
        if op_id not in fetched.operations:
            raise GeneratorError(f"service {entry.service_id} ({name}): operation {op_id} was not fetched")
        op = fetched.operations[op_id]
        op_name = str(op.get("operation") or item.get("operation"))
        if op_name in ops_by_name:
            raise GeneratorError(f"service {entry.service_id} ({name}): operation {op_name!r} listed twice")
        ops_by_name[op_name] = dict(op, svcOperationId=op_id)

    instance_params: dict[str, list[ApiParam]] = {}
    sub_ops: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
    operations: list[dict[str, Any]] = []
    for op_name in sorted(ops_by_name):
        op = ops_by_name[op_name]
        kind, sub = classify(op_name)
        where = f"service {entry.service_id} ({name}) operation {op_name}"
        record: dict[str, Any] = {"name": op_name, "kind": kind}
        if sub is not None:
            record["subresource"] = sub
            generic = op_name.split("_", 1)[0]
            sub_ops.setdefault(sub, {})[generic] = (op_name, op)
        record["svc_operation_id"] = op["svcOperationId"]
        if kind == "excluded":
            record["reason"] = EXCLUDED_OPERATIONS[op_name]  # P15
        params = _operation_params(op, where)
        if kind == "instance" and op_name in ("create", "modify"):
            instance_params[op_name] = params
        elif kind in ("instance", "action") and params:
            record["params"] = build_params({op_name: params}, frozenset())
        operations.append(record)

    names = set(ops_by_name)
    suspendable = {"suspend", "resume"} <= names
    lifecycle: dict[str, Any] = {
        "suspendable": suspendable,
        "deletable": "delete" in names,
        "redeploy": "redeploy" in names,
        "adopt_existing_on_create": False,  # P19
    }
    if suspendable:
        lifecycle["suspend_on_destroy"] = True  # P19
    lifecycle["timeouts"] = _timeouts(name, names, timeouts)

    outputs = []
    for out in sorted(svc.get("outputs") or [], key=lambda o: str(o.get("code"))):
        outputs.append(
            {
                "code": str(out["code"]),
                "type": normalize_type(out.get("dataType")),
                "secret": bool(out.get("isSecret")),
                "man": _text(out.get("man")),
            }
        )

    display_name = _text(svc.get("svcName")) or _text(svc.get("svcShort")) or name
    return {
        "name": name,
        "service_id": entry.service_id,
        "service_display_name": display_name,
        "service_title": service_title(entry, display_name),
        "service_short_name": _text(svc.get("svcShort")) or name,
        "test_service": entry.test,
        "service_man": _text(svc.get("man")),
        "lifecycle": lifecycle,
        "outputs": outputs,
        "operations": operations,
        "params": build_params(instance_params, instance_reserved()),
        "subresources": [_subresource(name, sub, sub_ops[sub]) for sub in sorted(sub_ops)],
    }


def service_title(entry: ServiceEntry, display_name: str) -> str:
    """The English name the docs use: the list's ``title``, else the catalogue's name when it is English (ASCII).
    A service whose catalogue name is in Russian needs a ``title`` (fail fast: docs are in English)."""
    if entry.title:
        return entry.title
    if display_name.isascii():
        return display_name
    raise GeneratorError(
        f"service {entry.service_id} ({entry.name}): the catalogue names it {display_name!r}, which is not English; "
        f'add title="<English name>" to its line in config/services_list.txt'
    )


def _timeouts(service: str, names: set[str], timeouts: Timeouts) -> dict[str, int]:
    """P8: a timeout for every operation the collection runs (excluded ones have none)."""
    ordered = [op for op in INSTANCE_OPERATIONS + ACTION_OPERATIONS if op in names]
    ordered += sorted(n for n in names if classify(n)[0] == "subresource")
    return {op: timeouts.for_operation(service, op, classify(op)[0] == "subresource") for op in ordered}


def _subresource(service: str, sub: str, ops: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """P13: a sub-resource from create_/modify_/delete_<sub>; its key is the param with uniqueScope parent."""
    where = f"service {service} sub-resource {sub}"
    per_operation = {generic: _operation_params(op, f"{where} {op_name}") for generic, (op_name, op) in ops.items()}
    if "create" not in per_operation:
        raise GeneratorError(f"{where}: has no create_{sub} operation")
    keys = sorted({p.code for params in per_operation.values() for p in params if p.unique_scope == "parent"})
    if len(keys) != 1:
        raise GeneratorError(f"{where}: expected exactly one param with uniqueScope 'parent' (the key), found {keys}")
    params = build_params(per_operation, subresource_reserved())
    key_entry = next(p for p in params if p["code"] == keys[0])
    return {
        "name": sub,
        "key": key_entry["option"],
        "key_code": keys[0],
        "operations": {generic: ops[generic][0] for generic in sorted(ops, key=lambda o: _OP_ORDER.get(o, 9))},
        "params": params,
    }
