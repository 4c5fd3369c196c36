"""The AnsibleModule adapter `run_module`, the common options and the doc fragment nubes.cloud.common."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest
import yaml

from ansible_collections.nubes.cloud.plugins.doc_fragments.common import ModuleDocFragment
from ansible_collections.nubes.cloud.plugins.module_utils.nubes import runner as runner_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import COMMON_OPTIONS, module_kwargs
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from tests.ansible_compat import patch_module_args
from tests.unit.nubes.conftest import ENDPOINT, FakeClock
from tests.unit.nubes.fake_deck import FakeDeck
from tests.unit.nubes.service_specs import argument_spec

ANSIBLE_TYPES = {"str": "str", "bool": "bool", "int": "int", "float": "float", "path": "path"}


def test_doc_fragment_documents_exactly_the_common_options() -> None:
    """contracts.md: COMMON_OPTIONS are exactly the options of the doc fragment, same types and defaults."""
    doc = yaml.safe_load(ModuleDocFragment.DOCUMENTATION)["options"]
    assert set(doc) == set(COMMON_OPTIONS)
    for name, spec in COMMON_OPTIONS.items():
        assert doc[name]["type"] == spec["type"], name
        assert doc[name].get("default") == spec.get("default"), name
        assert doc[name].get("choices") == spec.get("choices"), name
    assert COMMON_OPTIONS["api_token"]["no_log"] is True
    assert COMMON_OPTIONS["validate_certs"]["default"] is True


def test_module_kwargs_per_kind(services: Dict[str, Any]) -> None:
    """contracts.md: required_one_of / mutually_exclusive / required_if per kind; check mode everywhere."""
    pg = services["postgres"]
    assert module_kwargs(pg, "instance") == {
        "supports_check_mode": True,
        "required_one_of": [["resource_name", "instance_uid"]],
    }
    sub = module_kwargs(pg, "subresource", "user")
    assert sub["mutually_exclusive"] == [["parent_instance_uid", "parent_resource_name"]]
    assert sub["required_if"] == [["state", "present", ["username"]], ["state", "absent", ["username"]]]
    with pytest.raises(ValueError):
        module_kwargs(pg, "bogus")


def test_validate_params_applies_env_fallbacks(services: Dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """api_endpoint/api_token/state_path/workspace read NUBES_* env vars; defaults applied."""
    monkeypatch.setenv("NUBES_API_ENDPOINT", "https://e.test")
    monkeypatch.setenv("NUBES_API_TOKEN", "tkn")
    monkeypatch.setenv("NUBES_WORKSPACE", "ws")
    params = runner_module.validate_params(
        services["s3"], argument_spec(services["s3"]), "instance", {"resource_name": "b"}
    )
    assert params["api_endpoint"] == "https://e.test" and params["api_token"] == "tkn"
    assert params["workspace"] == "ws" and params["validate_certs"] is True and params["wait"] is True
    with pytest.raises(InputError, match="one of the following is required"):
        runner_module.validate_params(services["s3"], argument_spec(services["s3"]), "instance", {})


def run_module_json(
    service: Dict[str, Any],
    args: Dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    kind: str = "instance",
    sub: Any = None,
) -> Dict[str, Any]:
    with patch_module_args(args), pytest.raises(SystemExit):
        runner_module.run_module(service, argument_spec(service, kind, sub), kind=kind, sub=sub)
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch, deck: FakeDeck, tmp_path: Any) -> Dict[str, Any]:
    clock = FakeClock()

    class WiredRunner(runner_module.Runner):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("transport", deck.transport)
            kwargs.setdefault("poller", Poller(clock=clock, sleep=clock.sleep))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(runner_module, "Runner", WiredRunner)
    return {"api_endpoint": ENDPOINT, "api_token": deck.token, "state_path": str(tmp_path / "state.json")}


def test_run_module_creates_and_hides_the_token(
    services: Dict[str, Any], wired: Dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """run_module: AnsibleModule from the common options + ARGUMENT_SPEC; result keys of the contract."""
    args = dict(wired, resource_name="b1", display_name="b1", resource_realm="r")
    result = run_module_json(services["s3"], args, capsys)
    assert result["changed"] and result["status"] == "running"
    for key in (
        "instance",
        "instance_uid",
        "status",
        "status_raw",
        "outputs",
        "operations",
        "operation",
        "decision",
        "diagnostics",
    ):
        assert key in result, key
    assert wired["api_token"] not in json.dumps(result)


def test_run_module_fails_cleanly(
    services: Dict[str, Any], wired: Dict[str, Any], deck: FakeDeck, capsys: pytest.CaptureFixture[str]
) -> None:
    """Errors become fail_json with the message; nothing was written."""
    result = run_module_json(services["postgres"], dict(wired, resource_name="db"), capsys)
    assert result["failed"] and "missing required parameter" in result["msg"]
    assert deck.writes() == []


def test_run_module_check_mode(
    services: Dict[str, Any], wired: Dict[str, Any], deck: FakeDeck, capsys: pytest.CaptureFixture[str]
) -> None:
    """supports_check_mode: a check run plans without writing."""
    args = dict(wired, resource_name="b2", display_name="b2", resource_realm="r", _ansible_check_mode=True)
    result = run_module_json(services["s3"], args, capsys)
    assert result["changed"] and result["operations"] == ["create"] and deck.writes() == []
