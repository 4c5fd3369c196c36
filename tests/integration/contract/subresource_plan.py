"""The contract suite's plan for sub-resource modules (issue 23): every sub-resource of every service (a PostgreSQL
user or database, a RabbitMQ vhost), with a value for each parameter its task can set, derived from the spec as for
the instance modules (contract_plan.py), on a parent made by the parent module's own contract plan.

A parameter the suite cannot compare live (a secret) is excused with the reason; it is still set in every task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.integration.contract.contract_plan import (
    SECRET_REASON,
    ContractPlan,
    another_value,
    contract_plan,
    contract_value,
    expected_live,
    typed_live,
)
from tests.integration.modules.smoke_plan import load_specs

# option -> a value the API takes where the derived one would be refused or meaningless (the only text values of a
# sub-resource whose form matters); still set and compared live
CHOSEN: dict[str, Any] = {"encoding": "LATIN1", "extensions": ["pg_trgm"], "password": "Contract-Pass-1"}
SECOND: dict[str, Any] = {"extensions": ["pg_trgm", "hstore"]}


@dataclass
class SubContract:
    """One sub-resource module's contract run: its parent's plan, then its own task with every value."""

    module: str  # e.g. postgres_user
    sub: str  # the sub-resource's name in the parent's state (`user`)
    key_option: str
    key_code: str
    parent: ContractPlan
    args: dict[str, Any]  # the sub-resource task: every settable option (the parent's uid as a template)
    checked: dict[str, str] = field(default_factory=dict)  # option -> API code, compared live
    expected: dict[str, Any] = field(default_factory=dict)
    excused: dict[str, str] = field(default_factory=dict)
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # option -> the spec's param

    @property
    def parent_index(self) -> int:
        """The index of the parent's create among the playbook's registered results."""
        return len(self.parent.setup_tasks)

    @property
    def key(self) -> str:
        return str(self.args[self.key_option])


def subresource_modules() -> list[str]:
    """Every sub-resource module (`<service>_<sub>`), in name order."""
    return sorted(f"{service}_{sub['name']}" for service, spec in load_specs().items() for sub in spec["subresources"])


def _split(module: str) -> tuple[str, dict[str, Any]]:
    for service, spec in load_specs().items():
        for sub in spec["subresources"]:
            if f"{service}_{sub['name']}" == module:
                return service, sub
    raise KeyError(module)


def sub_contract(module: str, suffix: str) -> SubContract:
    service, sub = _split(module)
    parent = contract_plan(service, suffix)
    key_param = next(p for p in sub["params"] if p["option"] == sub["key"])
    args: dict[str, Any] = {
        "parent_instance_uid": f"{{{{ r{len(parent.setup_tasks)}.instance_uid }}}}",
        sub["key"]: f"contract_{sub['name']}",
    }
    result = SubContract(module, sub["name"], sub["key"], key_param["code"], parent, args)
    for param in sub["params"]:
        option = param["option"]
        result.params[option] = param
        if option not in args:
            args[option] = CHOSEN.get(option, contract_value(param))
        if param["secret"]:
            result.excused[option] = SECRET_REASON
            continue
        result.checked[option] = param["code"]
        result.expected[option] = expected_live(args[option], param)
    return result


@dataclass(frozen=True)
class SubCase:
    """One modifiable option changed alone (`value`), then changed back out of band (`drift`, as the live entry
    types it)."""

    option: str
    code: str
    value: Any
    drift: Any


def sub_cases(contract: SubContract) -> tuple[list[SubCase], dict[str, str]]:
    """The per-parameter cases (every option the modify operation takes, but the key), and the excused ones."""
    cases: list[SubCase] = []
    excused: dict[str, str] = {}
    for option, param in sorted(contract.params.items()):
        if option == contract.key_option or param["immutable"] or "modify" not in (param.get("operations") or {}):
            continue  # the identity, or create-only: covered by the create case
        if param["secret"]:
            excused[option] = SECRET_REASON
            continue
        current = contract.args[option]
        value = SECOND.get(option, another_value(param, current))
        if value is None:
            excused[option] = f"no second valid {param['type']} value can be derived from the spec alone"
            continue
        cases.append(SubCase(option, param["code"], value, typed_live(current, param)))
    return cases, excused


def expected_entry(contract: SubContract, args: dict[str, Any]) -> dict[str, Any]:
    """The checked options of `args` as the live entry holds them."""
    return {option: expected_live(args[option], contract.params[option]) for option in contract.checked}
