"""AWX / Automation Controller jobs (issue 16): how a job is recognised, when its file state is ephemeral, and
empty environment variables (AWX injects blank credential fields as "") counting as unset."""

from __future__ import annotations

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import argument_spec
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.controller_job import (
    controller_job,
    ephemeral_state_job,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import validate_params
from ansible_collections.nubes.cloud.plugins.modules import s3

AWX = {"JOB_ID": "42", "AWX_HOST": "https://awx.example.test"}


def test_a_job_is_recognised_by_its_id_and_host() -> None:
    assert controller_job(AWX) == "AWX/Controller job 42"
    assert controller_job({"JOB_ID": "42", "TOWER_HOST": "https://tower.example.test"}) == "AWX/Controller job 42"
    assert controller_job({"JOB_ID": "42"}) == ""  # JOB_ID alone is any CI system's
    assert controller_job({"AWX_HOST": "https://awx.example.test"}) == ""
    assert controller_job({"JOB_ID": "", "AWX_HOST": "x"}) == ""


def test_only_the_default_state_file_in_a_job_is_ephemeral() -> None:
    assert ephemeral_state_job({"state_backend": "file"}, AWX) == "AWX/Controller job 42"
    assert ephemeral_state_job({}, AWX) == "AWX/Controller job 42"
    assert ephemeral_state_job({"state_backend": "kubernetes"}, AWX) == ""
    assert ephemeral_state_job({"state_backend": "file", "state_path": "/volume/state.json"}, AWX) == ""
    assert ephemeral_state_job({"state_backend": "file"}, {}) == ""


def test_empty_environment_variables_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NUBES_STATE_BACKEND", "NUBES_STATE_NAMESPACE", "NUBES_STATE_LOCK_TIMEOUT", "NUBES_WORKSPACE"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("NUBES_STATE_CONTEXT", "ctx-1")
    params = validate_params(
        s3.SERVICE,
        s3.ARGUMENT_SPEC,
        "instance",
        {"api_endpoint": "http://127.0.0.1:1/api/v1/svc", "api_token": "t", "resource_name": "b"},
    )
    assert params["state_backend"] == "file" and params["workspace"] == "default"
    assert params["state_lock_timeout"] == 1800 and params["state_namespace"] is None
    assert params["state_context"] == "ctx-1"
    assert argument_spec({})["api_token"]["no_log"] is True
