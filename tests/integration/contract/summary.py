"""The contract suite's summary: the cases it runs per module and the ones it excuses, each with its reason (issue
23: none is silently skipped). tests/integration/conftest.py prints it: under pytest-xdist (`make integration` runs
`-n 2`) only that conftest is loaded by the controller process, which writes the terminal summary."""

from __future__ import annotations

from typing import Any

from tests.integration.contract.contract_plan import (
    ContractPlan,
    contract_plan,
    instance_modules,
    lifecycle_steps,
    parameter_cases,
)
from tests.integration.contract.subresource_plan import sub_cases, sub_contract, subresource_modules


def ran_contract_tests(terminalreporter: Any) -> bool:
    """Whether any test of the contract suite passed or failed in this session."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])]
    return any("integration/contract/" in str(getattr(r, "nodeid", "")) for r in reports)


def instance_lines(module: str) -> tuple[list[str], int, int]:
    """The summary lines of an instance module, its cases run and its cases excused."""
    contract = contract_plan(module, "summary")
    cases, case_excused = parameter_cases(contract)
    steps = [name for name, _extra, _status in lifecycle_steps(module)]
    run = len(contract.checked) + len(contract.nested) + 2 + 2 * len(cases) + len(steps)
    lines = [
        f"{module:16} {run:3d} cases ({len(contract.checked)} params live after the create, of them "
        f"{references(contract)}; re-run, check mode; {len(cases)} params changed alone and corrected out of band; "
        f"lifecycle: {', '.join(steps)})"
    ]
    lines += [f"{'':16} checked {name} (a reference inside an object, by uid)" for name in sorted(contract.nested)]
    lines += [f"{'':16} excused {option} (all cases): {why}" for option, why in sorted(contract.excused.items())]
    lines += [f"{'':16} excused {option} (changed alone): {why}" for option, why in sorted(case_excused.items())]
    return lines, run, len(contract.excused) + len(case_excused)


def references(contract: ContractPlan) -> str:
    named = sorted(contract.references)
    return f"{len(named)} references compared by uid ({', '.join(named)})" if named else "no reference"


def subresource_lines(module: str) -> tuple[list[str], int, int]:
    """The summary lines of a sub-resource module, its cases run and its cases excused."""
    sub = sub_contract(module, "summary")
    cases, case_excused = sub_cases(sub)
    run = len(sub.checked) + 2 + 2 * len(cases) + 1
    lines = [
        f"{module:16} {run:3d} cases ({len(sub.checked)} params live after the create, re-run, check mode; "
        f"{len(cases)} params changed alone and corrected out of band; lifecycle: absent)"
    ]
    lines += [f"{'':16} excused {option}: {why}" for option, why in sorted({**sub.excused, **case_excused}.items())]
    return lines, run, len(sub.excused) + len(case_excused)


def write_summary(terminalreporter: Any) -> None:
    """Issue 23: the cases per module (each checked parameter compared live after one run, the empty re-run and
    check-mode run, each modifiable parameter changed alone and corrected, the lifecycle steps) and the excused ones
    with their reasons; printed when the suite ran."""
    if not ran_contract_tests(terminalreporter):
        return
    terminalreporter.section("contract suite: cases per module")
    total_run = total_excused = 0
    sections = [instance_lines(m) for m in instance_modules()]
    sections += [subresource_lines(m) for m in subresource_modules()]
    for lines, run, excused in sections:
        for line in lines:
            terminalreporter.write_line(line)
        total_run += run
        total_excused += excused
    terminalreporter.write_line(f"contract suite: {total_run} cases, {total_excused} excused with a reason")
