"""The contract suite's plan, derived from the specs alone (issue 23): for every instance module, a value for every
parameter the task can set, valid for the type, choices, defaults and references the spec gives, and different
from the API default, so that applying it is visible in the live instance.

Every parameter counts (issue 23: none is silently skipped): the service's params, the redeploy's `git_revision`
(P14), references to other instances (their live value is the uid of the instance the task named: a required one
names the instance its setup task made, an optional one gets an instance of its own) and references inside objects
(the uid of an instance made earlier). A parameter the suite cannot check is listed in EXCUSED with the reason: the
suite counts it as excused, never skips it silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.integration.modules.smoke_plan import VALUES, load_specs, plan

RESULT_UID = re.compile(r"\{\{ r(\d+)\.instance_uid \}\}")  # the uid an earlier task of the playbook registered
UID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")  # compared case-blind

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
# Why some checked parameters have no changed-alone case (parameter_cases); each is counted as excused.
REFERENCE_REASON = "a reference to another instance: a change needs a second instance; the create case compares its uid"


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
    references: set[str] = field(default_factory=set)  # checked options that name another instance (by uid)
    nested: dict[str, str] = field(default_factory=dict)  # "option.sub_option" of a reference inside an object -> code


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


def task_params(module: str) -> list[dict[str, Any]]:
    """Every parameter a task of the module can give: the service's, and the redeploy's `git_revision` (P14)."""
    spec = load_specs()[module]
    redeploy = [p for op in spec["operations"] if op["name"] == "redeploy" for p in op.get("params") or []]
    return [*spec["params"], *redeploy]


def params_by_option(module: str) -> dict[str, dict[str, Any]]:
    return {param["option"]: param for param in task_params(module)}


def settable(param: dict[str, Any]) -> bool:
    """A param of the create, modify or redeploy operation (a task can set it)."""
    return bool({"create", "modify", "redeploy"} & set(param.get("operations") or {}))


def contract_plan(module: str, suffix: str) -> ContractPlan:
    smoke = plan(module, suffix)
    create = smoke.tasks[smoke.create_index]
    args = dict(create[f"nubes.cloud.{module}"])
    result = ContractPlan(module, smoke.tasks[: smoke.create_index], list(smoke.raw), args)
    for param in task_params(module):
        if settable(param):
            add_param(result, param, suffix)
    return result


def add_param(contract: ContractPlan, param: dict[str, Any], suffix: str) -> None:
    """Set one parameter in the contract's task, and say how it is checked live, or why it is excused."""
    option = param["option"]
    if param["secret"]:
        contract.excused[option] = SECRET_REASON
        return
    if (contract.module, option) in EXCUSED:
        contract.excused[option] = EXCUSED[(contract.module, option)]
        return
    if param["ref_service_id"] is not None:
        add_reference(contract, param, suffix)
        return
    if option not in contract.args:
        value = CHOSEN.get((contract.module, option), contract_value(param))
        if value is None:
            contract.excused[option] = f"no value of type {param['type']} can be derived from the spec alone"
            return
        contract.args[option] = value
    add_nested_references(contract, param, suffix)
    contract.checked[option] = param["code"]
    contract.expected[option] = expected_live(contract.args[option], param)


def add_reference(contract: ContractPlan, param: dict[str, Any], suffix: str) -> None:
    """A reference to another instance: a required one names the instance a setup task made (by display name, or a
    uid made through the API), an optional one an instance of its own, made first. Live it holds that uid."""
    option, service_id = param["option"], param["ref_service_id"]
    if option not in contract.args:
        index = instance_of(contract, service_id, suffix)
        if index is None:
            contract.excused[option] = f"an optional reference to service {service_id}, which no module creates"
            return
        contract.args[option] = created_name(contract, index)
    contract.checked[option] = param["code"]
    contract.expected[option] = uid_of(contract, service_id, contract.args[option])
    contract.references.add(option)


def add_nested_references(contract: ContractPlan, param: dict[str, Any], suffix: str) -> None:
    """A reference inside an object (postgres `tls_settings.s3_backup_uid`): the uid of an instance of its service
    made earlier in the run, compared live inside the object; excused where there is none to name."""
    value = contract.args.get(param["option"])
    for sub in [s for s in param["sub_params"] if s["ref_service_id"] is not None]:
        name = f"{param['option']}.{sub['option']}"
        index = instance_of(contract, sub["ref_service_id"], suffix) if isinstance(value, dict) else None
        if index is None or not isinstance(value, dict):
            contract.excused[name] = "a reference inside a list of objects, or to a service no module creates"
            continue
        value = {**value, sub["option"]: f"{{{{ r{index}.instance_uid }}}}"}
        contract.args[param["option"]] = value
        contract.nested[name] = sub["code"]


def module_of(service_id: int) -> str | None:
    return next((name for name, spec in load_specs().items() if spec["service_id"] == service_id), None)


def setup_index(contract: ContractPlan, module: str, name: str | None = None) -> int | None:
    """The setup task that creates an instance of `module` (named `name`, when given)."""
    key = f"nubes.cloud.{module}"
    for index, task in enumerate(contract.setup_tasks):
        if key in task and (name is None or task[key].get("resource_name") == name):
            return index
    return None


def created_name(contract: ContractPlan, index: int) -> str:
    args = next(value for key, value in contract.setup_tasks[index].items() if key.startswith("nubes.cloud."))
    return str(args["resource_name"])


def instance_of(contract: ContractPlan, service_id: int, suffix: str) -> int | None:
    """The setup task that makes an instance of the service: one the plan has, else its own plan's tasks added."""
    module = module_of(service_id)
    if module is None or module == contract.module:
        return None
    index = setup_index(contract, module)
    return index if index is not None else include_plan(contract, module, suffix)


def include_plan(contract: ContractPlan, module: str, suffix: str) -> int:
    """Add the tasks that make an instance of `module` (its smoke plan up to its create; each task once, references
    to earlier results renumbered) to the setup tasks; returns the index of its create."""
    other = plan(module, suffix)
    moved: dict[int, int] = {}
    for old, task in enumerate(other.tasks[: other.create_index + 1]):
        text = RESULT_UID.sub(lambda m: f"{{{{ r{moved[int(m.group(1))]}.instance_uid }}}}", json.dumps(task))
        renumbered = json.loads(text)
        key = next(k for k in renumbered if k.startswith("nubes.cloud."))
        index = setup_index(contract, key[len("nubes.cloud.") :], renumbered[key]["resource_name"])
        if index is None:
            contract.setup_tasks.append(renumbered)
            index = len(contract.setup_tasks) - 1
        moved[old] = index
    contract.raw.extend(raw for raw in other.raw if raw not in contract.raw)
    return moved[other.create_index]


def uid_of(contract: ContractPlan, service_id: int, value: Any) -> str:
    """What the live param holds for a reference the task gives as `value`: the uid, as a template the test resolves
    (an earlier task's registered uid, or the uid made through the API)."""
    text = str(value)
    if "{{" in text:
        return text  # already a uid: an earlier result's, or raw_uids['<name>']
    module = module_of(service_id)
    index = setup_index(contract, module, text) if module is not None else None
    if index is None:
        raise ValueError(f"{contract.module}: no setup task makes the {service_id} instance {text!r}")
    return f"{{{{ r{index}.instance_uid }}}}"


def after_a_modify(contract: ContractPlan, args: dict[str, Any]) -> dict[str, Any]:
    """expected_of once a modify ran (issue 23, P41): a modify sends no sub-key its dataDescriptor lacks (postgres
    `tls_settings.s3_backup_uid`), and the emulator's modify replaces the object, so such sub-keys are not live."""
    expected = expected_of(contract, args)
    spec = params_by_option(contract.module)
    for option in contract.checked:
        dropped = {s["code"] for s in spec[option]["sub_params"] if create_only_sub(spec[option], s)}
        if dropped and isinstance(expected.get(option), dict):
            expected[option] = {code: value for code, value in expected[option].items() if code not in dropped}
    return expected


def create_only_sub(param: dict[str, Any], sub: dict[str, Any]) -> bool:
    """A sub-param of a modifiable param that the modify operation's dataDescriptor lacks (the spec's operations)."""
    return "modify" in (param.get("operations") or {}) and "modify" not in (sub.get("operations") or {})


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
    task_text, live_text = as_live_text(wanted), as_live_text(live)
    return task_text == live_text or bool(UID.fullmatch(task_text) and task_text.lower() == live_text.lower())


@dataclass(frozen=True)
class ParameterCase:
    """One modifiable option changed alone (`value`), then set back out of band by the platform (`drift`)."""

    option: str
    code: str
    value: Any
    drift: Any  # the previous value, as the emulator's live params type it
    operation: str = "modify"  # what applies a change: the modify, or for `git_revision` the redeploy (P14)


def parameter_cases(contract: ContractPlan) -> tuple[list[ParameterCase], dict[str, str]]:
    """The per-parameter cases of a module (every checked option that the modify operation takes), and the ones
    excused with a reason. They start from the contract's task, references inside objects included (issue 23)."""
    spec = params_by_option(contract.module)
    cases: list[ParameterCase] = []
    excused: dict[str, str] = {}
    args = contract.args
    for option in sorted(contract.checked):
        param = spec[option]
        operations = param.get("operations") or {}
        if "redeploy" in operations:  # P14: changed alone by a redeploy, and corrected by one after an outside change
            revision = args[option]
            cases.append(ParameterCase(option, param["code"], another_value(param, revision), revision, "redeploy"))
            continue
        if param["immutable"] or "modify" not in operations:
            continue  # create-only: covered by the create case
        if option in contract.references:
            excused[option] = REFERENCE_REASON
            continue
        if (contract.module, option) in CHOSEN:
            excused[option] = "a failure switch of the test service: any other value makes its operation fail"
            continue
        current = args[option]
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
    """The checked options of `args` as the live params hold them (expected_live; a reference: the uid it names)."""
    spec = params_by_option(contract.module)
    expected = {option: expected_live(args[option], spec[option]) for option in contract.checked}
    return {**expected, **{option: contract.expected[option] for option in contract.references}}


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
