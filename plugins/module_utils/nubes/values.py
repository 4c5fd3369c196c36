# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The task's values against the live ones, and the values an operation is sent (WithDefaults).

Live state is the truth: a param differs when the task's value differs from the instance's (or the
sub-resource's) current value as the API reports it, compared by type (numbers, booleans, JSON, UUIDs in
either case). The record is never consulted for params; only secrets, which the API never returns, are
compared with the salted digests of what was last applied (see records.py).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import CfsParam, as_bool
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import dump_json, zero_value
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ParamSpec


def comparable(value: Any) -> Any:
    """Scalars as their API text, containers recursively; so 175200, "175200" and true/"true" compare equal."""
    if isinstance(value, dict):
        return {str(k): comparable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return None
    return str(value).strip()


def _parsed(text: str) -> Any:
    try:
        return comparable(json.loads(text))
    except ValueError:
        return comparable(text)


def same_value(param: ParamSpec, live: str, desired: str, skip: Iterable[str] = ()) -> bool:
    """Whether the live value already is the task's value, by the param's type (`skip`: sub-keys of a map-fixed
    value left out of the comparison)."""
    if live == desired:
        return True
    if param.type == "boolean":
        return as_bool(live) == as_bool(desired)
    if param.type == "integer":
        try:
            return int(str(live).strip()) == int(str(desired).strip())
        except ValueError:
            return live.strip() == desired.strip()
    if param.type in ("json", "array"):
        return bool(_parsed(live) == _parsed(desired))
    if param.type == "map-fixed":
        return _same_map(param, _parsed(live), _parsed(desired), frozenset(skip))
    if param.ref_service_id is not None:
        return live.strip().lower() == desired.strip().lower()  # UUIDs occur in both cases
    return live.strip() == desired.strip()


def _same_map(param: ParamSpec, live: Any, desired: Any, skip: frozenset[str] = frozenset()) -> bool:
    """Every sub-key of the task (less `skip`) has its value live; a sub-key absent live is no difference when the
    task's value is empty or the sub-param's default (P39, P41: an operation may not carry every sub-key)."""
    if not isinstance(live, dict) or not isinstance(desired, dict):
        return bool(live == desired)
    defaults = {sub.code: comparable(sub.default) for sub in param.sub_params}
    for key, value in desired.items():
        if key in skip:
            continue
        if key in live:
            if live[key] != value:
                return False
        elif value not in ("", None, {}, []) and value != defaults.get(key):
            return False
    return True


def differing(
    params: Iterable[ParamSpec], desired: Mapping[str, str], live: Mapping[str, Optional[str]], immutable: bool
) -> List[str]:
    """Codes of the task's non-secret params (create-only ones when `immutable`) whose live value differs.

    P39 nil guard: a param the live state lacks (added after the instance was created) differs only when the
    task gives it a value other than the zero value of its type.

    A modifiable map-fixed param differs only by the sub-keys the modify operation takes; with `immutable`, its
    create-only sub-keys are key params too, named ``code.subCode (option.sub_option)`` (issue 23, P41/P23).
    """
    found: List[str] = []
    for param in params:
        if param.secret or param.code not in desired:
            continue
        value = desired[param.code]
        current = live.get(param.code)
        if param.immutable != immutable:
            if immutable and current is not None:
                found.extend(_create_only_sub_mismatches(param, current, value))
            continue
        if current is None:
            if not immutable and value not in ("", zero_value(param.type)):
                found.append(param.code)
        elif not same_value(param, current, value, skip=[s.code for s in create_only_subs(param)]):
            found.append(param.code)
    return sorted(found)


def create_only_subs(param: ParamSpec) -> List[ParamSpec]:
    """Issue 23 (P41): the sub-params of a modifiable map-fixed param that the modify operation's dataDescriptor
    lacks: the create sets them, a modify never sends them (fit_map_fixed drops them)."""
    if param.immutable or param.type != "map-fixed":
        return []
    return [sub for sub in param.sub_params if not sub.in_operation("modify")]


def _sub_values(param: ParamSpec, live: str, desired: str) -> List[Tuple[ParamSpec, str, str]]:
    """(sub-param, live text, task text) of each create-only sub-key the task gives a non-empty value."""
    subs = create_only_subs(param)
    have, want = (_parsed(live), _parsed(desired)) if subs else (None, None)
    if not isinstance(have, dict) or not isinstance(want, dict):
        return []
    found = []
    for sub in subs:
        wanted = want.get(sub.code)
        if wanted not in (None, ""):
            current = have.get(sub.code)
            found.append((sub, "" if current is None else str(current), str(wanted)))
    return found


def _create_only_sub_mismatches(param: ParamSpec, live: str, desired: str) -> List[str]:
    """P23 for a sub-key: a create-only sub-key whose live value is set and differs from the task's (issue 23)."""
    return [
        f"{param.code}.{sub.code} ({param.option}.{sub.option})"
        for sub, current, wanted in _sub_values(param, live, desired)
        if current and not same_value(sub, current, wanted)
    ]


def create_only_subs_unset(
    params: Iterable[ParamSpec], desired: Mapping[str, str], live: Mapping[str, Optional[str]]
) -> List[str]:
    """Issue 23: warnings for the create-only sub-keys the task sets that the live object lacks or holds empty (a
    modify replaced the object without them). No write can set them, so they are no reason to write."""
    warnings: List[str] = []
    for param in params:
        current = live.get(param.code)
        if param.secret or param.code not in desired or current is None:
            continue
        for sub, have, _wanted in _sub_values(param, current, desired[param.code]):
            if not have:
                name = f"{param.option}.{sub.option}"
                warnings.append(
                    f"{name}: taken on create only (the modify operation does not take it), and the live instance "
                    f"has none; it is left unset: to have it, create a new instance with it under another resource_name"
                )
    return warnings


def value_plan(
    cfs_params: List[CfsParam],
    desired: Mapping[str, str],
    current: Optional[Mapping[str, Optional[str]]] = None,
    placeholders: Iterable[str] = (),
) -> List[Tuple[CfsParam, str]]:
    """The value for every param of the operation (P38 WithDefaults: all of them, not only the task's).

    The task's value; else the current (live) value; else the operation's pre-filled value; else the API's
    default, unless the spec flags it a placeholder (`placeholders`: codes, `<code>.<sub code>` for sub-params;
    issue 23); else, only when none exists, the zero value of its type (P35). A secret the task does not give is
    never sent (it is not echoed back, so it would be reset). map-fixed values get their dataDescriptor's
    defaults (P36) and lose keys it does not know (P41). Rows already holding exactly the value are skipped.
    """
    plan: List[Tuple[CfsParam, str]] = []
    given = {code.lower(): value for code, value in desired.items()}
    live = {code.lower(): value for code, value in (current or {}).items() if value is not None}
    flagged = {code.lower() for code in placeholders}
    for param in cfs_params:
        if param.param_id is None:
            continue
        code = param.code.lower()
        value: Optional[str] = given.get(code)
        if value is None and not param.secret:
            value = live.get(code)
        if value is None:
            value = param.value if param.value is not None else None if code in flagged else param.default
        if value is None:
            if param.secret:
                continue  # never reset a secret the task does not mention
            value = zero_value(param.data_type)  # P35: a placeholder default is no default (issue 23)
        value = fit_map_fixed(value, param, flagged)
        if param.value_uid and param.value == value:
            continue
        plan.append((param, value))
    return plan


def fit_map_fixed(value: str, param: CfsParam, placeholders: Iterable[str] = ()) -> str:
    """P36: absent sub-fields take the dataDescriptor's defaults ("{}" becomes the full default object), except
    placeholders (`<code>.<sub code>`, lower case; issue 23); P41: the spec holds the union of sub-params over
    operations, this operation may accept fewer, so keys its descriptor does not know are dropped."""
    if not param.sub_codes or not value.strip().startswith("{"):
        return value
    try:
        obj = json.loads(value)
    except ValueError:
        return value
    if not isinstance(obj, dict):
        return value
    skipped = set(placeholders)
    fitted: Dict[str, Any] = {
        k: v for k, v in param.sub_defaults.items() if v is not None and f"{param.code}.{k}".lower() not in skipped
    }
    fitted.update({k: v for k, v in obj.items() if k in param.sub_codes})
    return value if fitted == obj else dump_json(fitted)


def without_create_only_subs(
    params: Iterable[ParamSpec], values: Mapping[str, Optional[str]]
) -> Dict[str, Optional[str]]:
    """`values` as a modify sends them (issue 23, P41): map-fixed objects without their create-only sub-keys, which
    the modify drops (fit_map_fixed), so the diff shows them going."""
    result: Dict[str, Optional[str]] = dict(values)
    for param in params:
        text = result.get(param.code)
        dropped = {sub.code for sub in create_only_subs(param)}
        if not dropped or not isinstance(text, str) or not text.lstrip().startswith("{"):
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            continue
        if isinstance(obj, dict) and dropped & set(obj):
            result[param.code] = dump_json({k: v for k, v in obj.items() if k not in dropped})
    return result
