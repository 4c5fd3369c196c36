"""Issue 26: which path a nubes.cloud task takes, decided from the task's facts (plugin_utils/execution_path.py).
The playbook-level proofs are tests/integration/modules/test_modules_execution_path.py and the parity suite."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.plugin_utils.execution_path import (
    SwitchError,
    missing_dependency,
    module_path_reason,
    requested_mode,
    same_python,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.preload import PLUGINS, module_of, preload

PY = "/opt/venv/bin/python"


def reason(**overrides: Any) -> str | None:
    facts: dict[str, Any] = {
        "mode": "auto",
        "connection": "local",
        "become": False,
        "async_val": 0,
        "interpreter": PY,
        "controller_python": PY,
    }
    facts.update(overrides)
    return module_path_reason(**facts)


def test_local_target_with_the_controllers_python_runs_in_process() -> None:
    """Issue 26: implicit localhost / connection local / delegate_to localhost, same Python: in-process."""
    assert reason() is None
    assert reason(connection="ansible.builtin.local") is None


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"mode": "module"}, "forced by NUBES_EXECUTION=module"),
        ({"connection": "ssh"}, "another host (connection ssh)"),
        ({"become": True}, "become"),
        ({"async_val": 30}, "async"),
        ({"interpreter": None}, "interpreter discovery"),
        ({"interpreter": "auto_silent"}, "interpreter discovery"),
        ({"interpreter": "/usr/bin/python3"}, "/usr/bin/python3 is not the controller's"),
    ],
    ids=["switch", "other-host", "become", "async", "no-interpreter", "discovery", "other-interpreter"],
)
def test_each_fallback_condition_names_its_reason(overrides: dict[str, Any], expected: str) -> None:
    """Issue 26: every fallback condition takes the module path and says why (shown at -vvv)."""
    found = reason(**overrides)
    assert found is not None and expected in found, found


def test_missing_dependency_reason_names_it() -> None:
    """Issue 26: a dependency missing on the controller is named in the reason."""
    assert missing_dependency("httpx") == "a dependency is missing on the controller (httpx)"


def test_switch_variable_wins_over_environment_and_bad_values_fail() -> None:
    """Issue 26: `nubes_execution` (a variable) wins over NUBES_EXECUTION; anything but auto/module is an error
    that names the switch and the values."""
    assert requested_mode({}, {}) == "auto"
    assert requested_mode({"NUBES_EXECUTION": "module"}, {}) == "module"
    assert requested_mode({"NUBES_EXECUTION": "module"}, {"nubes_execution": "auto"}) == "auto"
    assert requested_mode({"NUBES_EXECUTION": " Module "}, {"nubes_execution": ""}) == "module"
    with pytest.raises(SwitchError, match=r"the variable nubes_execution is 'modul'.*`module`.*`auto`"):
        requested_mode({}, {"nubes_execution": "modul"})
    with pytest.raises(SwitchError, match="environment variable NUBES_EXECUTION"):
        requested_mode({"NUBES_EXECUTION": "inprocess"}, {})


def test_same_python_follows_links_within_one_environment_only(tmp_path: Path) -> None:
    """Issue 26: a venv's python and python3 (links in one directory) are the controller's Python; the Python a
    venv links to, a wrapper elsewhere or a relative name are not."""
    real = tmp_path / "base" / "python3.11"
    real.parent.mkdir()
    real.write_text("", encoding="utf-8")
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    os.symlink(real, venv / "python")
    os.symlink(venv / "python", venv / "python3")
    linked_venv = tmp_path / "venv-link"
    os.symlink(tmp_path / "venv", linked_venv)
    assert same_python(str(venv / "python3"), str(venv / "python"))
    assert same_python(str(linked_venv / "bin" / "python"), str(venv / "python"))
    assert not same_python(str(real), str(venv / "python"))
    assert not same_python("python3", str(venv / "python"))
    assert not same_python("", str(venv / "python"))


def test_preload_is_best_effort() -> None:
    """Issue 26 (preload.py): what imports is imported now; a name that fails is returned, never raised, so loading
    an action plugin never fails on it and the worker's own import reports it (and takes the module path)."""
    assert preload(["module_utils.nubes.errors", "modules.no_such_module"]) == ["modules.no_such_module"]
    assert PLUGINS + "module_utils.nubes.errors" in sys.modules
    assert PLUGINS + "modules.no_such_module" not in sys.modules
    assert module_of(PLUGINS + "action.postgres_user") == "modules.postgres_user"


def test_preload_imports_nothing_when_the_module_path_is_forced() -> None:
    """Issue 26 (preload.py): with NUBES_EXECUTION=module no task of the run runs in-process, so loading an action
    plugin imports nothing in ansible-playbook's main process (it only cost the run time): not even an attempt, so
    a name that cannot import is not reported either."""
    assert preload(["modules.no_such_module"], environ={"NUBES_EXECUTION": " Module "}) == []
    assert preload(["modules.no_such_module"], environ={"NUBES_EXECUTION": "auto"}) == ["modules.no_such_module"]
    assert preload(["modules.no_such_module"], environ={}) == ["modules.no_such_module"]
