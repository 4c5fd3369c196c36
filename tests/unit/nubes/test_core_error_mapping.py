"""Issue 26, one error mapping and one module shell: every error class of the collection becomes the failed result
in one place (errors.error_result), which the module shell (module_entry.finish) ends every module with; no entry
point maps errors itself."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import (
    ComponentError,
    RenderError,
    SourceError,
    SpecConfigurationError,
)
from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes import errors
from ansible_collections.nubes.cloud.plugins.module_utils.nubes import runner as runner_module
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import LockTimeoutError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from tests.ansible_compat import patch_module_args
from tests.unit.nubes.conftest import ENDPOINT, FakeClock
from tests.unit.nubes.fake_deck import FakeDeck
from tests.unit.nubes.service_specs import argument_spec

PLUGINS = Path(__file__).resolve().parents[3] / "plugins"


def core_error(cls: type) -> Callable[[], errors.NubesError]:
    def make() -> errors.NubesError:
        exc = cls("the cause, and what to do", hint="a detail", failed=False, changed=False)
        exc.details["msg"] = "not this"
        exc.changed = True
        exc.warnings = [f"a warning before the failure ({cls.__name__})"]
        return exc

    return make


def component_error(cls: type) -> Callable[[], errors.NubesError]:
    def make() -> errors.NubesError:
        warnings = [f"a warning before the failure ({cls.__name__})"]
        result = {"changed": True, "hint": "a detail", "warnings": warnings, "msg": "not this"}
        exc: errors.NubesError = cls("the cause, and what to do", result)
        return exc

    return make


ERROR_CLASSES = {
    "NubesError": core_error(errors.NubesError),
    "InputError": core_error(errors.InputError),
    "ApiError": core_error(errors.ApiError),
    "OutcomeUnknownError": core_error(errors.OutcomeUnknownError),
    "NotDeckApiError": core_error(errors.NotDeckApiError),
    "OperationFailedError": core_error(errors.OperationFailedError),
    "OperationTimeoutError": core_error(errors.OperationTimeoutError),
    "StateWriteError": core_error(errors.StateWriteError),
    "IdentityError": core_error(errors.IdentityError),
    "LockTimeoutError": core_error(LockTimeoutError),
    "ComponentError": component_error(ComponentError),
    "SourceError": component_error(SourceError),
    "RenderError": component_error(RenderError),
    "SpecConfigurationError": component_error(SpecConfigurationError),
}


def module_output(work: Callable[[], Dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> Dict[str, Any]:
    """What a module that ends through the shell prints."""
    with patch_module_args({}), pytest.raises(SystemExit):
        finish(new_module({}, supports_check_mode=True), work)
    output: Dict[str, Any] = json.loads(capsys.readouterr().out)
    return output


def warning_texts(output: Dict[str, Any]) -> List[str]:
    """The module's warnings as text (ansible-core 2.19+ returns them as WarningSummary dicts; a test process keeps
    the warnings of earlier modules, so tests look for their own)."""
    return [w if isinstance(w, str) else w["event"]["msg"] for w in output.get("warnings", [])]


@pytest.mark.parametrize("name", sorted(ERROR_CLASSES))
def test_each_error_class_becomes_the_failed_result(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26: every error class is a NubesError, mapped by error_result alone: msg is the error's, changed says
    whether it wrote, its details are kept but never override msg/changed/failed, its warnings come out as the
    module's warnings; the module shell fails with exactly that result."""
    exc = ERROR_CLASSES[name]()
    assert isinstance(exc, errors.NubesError)
    result = errors.error_result(exc)
    assert result["failed"] is True and result["msg"] == "the cause, and what to do"
    assert result["changed"] is True and result["hint"] == "a detail"
    assert result["warnings"] == [f"a warning before the failure ({name})"]

    def work() -> Dict[str, Any]:
        raise ERROR_CLASSES[name]()

    output = module_output(work, capsys)
    assert output["failed"] is True and output["msg"] == result["msg"] and output["changed"] is True
    assert output["hint"] == "a detail"
    assert f"a warning before the failure ({name})" in warning_texts(output)


def test_the_shell_exits_with_the_result_and_its_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26: a result's warnings go through module.warn, the rest is the module's result."""
    output = module_output(lambda: {"changed": False, "copied": [], "warnings": ["kept a record"]}, capsys)
    assert output["changed"] is False and output["copied"] == [] and "kept a record" in warning_texts(output)
    assert "failed" not in output


def test_the_shell_lets_a_bug_through() -> None:
    """Issue 26: only the error root is caught; a bug keeps its traceback (Ansible's MODULE FAILURE)."""

    def work() -> Dict[str, Any]:
        raise KeyError("bug")

    with patch_module_args({}), pytest.raises(KeyError):
        finish(new_module({}, supports_check_mode=True), work)


def test_task_result_is_the_pure_shell(services: Dict[str, Any], deck: FakeDeck, tmp_path: Any) -> None:
    """Issue 26: task_result takes validated params and returns the result (warnings under `warnings`) or raises
    the NubesError with its warnings; error_result of it is what the module prints (the in-process path's call)."""
    clock = FakeClock()
    wiring = {"transport": deck.transport, "poller": Poller(clock=clock, sleep=clock.sleep)}
    base = {"api_endpoint": ENDPOINT, "api_token": deck.token, "state_path": str(tmp_path / "state.json")}
    spec = argument_spec(services["s3"])
    params = runner_module.validate_params(
        services["s3"], spec, "instance", dict(base, resource_name="b", display_name="b", resource_realm="r")
    )
    result = runner_module.task_result(services["s3"], params, "instance", **wiring)
    assert result["changed"] is True and result["status"] == "running" and "failed" not in result
    missing = runner_module.validate_params(
        services["postgres"], argument_spec(services["postgres"]), "instance", dict(base, resource_name="db")
    )
    writes = len(deck.writes())
    with pytest.raises(errors.InputError) as caught:
        runner_module.task_result(services["postgres"], missing, "instance", **wiring)
    failed = errors.error_result(caught.value)
    assert failed["failed"] is True and "missing required parameter" in failed["msg"] and failed["changed"] is False
    assert len(deck.writes()) == writes  # bad input fails before any write


FAIL_JSON = re.compile(r"\.fail_json\(")


def test_no_entry_point_maps_errors_itself() -> None:
    """Issue 26: fail_json is called in the module shell only (and by component for a missing helper import, before
    there is any work); runner, operation_info, state_migrate and component each had their own mapping."""
    callers: List[str] = []
    for path in sorted(PLUGINS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if FAIL_JSON.search(text):
            callers.append(str(path.relative_to(PLUGINS)))
    assert callers == ["module_utils/module_entry.py", "modules/component.py"]
    component = (PLUGINS / "modules" / "component.py").read_text(encoding="utf-8")
    assert len(FAIL_JSON.findall(component)) == 1 and "cannot import its helpers" in component
