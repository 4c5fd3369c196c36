"""Fixtures shared by the playbook-level suites (modules, lifecycle, contract)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner


@pytest.fixture
def playbook(emu: EmulatorServer, tmp_path: Path) -> PlaybookRunner:
    """ansible-playbook against the session emulator, with NUBES_STATE_PATH in a fresh temp dir."""
    return PlaybookRunner(tmp_path, emu.endpoint, emu.token)
