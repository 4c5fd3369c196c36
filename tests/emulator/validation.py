"""Parameter validation like the backend's: types, choices, JSON shapes, references (deck-api.md 2.3, 3.3)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tests.emulator import assumptions as A
from tests.emulator.errors import ApiError, cfml_error
from tests.emulator.model import Instance

INTEGER = re.compile(r"^-?\d+$")
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

InstanceLookup = Callable[[str], Instance | None]
Json = dict[str, Any]


def as_param_string(value: Any) -> str:
    """Values travel as strings; JSON numbers, booleans and structures sent by a client are turned into text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def stringify_default(value: Any) -> str | None:
    """A catalogue defaultValue as the string an operation's cfsParams carry."""
    return None if value is None else as_param_string(value)


def typed_value(param: Json, value: str) -> Any:
    """The value as it is stored in `state.params` (already validated)."""
    dtype = param["dataType"]
    if value == "":
        return None
    if dtype == "integer":
        return int(value)
    if dtype == "boolean":
        return value.lower() == "true"
    if dtype in ("json", "map-fixed", "array"):
        return json.loads(value)
    return value


def _bad(param: Json, message: str) -> ApiError:
    code = param.get("svcOperationCfsParam", "?")
    pid = param.get("svcOperationCfsParamId")
    where = f"{code} ({pid})" if pid is not None else code
    return cfml_error(A.PARAM_ERROR_STATUS, f"Invalid value for parameter {where}: {message}", A.TAG_PARAMS)


def check_reference(param: Json, value: str, lookup: InstanceLookup) -> None:
    ref = param.get("refSvcId")
    if ref is None or value == "":
        return
    code = param.get("svcOperationCfsParam", "?")
    if not UUID.match(value):
        raise cfml_error(
            A.REFERENCE_ERROR_STATUS,
            f"Parameter {code}: '{value}' is not an instance UUID of service {ref}",
            A.TAG_PARAMS,
        )
    target = lookup(value)
    if target is None or target.is_deleted:
        raise cfml_error(
            A.REFERENCE_ERROR_STATUS,
            f"Parameter {code}: instance {value} of service {ref} does not exist",
            A.TAG_PARAMS,
        )
    if target.service_id != ref:
        raise cfml_error(
            A.REFERENCE_ERROR_STATUS,
            f"Parameter {code}: instance {value} belongs to service {target.service_id}, expected service {ref}",
            A.TAG_PARAMS,
        )


def _check_native(param: Json, value: Any, lookup: InstanceLookup) -> None:
    """A sub-param value inside a map-fixed object (native JSON or its string form)."""
    dtype = param["dataType"]
    if dtype == "integer":
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and bool(INTEGER.match(value))
        )
        if not ok:
            raise _bad(param, f"expected an integer, got {value!r}")
    elif dtype == "boolean":
        ok = isinstance(value, bool) or (isinstance(value, str) and value.lower() in A.BOOLEAN_STRINGS)
        if not ok:
            raise _bad(param, f"expected true or false, got {value!r}")
    elif dtype == "string":
        if isinstance(value, (dict, list)):
            raise _bad(param, f"expected a string, got {type(value).__name__}")
    elif dtype in ("json", "map-fixed") and not isinstance(value, dict):
        raise _bad(param, "expected a JSON object")
    elif dtype == "array" and not isinstance(value, list):
        raise _bad(param, "expected a JSON array")
    choices = param.get("choices")
    if choices and value not in ("", None) and as_param_string(value) not in choices:
        raise _bad(param, f"'{value}' is not one of {', '.join(choices)}")
    if isinstance(value, str):
        check_reference(param, value, lookup)


def _check_map_fixed(param: Json, obj: Any, lookup: InstanceLookup) -> None:
    if not isinstance(obj, dict):
        raise _bad(param, "expected a JSON object (map-fixed)")
    subs = {p["svcOperationCfsParam"]: p for p in (param.get("dataDescriptor") or {}).get("params", [])}
    if not subs:
        return
    unknown = sorted(set(obj) - set(subs))
    if unknown:
        raise _bad(param, f"unknown keys {unknown}; allowed: {sorted(subs)}")
    for key, sub_value in obj.items():
        _check_native(subs[key], sub_value, lookup)


def check_value(param: Json, value: str, lookup: InstanceLookup) -> None:
    """Raise ApiError (400/422, CFML body) unless `value` is acceptable for `param`."""
    if value == "" and A.EMPTY_MEANS_UNSET:
        return
    dtype = param["dataType"]
    if dtype == "integer" and not INTEGER.match(value.strip()):
        raise _bad(param, f"expected an integer, got '{value}'")
    if dtype == "boolean" and value.strip().lower() not in A.BOOLEAN_STRINGS:
        raise _bad(param, f"expected true or false, got '{value}'")
    if dtype in ("json", "map-fixed", "array"):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise _bad(param, f"malformed JSON ({exc.msg} at position {exc.pos})") from exc
        if dtype == "json" and not isinstance(parsed, (dict, list)):
            raise _bad(param, "expected a JSON object")
        if dtype == "map-fixed":
            _check_map_fixed(param, parsed, lookup)
        if dtype == "array":
            if not isinstance(parsed, list):
                raise _bad(param, "expected a JSON array")
            if param.get("dataDescriptor"):
                for item in parsed:
                    _check_map_fixed(param, item, lookup)
    choices = param.get("choices")
    if choices and value not in choices:
        raise _bad(param, f"'{value}' is not one of {', '.join(choices)}")
    check_reference(param, value, lookup)


def missing_required(params: list[Json], values: dict[int, str]) -> list[str]:
    """Codes of required params with no value (a default does not count: clients send required ones)."""
    return [
        p["svcOperationCfsParam"]
        for p in params
        if p.get("isRequired") and values.get(p["svcOperationCfsParamId"], "") == ""
    ]


def check_record_value(svc_short: str, values: dict[str, str], tag: str) -> None:
    """DNS records (deck-api.md 3.4): CNAME values need a trailing dot. `values`: the record's params by code."""
    if svc_short != A.DNS_RECORD_SVC_SHORT or values.get("recordType", "").upper() != "CNAME":
        return
    target = values.get("recordInput", "")
    if target and not target.endswith("."):
        raise cfml_error(
            A.PARAM_ERROR_STATUS, f"CNAME value '{target}' must be a fully qualified name ending with a dot", tag
        )
