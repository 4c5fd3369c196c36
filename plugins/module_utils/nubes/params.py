# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Conversion between the task's values and the API's strings, per the spec's param `type`.

Rules implemented here: P35 zero-value fallback, P36 map-fixed defaults from the sub-params, P37 s3Uid
resolution inside map-fixed values, reference (`ref_service_id`) name resolution, P39 nil guard, P41
tolerance of sub-keys on either side, secret masking. No service-specific logic (P2).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import as_text, is_uuid, unescape_entities

S3_SERVICE_ID = 12  # P37: any sub-param with s3+uid in its name refers to S3 (service 12)
S3_UID_KEY = re.compile(r"s3.*uid", re.IGNORECASE)
MASK = "********"

ParamDef = Mapping[str, Any]
Resolver = Callable[[int, str], str]  # (service id, display name) -> instance uuid


def kind_of(data_type: str) -> str:
    """Normalise a type (spec `type` or API `dataType`) to string/integer/boolean/array/map-fixed/json."""
    text = (data_type or "string").lower()
    if text == "map-fixed" or ("map" in text and "fixed" in text):
        return "map-fixed"
    if "bool" in text:
        return "boolean"
    if "int" in text or text == "number":
        return "integer"
    if "array" in text or "list" in text:
        return "array"
    if "json" in text or "map" in text or "object" in text:
        return "json"
    return "string"


def zero_value(data_type: str) -> str:
    """P35: integer "0", boolean "false", map-fixed "{}", array "[]", string "" (json: "{}")."""
    return {"integer": "0", "boolean": "false", "map-fixed": "{}", "array": "[]", "json": "{}"}.get(
        kind_of(data_type), ""
    )


def dump_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def option_of(param: ParamDef) -> str:
    return str(param.get("option") or param.get("code"))


def map_fixed_default(param: ParamDef) -> Dict[str, Any]:
    """P36: the object built from the sub-params' defaults (e.g. {"type":"off","durationCA":"175200"})."""
    result: Dict[str, Any] = {}
    for sub in param.get("sub_params") or []:
        if sub.get("default") is not None:
            result[str(sub["code"])] = sub["default"]
    return result


class ParamConverter:
    """Turns task values into API strings and back, for one list of param specs."""

    def __init__(self, params: Iterable[ParamDef], resolver: Optional[Resolver] = None) -> None:
        self.params: List[ParamDef] = list(params)
        self.by_option: Dict[str, ParamDef] = {option_of(p): p for p in self.params}
        self.by_code: Dict[str, ParamDef] = {str(p["code"]): p for p in self.params}
        self.resolver = resolver

    # -- task -> API -----------------------------------------------------------------------------

    def desired(self, task: Mapping[str, Any]) -> Dict[str, str]:
        """API strings of the params the task gives (None = not given); references resolved."""
        result: Dict[str, str] = {}
        for option, param in self.by_option.items():
            value = task.get(option)
            if value is None:
                continue
            result[str(param["code"])] = self.to_api(value, param)
        return result

    def for_create(self, desired: Mapping[str, str], operation: str = "create") -> Dict[str, str]:
        """Values for a create: the task's, else the API default, else the zero value (P35/P36).

        Fails before any write when a param required by the create has neither a value nor a default.
        """
        result = dict(desired)
        missing: List[str] = []
        for param in self.params:
            code = str(param["code"])
            if code in result or not _in_operation(param, operation):
                if code in result and kind_of(param["type"]) == "map-fixed" and result[code] in ("", "{}"):
                    result[code] = self._map_fixed_text({}, param)  # P36: "{}" -> defaults
                continue
            if kind_of(param["type"]) == "map-fixed":
                result[code] = self._map_fixed_text({}, param)  # P36 (P39: absent -> built default or "{}")
            elif param.get("default") is not None:
                result[code] = unescape_entities(str(param["default"])) or ""
            elif param.get("required"):
                missing.append(option_of(param))
            else:
                result[code] = zero_value(param["type"])  # P35
        if missing:
            raise InputError(
                "missing required parameter(s) for {}: {}; set them in the task".format(
                    operation, ", ".join(sorted(missing))
                )
            )
        return result

    def to_api(self, value: Any, param: ParamDef) -> str:
        kind = kind_of(param.get("type", "string"))
        option = option_of(param)
        if kind == "boolean":
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower()
            if not isinstance(value, bool):
                raise InputError(f"{option} must be a boolean (true/false), got {value!r}")
            return "true" if value else "false"
        if kind == "integer":
            try:
                return str(int(str(value).strip()))
            except ValueError:
                raise InputError(f"{option} must be an integer, got {value!r}") from None
        if kind == "map-fixed":
            obj = self._parse_json(value, option, dict)
            return self._map_fixed_text(obj, param)
        if kind == "array":
            items = self._parse_json(value, option, list)
            return dump_json([self._element(item, param) for item in items])
        if kind == "json":
            return dump_json(self._parse_json(value, option, (dict, list)))
        text = str(value)
        if param.get("choices") and text not in [str(c) for c in param["choices"]]:
            raise InputError(
                "{} must be one of {}, got {!r}".format(option, ", ".join(map(str, param["choices"])), text)
            )
        ref = param.get("ref_service_id")
        if ref and text and not is_uuid(text):
            text = self._resolve(int(ref), text, option)
        return text

    def _parse_json(self, value: Any, option: str, expected: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else expected() if not isinstance(expected, tuple) else {}
            except ValueError:
                raise InputError(f"{option} must be valid JSON, got {value[:80]!r}") from None
        if not isinstance(value, expected):
            raise InputError(f"{option} has the wrong type: {type(value).__name__}")
        return value

    def _subs_by_key(self, param: ParamDef) -> Dict[str, ParamDef]:
        subs: Dict[str, ParamDef] = {}
        for sub in param.get("sub_params") or []:
            subs[option_of(sub)] = sub
            subs[str(sub["code"])] = sub
        return subs

    def _element(self, item: Any, param: ParamDef) -> Any:
        if isinstance(item, dict):
            return self._sub_object(item, param)
        return item

    def _sub_object(self, obj: Mapping[str, Any], param: ParamDef) -> Dict[str, Any]:
        """Option names -> codes; unknown sub-keys kept (P41); scalars as API strings; None dropped."""
        subs = self._subs_by_key(param)
        result: Dict[str, Any] = {}
        for key, value in obj.items():
            if value is None:
                continue
            sub = subs.get(str(key))
            code = str(sub["code"]) if sub else str(key)
            result[code] = value if isinstance(value, (dict, list)) else as_text(value)
        return result

    def _map_fixed_text(self, obj: Mapping[str, Any], param: ParamDef) -> str:
        merged = map_fixed_default(param)  # P36: defaults for absent sub-fields
        merged.update(self._sub_object(obj, param))
        refs = {str(s["code"]): s.get("ref_service_id") for s in param.get("sub_params") or []}
        for key, value in list(merged.items()):
            if not isinstance(value, str) or not value or is_uuid(value):
                continue
            if refs.get(key):  # a sub-param with refSvcId: a name of an instance of that service
                merged[key] = self._resolve(int(str(refs[key])), value, f"{option_of(param)}.{key}")
            elif S3_UID_KEY.search(key):  # P37: s3.*uid keys hold S3 (service 12) uids, with or without descriptor
                merged[key] = self._resolve(S3_SERVICE_ID, value, f"{option_of(param)}.{key}")
        return dump_json(merged)

    def _resolve(self, service_id: int, name: str, option: str) -> str:
        if self.resolver is None:
            raise InputError(f"{option}: {name!r} is not a UUID and names cannot be resolved here")
        return self.resolver(service_id, name)

    # -- API -> task ---------------------------------------------------------------------------

    def from_api(self, text: Optional[str], param: ParamDef) -> Any:
        """An API string as the Ansible value of the option (best effort; the raw text on failure)."""
        if text is None:
            return None
        kind = kind_of(param.get("type", "string"))
        try:
            if kind == "boolean":
                return text.strip().lower() == "true"
            if kind == "integer":
                return int(text)
            if kind in ("map-fixed", "array", "json"):
                return json.loads(text) if text.strip() else None
        except ValueError:
            return text
        return text

    def options_view(self, values: Mapping[str, Optional[str]], mask: bool = False) -> Dict[str, Any]:
        """{option: value} for known codes; secrets omitted (or masked when `mask`)."""
        result: Dict[str, Any] = {}
        for code, text in values.items():
            param = self.by_code.get(code)
            if param is None:
                continue
            if param.get("secret"):
                if mask:
                    result[option_of(param)] = MASK
                continue
            result[option_of(param)] = self.from_api(text, param)
        return result

    def secret_codes(self) -> List[str]:
        return [str(p["code"]) for p in self.params if p.get("secret")]

    def immutable_codes(self) -> List[str]:
        return [str(p["code"]) for p in self.params if p.get("immutable")]

    def public(self, values: Mapping[str, str]) -> Dict[str, str]:
        """Values without secrets (what may be written to the state file)."""
        secrets = set(self.secret_codes())
        return {k: v for k, v in values.items() if k not in secrets}


def _in_operation(param: ParamDef, operation: str) -> bool:
    operations = param.get("operations")
    return not operations or operation in operations


def equivalent(left: Optional[str], right: Optional[str]) -> bool:
    """Compare API strings, treating JSON texts that parse to the same value as equal."""
    if left == right:
        return True
    if left is None or right is None:
        return False
    try:
        return bool(json.loads(left) == json.loads(right))
    except ValueError:
        return left.strip() == right.strip()


def digest(salt: str, code: str, value: str) -> str:
    """Salted hash of one applied value: lets secrets be compared without storing them."""
    return hashlib.sha256((f"{salt}\x00{code}\x00{value}").encode()).hexdigest()[:32]


def changed_codes(
    desired: Mapping[str, str],
    recorded_digests: Mapping[str, str],
    salt: str,
    types: Mapping[str, str],
) -> List[str]:
    """Codes whose desired value differs from what was last applied.

    P39 nil guard: a code missing from an older record is not a change when the desired value is
    the zero value (what the fallback would have sent anyway); it never raises.
    """
    changed: List[str] = []
    for code, value in desired.items():
        recorded = recorded_digests.get(code)
        if recorded is None:
            if value in ("", zero_value(types.get(code, "string"))):
                continue
            changed.append(code)
        elif recorded != digest(salt, code, value):
            changed.append(code)
    return sorted(changed)
