"""The committed specs and generated files match the emulator's catalogue, fetched over real HTTP in both
endpoint styles (P1, P9, P10, P47): what `make check-drift` and the before-stop hook rely on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from generator import pipeline
from generator.workspace import Workspace
from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import REPO


@pytest.fixture(scope="module")
def catalogue_emulator() -> Iterator[EmulatorServer]:
    """An emulator serving the catalogue's own operation ids, also under `make integration-opid` (the specs
    record the ids they were fetched with, so the shared, possibly shifted, session emulator would drift)."""
    with EmulatorServer(seed=1, operation_id_offset=0) as server:
        yield server


@pytest.mark.parametrize("style", ["gateway", "legacy"])
def test_no_drift_against_the_emulator(catalogue_emulator: EmulatorServer, style: str) -> None:
    """P47: re-fetch + re-render in memory equals the committed files (P9 legacy proxy, P10 gateway)."""
    emulator = catalogue_emulator
    endpoint = emulator.endpoint if style == "gateway" else emulator.legacy_endpoint
    report = pipeline.check(Workspace(REPO), endpoint, emulator.token)
    assert report.clean, report.summary()


def test_offline_check_is_clean() -> None:
    """P47: specs -> files (and schema) agree without an endpoint, as the before-stop hook runs it."""
    report = pipeline.check(Workspace(REPO))
    assert report.clean, report.summary()
