# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Conversion between the task's values and the API's strings, per the param's type (spec.ParamSpec).

Rules implemented here: P35 zero-value fallback, P36 map-fixed defaults from the sub-params, P37 s3Uid
resolution inside map-fixed values, reference (`ref_service_id`) name resolution, P41 tolerance of sub-keys
on either side, secret masking, the range of integers (issue 24: `integer_range`). No service-specific logic (P2).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import as_text, is_uuid, unescape_entities
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ParamSpec

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
S3_SERVICE_ID = 12  # P37: any sub-param with s3+uid in its name refers to S3 (service 12)
S3_UID_KEY = re.compile(r"s3.*uid", re.IGNORECASE)
MASK = "********"

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


def integer_range(param: ParamSpec) -> Tuple[int, int]:
    """Issue 24: the values an integer param takes, from catalogue facts (docs/using-modules.md, "Integer values").

    The catalogue types every integer param as int64 (deck-api.md 3.4, the live catalogue), so nothing above 2**63-1
    is sent. Every one of them counts or measures something (memory, disk, CPU, instances, replicas, durations,
    retention, percentages, hours, a failure stage) and none has a negative default; the API gives a negative value
    a meaning only where the default is one (`-1`: no limit, on connection and queue limits). So the lowest value is
    0, or the default when that is negative."""
    try:
        default = int(str(param.default).strip()) if param.default is not None else 0
    except ValueError:
        default = 0
    return max(INT64_MIN, min(0, default)), INT64_MAX


def integer_text(value: Any, param: ParamSpec, option: str) -> str:
    """The API text of an integer value, refused before any write when it is no integer or out of `integer_range`."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise InputError(f"{option} must be an integer, got {value!r}") from None
    low, high = integer_range(param)
    if not low <= number <= high:
        floor = "never negative" if low == 0 else f"at least {low}, its API default"
        raise InputError(
            f"{option} must be an integer from {low} to {high}, got {str(number)[:40]}: the API holds 64-bit integers, "
            f"and this size, count or duration is {floor} (docs/using-modules.md, integer values)"
        )
    return str(number)


def dump_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def map_fixed_default(param: ParamSpec) -> Dict[str, Any]:
    """P36: the object built from the sub-params' defaults (e.g. {"type":"off","durationCA":"175200"})."""
    return {sub.code: sub.default for sub in param.sub_params if sub.default is not None}


class Reference(NamedTuple):
    """A uid given for a reference to an instance of another service."""

    option: str
    service_id: int
    uid: str


class ParamConverter:
    """Turns task values into API strings and back, for one list of params."""

    def __init__(self, params: Iterable[ParamSpec], resolver: Optional[Resolver] = None) -> None:
        self.params: List[ParamSpec] = list(params)
        self.by_option: Dict[str, ParamSpec] = {p.option: p for p in self.params}
        self.by_code: Dict[str, ParamSpec] = {p.code: p for p in self.params}
        self.options: Dict[str, str] = {p.code: p.option for p in self.params}  # API code -> the task's option
        self.resolver = resolver

    # -- task -> API -----------------------------------------------------------------------------

    def desired(self, task: Mapping[str, Any]) -> Dict[str, str]:
        """API strings of the params the task gives (None = not given); references resolved."""
        result: Dict[str, str] = {}
        for option, param in self.by_option.items():
            value = task.get(option)
            if value is not None:
                result[param.code] = self.to_api(value, param)
        return result

    def for_create(self, desired: Mapping[str, str], operation: str = "create") -> Dict[str, str]:
        """Values for a create: the task's, else the API default, else the zero value (P35/P36).

        Fails before any write when a param required by the create has neither a value nor a default, or is
        given as "": validate-cfs counts an empty value as not filled and refuses it, after the instance
        and the operation already exist.
        """
        result = dict(desired)
        missing: List[str] = []
        for param in self.params:
            code = param.code
            if code in result or not param.in_operation(operation):
                if code in result and param.type == "map-fixed" and result[code] in ("", "{}"):
                    result[code] = self._map_fixed_text({}, param)  # P36: "{}" -> defaults
                elif result.get(code) == "" and param.required and param.in_operation(operation):
                    missing.append(param.option)
                continue
            if param.type == "map-fixed":
                result[code] = self._map_fixed_text({}, param)  # P36 (P39: absent -> built default or "{}")
            elif param.default is not None:
                result[code] = unescape_entities(param.default) or ""
            elif param.required:
                missing.append(param.option)
            else:
                result[code] = zero_value(param.type)  # P35 (a placeholder default is no default: issue 23)
        if missing:
            raise InputError(
                "missing required parameter(s) for {}: {}; set them in the task (an empty string counts as not "
                "set){}".format(operation, ", ".join(sorted(missing)), self._placeholder_note(missing))
            )
        return result

    def _placeholder_note(self, options: Iterable[str]) -> str:
        """Issue 23: why a required option the API proposes a value for is still missing."""
        named = [self.by_option[o] for o in sorted(options) if self.by_option[o].placeholder is not None]
        if not named:
            return ""
        samples = ", ".join(f"{p.option} {p.placeholder!r}" for p in named)
        return (
            f"; the API's proposals ({samples}) are placeholders, never applied (docs/using-modules.md, placeholders)"
        )

    def placeholder_codes(self) -> List[str]:
        """Issue 23 (P35, P38): the codes whose API default is a placeholder, never sent unless the task gives them;
        a sub-param as `<param code>.<sub code>`."""
        found = [p.code for p in self.params if p.placeholder is not None]
        for param in self.params:
            found += [f"{param.code}.{sub.code}" for sub in param.sub_params if sub.placeholder is not None]
        return found

    def to_api(self, value: Any, param: ParamSpec) -> str:
        kind = param.type
        if kind == "boolean":
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower()
            if not isinstance(value, bool):
                raise InputError(f"{param.option} must be a boolean (true/false), got {value!r}")
            return "true" if value else "false"
        if kind == "integer":
            return integer_text(value, param, param.option)  # issue 24: int64, and no negative size
        if kind == "map-fixed":
            return self._map_fixed_text(self._parse_json(value, param.option, dict), param)
        if kind == "array":
            items = self._parse_json(value, param.option, list)
            return dump_json([self._sub_object(i, param) if isinstance(i, dict) else i for i in items])
        if kind == "json":
            return dump_json(self._parse_json(value, param.option, (dict, list)))
        text = str(value)
        if param.choices and text not in param.choices:
            raise InputError("{} must be one of {}, got {!r}".format(param.option, ", ".join(param.choices), text))
        if param.ref_service_id is not None and text and not is_uuid(text):
            text = self._resolve(param.ref_service_id, text, param.option)
        elif param.ref_service_id is not None and not text and param.required and self.resolver is not None:
            text = self.resolver(param.ref_service_id, "")  # the empty uid of an instance not created yet
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

    def _sub_object(self, obj: Mapping[str, Any], param: ParamSpec) -> Dict[str, Any]:
        """Option names -> codes; unknown sub-keys kept (P41); scalars as API strings; None dropped."""
        subs: Dict[str, ParamSpec] = {}
        for sub in param.sub_params:
            subs[sub.option] = sub
            subs[sub.code] = sub
        result: Dict[str, Any] = {}
        for key, value in obj.items():
            if value is None:
                continue
            found = subs.get(str(key))
            if found is not None and found.type == "integer":  # issue 24: sub-params are held as int64 too
                integer_text(value, found, f"{param.option}.{found.option}")
            result[found.code if found else str(key)] = value if isinstance(value, (dict, list)) else as_text(value)
        return result

    def _map_fixed_text(self, obj: Mapping[str, Any], param: ParamSpec) -> str:
        merged = map_fixed_default(param)  # P36: defaults for absent sub-fields
        merged.update(self._sub_object(obj, param))
        refs = {sub.code: sub.ref_service_id for sub in param.sub_params}
        for key, value in list(merged.items()):
            if not isinstance(value, str) or not value or is_uuid(value):
                continue
            ref = refs.get(key)
            if ref is not None:  # a sub-param with refSvcId: a name of an instance of that service
                merged[key] = self._resolve(ref, value, f"{param.option}.{key}")
            elif S3_UID_KEY.search(key):  # P37: s3.*uid keys hold S3 (service 12) uids, with or without descriptor
                merged[key] = self._resolve(S3_SERVICE_ID, value, f"{param.option}.{key}")
        return dump_json(merged)

    def with_defaults(self, values: Mapping[str, Optional[str]], operation: str) -> Dict[str, Optional[str]]:
        """What an `operation` sends (P38 WithDefaults, as values.value_plan fills it), for the diff to show before
        any write: `values` (the live params with the task's over them), and every other param of the operation
        with its API default, else its zero value (P35; map-fixed: its built default, P36). A secret the task does
        not give is never sent, so it is not listed (issue 23: the diff shows every value the write changes)."""
        result = dict(values)
        for param in self.params:
            if result.get(param.code) is not None or param.secret or not param.in_operation(operation):
                continue
            if param.type == "map-fixed":
                result[param.code] = self._map_fixed_text({}, param)
            elif param.default is not None:
                result[param.code] = unescape_entities(param.default) or ""
            else:
                result[param.code] = zero_value(param.type)
        return result

    def uid_references(self, values: Mapping[str, Optional[str]]) -> List[Reference]:
        """The uids among API `values` (code -> text) that name an instance of another service: top-level params
        with a refSvcId, and the referencing sub-fields of map-fixed params (P37). Names were resolved (and so
        checked) already; these are checked before any write (issue 23)."""
        found: List[Reference] = []
        for code, text in values.items():
            param = self.by_code.get(code)
            if param is None or not text:
                continue
            if param.ref_service_id is not None and is_uuid(text):
                found.append(Reference(param.option, param.ref_service_id, text))
            elif param.type == "map-fixed" and text.lstrip().startswith("{"):
                refs = {sub.code: sub.ref_service_id for sub in param.sub_params}
                for key, value in json.loads(text).items():
                    service_id = refs.get(key) or (S3_SERVICE_ID if S3_UID_KEY.search(key) else None)
                    if service_id is not None and isinstance(value, str) and is_uuid(value):
                        found.append(Reference(f"{param.option}.{key}", service_id, value))
        return found

    def _resolve(self, service_id: int, name: str, option: str) -> str:
        if self.resolver is None:
            raise InputError(f"{option}: {name!r} is not a UUID and names cannot be resolved here")
        return self.resolver(service_id, name)

    # -- API -> task ---------------------------------------------------------------------------

    def from_api(self, text: Optional[str], param: ParamSpec) -> Any:
        """An API string as the Ansible value of the option (best effort; the raw text on failure)."""
        if text is None:
            return None
        try:
            if param.type == "boolean":
                return text.strip().lower() == "true"
            if param.type == "integer":
                return int(text)
            if param.type in ("map-fixed", "array", "json"):
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
            if param.secret:
                if mask:
                    result[param.option] = MASK
                continue
            result[param.option] = self.from_api(text, param)
        return result

    def secret_codes(self) -> List[str]:
        return [p.code for p in self.params if p.secret]

    def immutable_codes(self) -> List[str]:
        return [p.code for p in self.params if p.immutable]

    def public(self, values: Mapping[str, str]) -> Dict[str, str]:
        """Values without secrets."""
        return {k: v for k, v in values.items() if not (k in self.by_code and self.by_code[k].secret)}


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
