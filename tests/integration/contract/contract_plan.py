"""The contract suite's plan, derived from the specs alone (issue 23): for every instance module, a value for every
parameter the task can set, valid for the type, choices, defaults and references the spec gives, and different
from the API default, so that applying it is visible in the live instance.

A parameter the suite cannot check is listed in EXCUSED with the reason: the suite counts it as excused, never
skips it silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.integration.modules.smoke_plan import VALUES, load_specs, plan

# (module, option) -> why the suite cannot compare the live value with the task's
EXCUSED: dict[tuple[str, str], str] = {}
# (module, option) -> the value to set where the derived one (not the API default) would make the create fail on
# purpose: the test service's failure switches. Still set and compared live.
CHOSEN: dict[tuple[str, str], Any] = {
    ("dummy", "fail_at_start"): False,  # true: the test service fails its operation at the start
    ("dummy", "fail_in_progress"): False,  # true: ... while it runs
}
# Every secret option: the API never returns a secret, so its live value cannot be read back (deck-api.md §4).
SECRET_REASON = "a secret: the API never returns it, so the live value cannot be compared"


@dataclass
class ContractPlan:
    """One module's contract run: the tasks that make its references, then its own task with every value."""

    module: str
    setup_tasks: list[dict[str, Any]]
    raw: list[tuple[int, str]]
    args: dict[str, Any]  # the module's task: every settable option
    checked: dict[str, str] = field(default_factory=dict)  # option -> API code, compared live
    expected: dict[str, Any] = field(default_factory=dict)  # option -> its value as the live params hold it
    excused: dict[str, str] = field(default_factory=dict)  # option -> reason


def contract_value(param: dict[str, Any]) -> Any:
    """A valid value that differs from the API default (None: none can be derived from the spec)."""
    default = param["default"]
    if param["choices"]:
        others = [c for c in param["choices"] if c != default]
        choice = (others or param["choices"])[0]
        return int(choice) if param["type"] == "integer" else choice
    if param["option"] in VALUES:
        return VALUES[param["option"]]
    kind = param["type"]
    if kind == "boolean":
        return str(default).lower() != "true"
    if kind == "integer":
        try:
            return int(str(default)) + 1
        except (TypeError, ValueError):
            return 2
    if kind == "json":
        return {"contract": "on"}
    if kind == "map-fixed":
        return sub_object(param)
    if kind == "array":
        if param["sub_params"]:
            return [sub_object(param)]  # an array of objects described by its sub-params
        items = json.loads(default) if default else []
        return [*items, "8080" if all(str(i).isdigit() for i in items) and items else "192.0.2.10"]
    if default is not None and str(default).lstrip("-").isdigit():
        return str(int(str(default)) + 1)  # a number the API types as text (s3_bucket max_size)
    return f"contract-{param['option'].replace('_', '-')}"


def another_value(param: dict[str, Any], current: Any) -> Any:
    """A valid value that differs from `current` (the value the instance has now), for the per-parameter cases;
    None when the spec gives no second one (an object or a list, or a value the emulator checks by form)."""
    if param["type"] in ("map-fixed", "array"):
        return None
    if param["choices"]:
        others = [c for c in param["choices"] if str(c) != str(current)]
        if not others:
            return None
        return int(others[0]) if param["type"] == "integer" else others[0]
    if isinstance(current, bool):
        return not current
    if isinstance(current, int):
        return current + 1
    if isinstance(current, dict):
        return {**current, "contract": "changed"}
    if param["option"] in VALUES:
        return None
    text = str(current)
    return str(int(text) + 1) if text.lstrip("-").isdigit() else f"{text}-2"


def typed_live(value: Any, param: dict[str, Any]) -> Any:
    """A task value as the emulator's `state.params` types it, for a platform change: integers and booleans as
    JSON numbers and booleans, JSON objects as objects, the rest as text."""
    if param["type"] == "integer":
        return int(value)
    if param["type"] == "boolean":
        return bool(value)
    return value


def sub_object(param: dict[str, Any]) -> dict[str, Any] | None:
    """An object of a map-fixed param (or of an array's items) built from its sub-params: each one's contract value,
    a reference sub-param left out (its default applies). None when it has no sub-params."""
    subs = [sub for sub in param["sub_params"] if sub["ref_service_id"] is None and "uid" not in sub["code"].lower()]
    if not subs:
        return None
    return {sub["option"]: contract_value(sub) for sub in subs}


def expected_live(value: Any, param: dict[str, Any]) -> Any:
    """The task's value as the live params hold it: an object's sub-options by their API codes (as text)."""
    codes = {sub["option"]: sub["code"] for sub in param["sub_params"]}
    if isinstance(value, dict):
        return {codes.get(key, key): as_live_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expected_live(item, param) for item in value]
    return value


def settable(param: dict[str, Any]) -> bool:
    """A param of the create or modify operation, not a reference (references are the plan's own tasks)."""
    ops = param.get("operations") or {}
    return bool({"create", "modify"} & set(ops)) and param["ref_service_id"] is None


def contract_plan(module: str, suffix: str) -> ContractPlan:
    spec = load_specs()[module]
    smoke = plan(module, suffix)
    create = smoke.tasks[smoke.create_index]
    args = dict(create[f"nubes.cloud.{module}"])
    result = ContractPlan(module, smoke.tasks[: smoke.create_index], smoke.raw, args)
    for param in spec["params"]:
        option = param["option"]
        if not settable(param):
            continue
        if param["secret"]:
            result.excused[option] = SECRET_REASON
            continue
        if (module, option) in EXCUSED:
            result.excused[option] = EXCUSED[(module, option)]
            continue
        if option not in args:
            value = CHOSEN.get((module, option), contract_value(param))
            if value is None:
                result.excused[option] = f"no value of type {param['type']} can be derived from the spec alone"
                continue
            args[option] = value
        result.checked[option] = param["code"]
        result.expected[option] = expected_live(args[option], param)
    return result


def covers(wanted: Any, live: Any) -> bool:
    """Whether the live value holds the task's: equal text for scalars; for an object, every key the task gives
    (the API adds the defaults of the others); for a list, item by item."""
    if isinstance(live, str) and isinstance(wanted, (dict, list)):
        try:
            live = json.loads(live)
        except ValueError:
            return False
    if isinstance(wanted, dict):
        return isinstance(live, dict) and all(covers(value, live.get(key)) for key, value in wanted.items())
    if isinstance(wanted, list):
        return isinstance(live, list) and len(live) == len(wanted) and all(map(covers, wanted, live))
    return as_live_text(wanted) == as_live_text(live)


@dataclass(frozen=True)
class ParameterCase:
    """One modifiable option changed alone (`value`), then set back out of band by the platform (`drift`)."""

    option: str
    code: str
    value: Any
    drift: Any  # the previous value, as the emulator's live params type it


def parameter_cases(contract: ContractPlan) -> tuple[list[ParameterCase], dict[str, str]]:
    """The per-parameter cases of a module (every checked option that the modify operation takes), and the ones
    excused with a reason."""
    spec = {p["option"]: p for p in load_specs()[contract.module]["params"]}
    cases: list[ParameterCase] = []
    excused: dict[str, str] = {}
    for option in sorted(contract.checked):
        param = spec[option]
        if param["immutable"] or "modify" not in (param.get("operations") or {}):
            continue  # create-only: covered by the create case
        if (contract.module, option) in CHOSEN:
            excused[option] = "a failure switch of the test service: any other value makes its operation fail"
            continue
        current = contract.args[option]
        if isinstance(current, str) and "{{" in current:
            excused[option] = "a reference to another instance (the uid an earlier task registered)"
            continue
        value = another_value(param, current)
        if value is None and option in VALUES:
            excused[option] = "a value of a checked form (a URL, an address, a name): the suite knows one, not two"
            continue
        if value is None:
            excused[option] = f"no second valid {param['type']} value can be derived from the spec alone"
            continue
        cases.append(ParameterCase(option, param["code"], value, typed_live(current, param)))
    return cases, excused


def expected_of(contract: ContractPlan, args: dict[str, Any]) -> dict[str, Any]:
    """The checked options of `args` as the live params hold them (expected_live)."""
    spec = {p["option"]: p for p in load_specs()[contract.module]["params"]}
    return {option: expected_live(args[option], spec[option]) for option in contract.checked}


def lifecycle_steps(module: str) -> list[tuple[str, dict[str, Any], str]]:
    """The destroy and adopt steps the module's service has: (name, extra task options, live status after)."""
    life = load_specs()[module]["lifecycle"]
    if life["suspendable"]:
        steps: list[tuple[str, dict[str, Any], str]] = [
            ("absent", {"state": "absent"}, "suspended"),
            ("adopt", {"adopt_existing_on_create": True}, "running"),
        ]
        return [*steps, ("deleted", {"state": "deleted"}, "deleted")] if life["deletable"] else steps
    if life["deletable"]:
        return [("absent", {"state": "absent"}, "deleted")]
    return [("absent", {"state": "absent"}, "running")]  # no API operation: only forgotten, with a warning


def as_live_text(value: Any) -> str:
    """A task value as the API's text (what `state.params` holds, compared as text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return "" if value is None else str(value)


def instance_modules() -> list[str]:
    """Every module with an instance to create (the specs), in name order."""
    return sorted(load_specs())
