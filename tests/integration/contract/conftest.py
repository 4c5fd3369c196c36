"""The contract suite's summary of the cases it runs and excuses per module (the playbook runner is
tests/integration/conftest.py's)."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Issue 23: the cases per module (each checked parameter compared live after one run, plus the empty re-run
    and the empty check-mode run) and the excused ones with their reasons; printed when the suite ran."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])]
    if not any("integration/contract/" in str(getattr(r, "nodeid", "")) for r in reports):
        return
    from tests.integration.contract.contract_plan import (
        contract_plan,
        instance_modules,
        lifecycle_steps,
        parameter_cases,
    )

    terminalreporter.section("contract suite: cases per module")
    total_checked = total_excused = 0
    for module in instance_modules():
        contract = contract_plan(module, "summary")
        cases, case_excused = parameter_cases(contract)
        checked = len(contract.checked)
        steps = [name for name, _extra, _status in lifecycle_steps(module)]
        run = checked + 2 + 2 * len(cases) + len(steps)
        total_checked += run
        total_excused += len(contract.excused) + len(case_excused)
        terminalreporter.write_line(
            f"{module:16} {run:3d} cases ({checked} params live after the create, re-run, check mode; "
            f"{len(cases)} params changed alone and corrected out of band; lifecycle: {', '.join(steps)})"
        )
        for option, reason in sorted(contract.excused.items()):
            terminalreporter.write_line(f"{'':16} excused {option} (all cases): {reason}")
        for option, reason in sorted(case_excused.items()):
            terminalreporter.write_line(f"{'':16} excused {option} (changed alone): {reason}")
    from tests.integration.contract.subresource_plan import sub_cases, sub_contract, subresource_modules

    for module in subresource_modules():
        sub = sub_contract(module, "summary")
        cases, case_excused = sub_cases(sub)
        run = len(sub.checked) + 2 + 2 * len(cases) + 1
        total_checked += run
        total_excused += len(sub.excused) + len(case_excused)
        terminalreporter.write_line(
            f"{module:16} {run:3d} cases ({len(sub.checked)} params live after the create, re-run, check mode; "
            f"{len(cases)} params changed alone and corrected out of band; lifecycle: absent)"
        )
        for option, reason in sorted({**sub.excused, **case_excused}.items()):
            terminalreporter.write_line(f"{'':16} excused {option}: {reason}")
    terminalreporter.write_line(f"contract suite: {total_checked} cases, {total_excused} excused with a reason")
