"""Fixtures of the lifecycle tests: set-up instances made in-process (so each test spends its playbook runs on what
it checks); the playbook runner is tests/integration/conftest.py's."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import Runner, validate_params
from ansible_collections.nubes.cloud.plugins.modules import s3
from tests.emulator import EmulatorServer

REALM = "k8s-3.ext.nubes.ru"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def in_process(emu: EmulatorServer, module: Any, state_path: Path, kind: str = "instance", **params: Any) -> Any:
    """A generated module's task run in-process with its own state file (another workspace, or set-up)."""
    full = {"api_endpoint": emu.endpoint, "api_token": emu.token, "state_path": str(state_path), **params}
    validated = validate_params(module.SERVICE, module.ARGUMENT_SPEC, kind, full)
    return Runner(module.SERVICE, validated, kind).run()


@pytest.fixture(scope="module")
def s3_uids(emulator: EmulatorServer, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two running S3 storages (postgres' create-only `s3_uid` needs one; a second one to differ from it)."""
    state = tmp_path_factory.mktemp("s3") / "state.json"
    names = [unique("lc-s3"), unique("lc-s3")]
    return [
        in_process(emulator, s3, state, resource_name=n, display_name=n, resource_realm=REALM)["instance_uid"]
        for n in names
    ]
