# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tolerant readers of the API's objects: unknown fields ignored, UUIDs in either case, values as strings."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_FULL_RE = re.compile(r"^" + UUID_RE.pattern + r"$")

# Normalised statuses reported as `status`; `status_raw` is what the API said.
MISSING = "missing"
CREATING = "creating"
RUNNING = "running"
SUSPENDED = "suspended"
DELETED = "deleted"
NOT_CREATED = "not_created"
PENDING = "pending"
FAILED = "failed"

_TRANSITIONAL = ("suspending", "resuming", "modifying", "deleting", "pending", "processing", "redeploying", "updating")
_RUNNING = ("running", "active", "deployed", "ready", "работает", "запущен")
_SUSPENDED = ("suspended", "приостановлен")
_FAILED = ("failed", "error", "не удалось", "не заполнена", "ошибка")


UID_FORM = "a UUID: 8-4-4-4-12 hex digits"


def is_uuid(value: Any) -> bool:
    """The API's uid form (deck-api.md 2: every `*Uid` is a UUID, in either case): the one check of every uid the
    task gives (context.check_uid_options), the state records hold (state_format.py) and a URL carries (path_uid)."""
    return isinstance(value, str) and bool(UUID_FULL_RE.match(value.strip()))


def path_uid(value: Any, what: str) -> str:
    """Issue 24: an id about to become part of a URL path, checked to be a UUID (stripped), else refused before the
    request. The last line of defence: the task's uid options and the recorded uids are checked earlier, each with
    its own message; this one catches whatever else would put `../../etc/passwd` or a query into a path."""
    if not is_uuid(value):
        raise InputError(
            f"{what} {str(value)[:80]!r} is not {UID_FORM}, so it is not sent to the API as part of a URL; check "
            "where it came from: the task's options, the state, or an earlier answer of the API"
        )
    return str(value).strip()


def same_uid(left: Optional[str], right: Optional[str]) -> bool:
    """UUIDs compare case-insensitively (both cases occur in the API)."""
    return bool(left) and bool(right) and str(left).strip().lower() == str(right).strip().lower()


def uid_from_location(location: Optional[str]) -> Optional[str]:
    """`./<uuid>`, an absolute path or URL ending in a uuid: the last UUID in the header."""
    if not location:
        return None
    found = UUID_RE.findall(location)
    return found[-1] if found else None


def uid_from_body(body: Any, *keys: str) -> Optional[str]:
    """Body fallback: `{<key>: uuid}` (possibly nested one level), or a bare JSON string."""
    if isinstance(body, str) and is_uuid(body):
        return body.strip()
    if isinstance(body, dict):
        for key in keys:
            if is_uuid(body.get(key)):
                return str(body[key]).strip()
        for value in body.values():
            if isinstance(value, dict):
                nested = uid_from_body(value, *keys)
                if nested:
                    return nested
    return None


def as_text(value: Any) -> Optional[str]:
    """Any API value as the API's string form (`true`, `500`, JSON text); None stays None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def as_bool(value: Any) -> Optional[bool]:
    if value is None or value == "" or value == "null":
        return None
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "1", "yes")


def is_set(value: Any) -> bool:
    """dtFinish-style fields: set when non-null, non-empty and not the literal `null`."""
    return value is not None and str(value).strip() not in ("", "null", "None")


def normalize_status(raw: Optional[str], is_deleted: bool = False) -> str:
    """Map `explainedStatus` to missing/creating/running/suspended/deleted/not_created/pending/failed."""
    if is_deleted:
        return DELETED
    text = (raw or "").strip().lower()
    if not text:
        return PENDING
    if text == "deleted" or text == "удалена":
        return DELETED
    if "not created" in text or text == "not_created":
        return NOT_CREATED
    if text.startswith("creat"):
        return CREATING
    if any(word in text for word in _TRANSITIONAL):
        return PENDING
    if any(word in text for word in _SUSPENDED) or text == "suspend":
        return SUSPENDED
    if any(word in text for word in _FAILED):
        return FAILED
    if any(word in text for word in _RUNNING):
        return RUNNING
    return PENDING


class Instance:
    """`GET /instances/{uid}` -> `{"instance": {...}}` (deck-api 4.1)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data
        self.uid: str = str(data.get("instanceUid") or data.get("uid") or "")
        self.display_name: str = str(data.get("displayName") or "")
        service_id = data.get("serviceId", data.get("svcId"))
        self.service_id: Optional[int] = _to_int(service_id)
        self.status_raw: str = str(data.get("explainedStatus") or data.get("status") or "")
        self.is_deleted: bool = bool(as_bool(data.get("isDeleted")))
        self.operation_pending: bool = bool(as_bool(data.get("operationIsPending")))
        self.operation_in_progress: bool = bool(as_bool(data.get("operationIsInProgress")))
        self.created: str = str(data.get("instanceConfigDtCreated") or data.get("dtCreated") or "")
        self.last_operation: Optional[str] = data.get("lastOperation")
        self.last_operation_uid: Optional[str] = data.get("lastOperationUid")
        state = data.get("state")
        self.state: Dict[str, Any] = state if isinstance(state, dict) else {}

    @property
    def status(self) -> str:
        if self.is_deleted:
            return DELETED
        if self.last_operation == "delete" and not self.status_raw:
            return DELETED
        return normalize_status(self.status_raw, self.is_deleted)

    @property
    def busy(self) -> bool:
        return self.operation_pending or self.operation_in_progress

    @property
    def live(self) -> bool:
        return self.status != DELETED

    def available_operations(self) -> Dict[str, int]:
        """operation name (lower case) -> svcOperationId, tolerating `{name}` and `{svcOperation:{id,name}}`."""
        found: Dict[str, int] = {}
        for item in self.data.get("availableOperations") or []:
            if not isinstance(item, dict):
                continue
            name = item.get("operation") or item.get("name")
            op_id = item.get("svcOperationId")
            nested = item.get("svcOperation")
            if isinstance(nested, dict):
                name = name or nested.get("name") or nested.get("operation")
                op_id = op_id if op_id is not None else nested.get("id", nested.get("svcOperationId"))
            number = _to_int(op_id)
            if name and number is not None:
                found[str(name).lower()] = number
        return found

    def available_names(self) -> Optional[Tuple[str, ...]]:
        """Names (lower case) of `availableOperations`; None when the API did not say."""
        items = self.data.get("availableOperations")
        if not isinstance(items, list):
            return None
        names = []
        for item in items:
            if isinstance(item, dict):
                nested = item.get("svcOperation")
                name = item.get("operation") or item.get("name")
                if not name and isinstance(nested, dict):
                    name = nested.get("name") or nested.get("operation")
                if name:
                    names.append(str(name).lower())
        return tuple(names)

    @property
    def service_label(self) -> str:
        """`<svc> (service <id>)`, as diagnostics name a service."""
        svc = self.data.get("svc")
        return "{}(service {})".format(f"{svc} " if svc else "", self.service_id)

    def params(self) -> Dict[str, Optional[str]]:
        """`state.params` as API strings."""
        raw = self.state.get("params")
        return {str(k): as_text(v) for k, v in raw.items()} if isinstance(raw, dict) else {}

    def outputs(self) -> Dict[str, Any]:
        raw = self.state.get("out")
        return raw if isinstance(raw, dict) else {}

    def subresources(self, sub: str) -> List[Dict[str, Any]]:
        raw = self.state.get("subresources")
        items = raw.get(sub) if isinstance(raw, dict) else None
        return [item for item in items or [] if isinstance(item, dict)]


class CfsParam:
    """One param of an operation instance (`instanceOperation.cfsParams[]`)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data
        param_id = data.get("svcOperationCfsParamId")
        self.param_id: Optional[int] = _to_int(param_id)
        self.code: str = str(data.get("svcOperationCfsParam") or data.get("code") or data.get("name") or "")
        self.data_type: str = str(data.get("dataType") or "string")
        self.required: bool = bool(as_bool(data.get("isRequired")))
        self.value: Optional[str] = as_text(data.get("paramValue"))
        self.default: Optional[str] = unescape_entities(as_text(data.get("defaultValue")))
        self.value_uid: Optional[str] = data.get("instanceOperationCfsParamUid") or None
        self.secret: bool = bool(as_bool(data.get("isSecret")))
        descriptor = data.get("dataDescriptor")
        subs = descriptor.get("params") if isinstance(descriptor, dict) else None
        subs = [s for s in subs or [] if isinstance(s, dict)]
        self.sub_codes: List[str] = [str(s.get("svcOperationCfsParam") or s.get("code")) for s in subs]
        # P36: the dataDescriptor's sub-param defaults, as API strings
        self.sub_defaults: Dict[str, Optional[str]] = {
            code: unescape_entities(as_text(s.get("defaultValue"))) for code, s in zip(self.sub_codes, subs)
        }


class Operation:
    """`GET /instanceOperations/{uid}` -> `{"instanceOperation": {...}}` (deck-api 5.2)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data
        self.uid: str = str(data.get("instanceOperationUid") or "")
        self.operation: str = str(data.get("operation") or "")
        self.is_pending: bool = bool(as_bool(data.get("isPending")))
        self.is_in_progress: bool = bool(as_bool(data.get("isInProgress")))
        self.is_successful: Optional[bool] = as_bool(data.get("isSuccessful"))
        self.finished: bool = is_set(data.get("dtFinish"))
        self.submitted: bool = is_set(data.get("dtSubmit")) or is_set(data.get("dtStart"))
        self.error_log: str = str(data.get("errorLog") or "")
        duration = data.get("duration")
        self.duration: Optional[float] = float(str(duration)) if _is_number(duration) else None
        self.cfs_params: List[CfsParam] = [CfsParam(p) for p in data.get("cfsParams") or [] if isinstance(p, dict)]
        stages = data.get("stages")
        self.stages: List[Dict[str, Any]] = [s for s in stages or [] if isinstance(s, dict)]

    @property
    def started(self) -> bool:
        """The operation was run (queued, running or finished)."""
        return self.is_pending or self.is_in_progress or self.submitted or self.finished

    def first_failed_stage(self) -> Optional[str]:
        for stage in self.stages:
            if as_bool(stage.get("isSuccessful")) is False:
                return str(stage.get("stage") or "")
        return None


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        int(str(value))
    except (TypeError, ValueError):
        return False
    return True


def _to_int(value: Any) -> Optional[int]:
    return int(str(value)) if _is_int(value) else None


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def unescape_entities(value: Optional[str]) -> Optional[str]:
    """Defaults may carry HTML entities (`{ &quot;param&quot;: ... }`, deck-api 3.3)."""
    if value is None or "&" not in value:
        return value
    import html

    return html.unescape(value)


def lookup_dotted(data: Mapping[str, Any], code: str) -> Any:
    """`a.b.c` in a nested mapping, or a flat key holding the dots (outputs are read both ways); None when absent."""
    if code in data:
        return data[code]
    current: Any = data
    for part in code.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current
