"""pytest fixtures for the deck-api emulator (wired from the root conftest.py).

`emulator` (session scope): one EmulatorServer on 127.0.0.1 with short operations (0.2 s); it serves operation
ids shifted by `$NUBES_EMULATOR_OPERATION_ID_OFFSET` when that is set (`make integration-opid`).
`emu` (function scope): the same server with an empty request log, no fault rules, the initial settings
and a running (unfrozen) clock. Instances persist across tests: use unique display names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.emulator.server import EmulatorServer
from tests.emulator.settings import operation_id_offset_from_env


@pytest.fixture(scope="session")
def emulator() -> Iterator[EmulatorServer]:
    with EmulatorServer(seed=1, op_duration=0.2, operation_id_offset=operation_id_offset_from_env()) as server:
        yield server


@pytest.fixture
def emu(emulator: EmulatorServer) -> Iterator[EmulatorServer]:
    emulator.clear_requests()
    emulator.clear_faults()
    emulator.reset_settings()
    emulator.clock.unfreeze()
    yield emulator
    emulator.clear_faults()
    emulator.clock.unfreeze()
