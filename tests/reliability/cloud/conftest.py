"""Fixtures of the cloud reliability tests: a 10-host playbook runner bound to the session emulator."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.reliability.cloud.fleet import Fleet


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """P33 backoff (2/4/8 s) scaled by 0.01 for in-process runs too."""
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")


@pytest.fixture
def fleet(emu: EmulatorServer, tmp_path: Path) -> Fleet:
    """ansible-playbook on 10 parallel hosts (one resource each) against the session emulator."""
    return Fleet(tmp_path, emu.endpoint, emu.token)


@pytest.fixture
def prefix() -> str:
    """A unique display-name prefix (instances persist for the emulator's session)."""
    return "rel-" + uuid.uuid4().hex[:8]
