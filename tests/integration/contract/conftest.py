"""The contract suite's fixtures (the modules suite's playbook runner) and the summary of the cases it runs and
excuses per module."""

from __future__ import annotations

import pytest

from tests.integration.modules.conftest import playbook  # noqa: F401  (the modules suite's runner fixture)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Issue 23: the cases per module (each checked parameter compared live after one run, plus the empty re-run
    and the empty check-mode run) and the excused ones with their reasons; printed when the suite ran."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])]
    if not any("integration/contract/" in str(getattr(r, "nodeid", "")) for r in reports):
        return
    from tests.integration.contract.contract_plan import contract_plan, instance_modules

    terminalreporter.section("contract suite: cases per module")
    total_checked = total_excused = 0
    for module in instance_modules():
        contract = contract_plan(module, "summary")
        checked, excused = len(contract.checked), len(contract.excused)
        total_checked += checked + 2
        total_excused += excused
        terminalreporter.write_line(f"{module:16} {checked + 2:3d} cases ({checked} params live, re-run, check mode)")
        for option, reason in sorted(contract.excused.items()):
            terminalreporter.write_line(f"{'':16} excused {option}: {reason}")
    terminalreporter.write_line(f"contract suite: {total_checked} cases, {total_excused} excused with a reason")
