"""Fixtures of the generator's unit tests: a temporary collection root with config/ and the fake API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.workspace import Workspace
from tests.unit.generator.catalogue import (
    CORE_VERSIONS,
    ENGLISH,
    EXAMPLE_VALUES,
    SERVICES_LIST,
    TIMEOUTS,
    FakeDeckApi,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """An empty collection root with the test service list, timeouts, English texts and example values."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "services_list.txt").write_text(SERVICES_LIST, encoding="utf-8")
    (tmp_path / "config" / "operation_timeouts.json").write_text(json.dumps(TIMEOUTS), encoding="utf-8")
    (tmp_path / "config" / "ansible_core_versions.txt").write_text(CORE_VERSIONS, encoding="utf-8")
    (tmp_path / "config" / "english.yml").write_text(yaml.safe_dump(ENGLISH), encoding="utf-8")
    (tmp_path / "config" / "examples.yml").write_text(yaml.safe_dump(EXAMPLE_VALUES), encoding="utf-8")
    return Workspace(tmp_path)


@pytest.fixture
def api() -> FakeDeckApi:
    """The fake deck-api (httpx.MockTransport handler)."""
    return FakeDeckApi()
