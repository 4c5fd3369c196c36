"""Fixtures of the emulator's own tests (the `emulator`/`emu` fixtures come from tests.emulator.fixtures)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import Api


@pytest.fixture
def api(emu: EmulatorServer) -> Iterator[Api]:
    client = Api(emu)
    yield client
    client.close()


@pytest.fixture
def name(request: pytest.FixtureRequest) -> str:
    """A display name no other test uses."""
    return f"{request.node.name[:40]}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def frozen(emu: EmulatorServer) -> EmulatorServer:
    """The emulator with its clock stopped: operations move only when the test advances the clock."""
    emu.clock.freeze()
    return emu
