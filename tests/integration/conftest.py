"""Fixtures shared by the playbook-level suites (modules, lifecycle, contract), and the contract suite's summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner


@pytest.fixture
def playbook(emu: EmulatorServer, tmp_path: Path) -> PlaybookRunner:
    """ansible-playbook against the session emulator, with NUBES_STATE_PATH in a fresh temp dir."""
    return PlaybookRunner(tmp_path, emu.endpoint, emu.token)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Issue 23: the contract suite's summary (tests/integration/contract/summary.py). The hook lives here, not in
    the suite's own conftest: under pytest-xdist the controller process, which writes the terminal summary, loads
    this conftest (a parent of the paths `make integration` gives) but never the suite's directory's."""
    from tests.integration.contract.summary import write_summary

    write_summary(terminalreporter)
