"""Issue 26: each condition that makes a nubes.cloud task take the module path does, and says so at -vvv; a task
delegated to localhost from another host runs in the controller's process. Every task's work is checked in the
emulator (its instance exists), not in the module's result.

"Another host" is a connection plugin next to the playbook that runs commands on this machine under another name;
`become` is a become plugin next to the playbook that runs the command as it is (the test machine may have no
sudo). Both change nothing but the facts the action plugin decides on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import yaml

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import BIN, PLAYBOOK_TIMEOUT, PlaybookRunner

IN_PROCESS = "nubes.cloud: nubes.cloud.dummy runs in the controller's process"
MODULE = "nubes.cloud: nubes.cloud.dummy runs as a module: "

OTHER_CONNECTION = '''\
from __future__ import annotations

DOCUMENTATION = """
name: nubes_test_remote
short_description: runs on this machine under another connection name (the nubes.cloud tests' other host)
description:
  - The local connection under another name, so a task on this host is a task on another host to the collection.
author: nubes.cloud contributors
options:
  become_success_timeout:
    type: int
    default: 10
    description: As the local connection's option.
  become_strip_preamble:
    type: bool
    default: true
    description: As the local connection's option.
extends_documentation_fragment:
  - connection_pipelining
"""

from ansible.plugins.connection.local import Connection as LocalConnection


class Connection(LocalConnection):
    transport = "nubes_test_remote"
'''

PASS_THROUGH_BECOME = '''\
from __future__ import annotations

DOCUMENTATION = """
name: nubes_test_become
short_description: a become method that runs the command as it is (the nubes.cloud tests)
description:
  - Marks the task as using become without needing sudo on the test machine.
author: nubes.cloud contributors
options:
  become_user:
    description: Ignored.
    default: root
    vars:
      - name: ansible_become_user
"""

from ansible.plugins.become import BecomeBase


class BecomeModule(BecomeBase):
    name = "nubes_test_become"

    def build_become_command(self, cmd, shell):
        super().build_become_command(cmd, shell)
        return self._build_success_command(cmd, shell)
'''

SHADOW_HTTPX = 'raise ImportError("httpx is hidden from the controller by a nubes.cloud test")\n'


def dummy(name: str) -> dict[str, Any]:
    return {"nubes.cloud.dummy": {"resource_name": name, "resource_realm": "dummy"}}


def run_plays(
    emu: EmulatorServer, workdir: Path, plays: list[dict[str, Any]], inventory: str, env: dict[str, str] | None = None
) -> tuple[str, dict[str, Any]]:
    """ansible-playbook -vvv of `plays` with plugins next to the playbook; (output, registered results by name)."""
    (workdir / "connection_plugins").mkdir(parents=True, exist_ok=True)
    (workdir / "connection_plugins" / "nubes_test_remote.py").write_text(OTHER_CONNECTION, encoding="utf-8")
    (workdir / "become_plugins").mkdir(exist_ok=True)
    (workdir / "become_plugins" / "nubes_test_become.py").write_text(PASS_THROUGH_BECOME, encoding="utf-8")
    results_file = workdir / "results.json"
    for play in plays:
        names = [t["register"] for t in play["tasks"]]
        collect = "{" + ", ".join(f"'{n}': {n}" for n in names) + "}"
        play["tasks"].append(
            {
                "ansible.builtin.copy": {"content": "{{ " + collect + " | to_json }}", "dest": str(results_file)},
                "delegate_to": "localhost",
            }
        )
    (workdir / "play.yml").write_text(yaml.safe_dump(plays, sort_keys=False), encoding="utf-8")
    (workdir / "hosts.ini").write_text(inventory, encoding="utf-8")
    environ = PlaybookRunner(workdir, emu.endpoint, emu.token).env()
    environ.pop("NUBES_EXECUTION", None)
    environ.update(env or {})
    proc = subprocess.run(
        [str(BIN / "ansible-playbook"), "-vvv", "-i", "hosts.ini", "play.yml"],
        cwd=workdir,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=PLAYBOOK_TIMEOUT,
    )
    output = proc.stdout + proc.stderr
    assert results_file.is_file(), output[-5000:]
    return output, json.loads(results_file.read_text(encoding="utf-8"))


def local_play(tasks: list[dict[str, Any]], **play: Any) -> dict[str, Any]:
    return {"hosts": "localhost", "connection": "local", "gather_facts": False, **play, "tasks": tasks}


def live(emu: EmulatorServer, name: str) -> bool:
    return any(i.get("displayName") == name and not i.get("isDeleted") for i in emu.instances())


def task_lines(output: str, marker: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if marker in line]


def unique() -> str:
    return f"path-{uuid.uuid4().hex[:8]}"


def test_switch_forces_the_module_path(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26: NUBES_EXECUTION=module (environment) and nubes_execution: module (variable) force the module path;
    the variable wins over the environment both ways; a bad value fails the task and names the switch."""
    names = [unique(), unique(), unique()]
    tasks = [
        {**dummy(names[0]), "register": "forced", "vars": {"nubes_execution": "module"}},
        {**dummy(names[1]), "register": "default"},
        {**dummy(names[2]), "register": "bad", "vars": {"nubes_execution": "modul"}, "ignore_errors": True},
    ]
    interpreter = {"ansible_python_interpreter": sys.executable}
    output, results = run_plays(emu, tmp_path / "auto", [local_play(tasks, vars=interpreter)], "localhost\n")
    assert task_lines(output, MODULE) == [MODULE + "forced by NUBES_EXECUTION=module or nubes_execution: module"]
    assert len(task_lines(output, IN_PROCESS)) == 1
    assert "the variable nubes_execution is 'modul'" in results["bad"]["msg"]
    assert live(emu, names[0]) and live(emu, names[1]) and not live(emu, names[2])

    other = unique()
    tasks = [{**dummy(other), "register": "env_forced"}]
    output, _results = run_plays(
        emu, tmp_path / "env", [local_play(tasks, vars=interpreter)], "localhost\n", {"NUBES_EXECUTION": "module"}
    )
    assert len(task_lines(output, MODULE + "forced")) == 1 and not task_lines(output, IN_PROCESS)
    assert live(emu, other)


def test_another_host_takes_the_module_path_and_delegate_to_localhost_runs_in_process(
    emu: EmulatorServer, tmp_path: Path
) -> None:
    """Issue 26: a task on another host (connection nubes_test_remote) takes the module path; the same task
    delegated to localhost runs in the controller's process."""
    names = [unique(), unique()]
    tasks = [
        {**dummy(names[0]), "register": "remote"},
        {**dummy(names[1]), "register": "delegated", "delegate_to": "localhost"},
    ]
    inventory = f"other ansible_connection=nubes_test_remote ansible_python_interpreter={sys.executable}\n"
    output, results = run_plays(emu, tmp_path, [{"hosts": "other", "gather_facts": False, "tasks": tasks}], inventory)
    assert task_lines(output, MODULE) == [MODULE + "the target is another host (connection nubes_test_remote)"]
    assert len(task_lines(output, IN_PROCESS)) == 1
    assert not results["remote"].get("failed") and not results["delegated"].get("failed")
    assert live(emu, names[0]) and live(emu, names[1])


def test_become_and_async_take_the_module_path(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26: a task with become, and an async task, take the module path and do their work."""
    names = [unique(), unique()]
    tasks = [
        {**dummy(names[0]), "register": "become", "become": True, "become_method": "nubes_test_become"},
        {**dummy(names[1]), "register": "async_task", "async": 120, "poll": 1},
    ]
    play = local_play(tasks, vars={"ansible_python_interpreter": sys.executable})
    output, results = run_plays(emu, tmp_path, [play], "localhost\n")
    assert task_lines(output, MODULE) == [MODULE + "the task uses become", MODULE + "the task is async"]
    assert not task_lines(output, IN_PROCESS)
    assert not results["become"].get("failed") and not results["async_task"].get("failed"), results
    assert live(emu, names[0]) and live(emu, names[1])


def test_another_interpreter_takes_the_module_path(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26: a target interpreter that is not the controller's Python (here a wrapper script elsewhere that
    runs it) takes the module path, which runs with that interpreter."""
    wrapper = tmp_path / "bin" / "python-wrapper"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    name = unique()
    play = local_play([{**dummy(name), "register": "wrapped"}], vars={"ansible_python_interpreter": str(wrapper)})
    output, results = run_plays(emu, tmp_path / "run", [play], "localhost\n")
    reason = f"the target's Python interpreter {wrapper} is not the controller's"
    assert len(task_lines(output, MODULE + reason)) == 1 and not task_lines(output, IN_PROCESS)
    assert not results["wrapped"].get("failed"), results
    assert live(emu, name)


def test_a_dependency_missing_on_the_controller_takes_the_module_path(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26: when the controller cannot import httpx (PYTHONPATH shadows it with a package that fails to
    import), the task takes the module path, whose process gets the task's environment (PYTHONPATH emptied)."""
    shadow = tmp_path / "shadow" / "httpx"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(SHADOW_HTTPX, encoding="utf-8")
    name = unique()
    task = {**dummy(name), "register": "shadowed", "environment": {"PYTHONPATH": ""}}
    play = local_play([task], vars={"ansible_python_interpreter": sys.executable})
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(shadow.parent), os.environ.get("PYTHONPATH", "")]))}
    output, results = run_plays(emu, tmp_path / "run", [play], "localhost\n", env)
    expected = MODULE + "a dependency is missing on the controller (httpx)"
    assert task_lines(output, MODULE) == [expected] and not task_lines(output, IN_PROCESS)
    assert not results["shadowed"].get("failed"), results
    assert live(emu, name)


def files_holding(directories: list[Path], secret: str, leave_out: frozenset[Path] = frozenset()) -> list[str]:
    """The files under `directories` (but `leave_out`) whose bytes contain `secret`; files that vanish meanwhile (other
    runs share ~/.ansible/tmp) are skipped."""
    found = []
    for directory in directories:
        for path in directory.rglob("*") if directory.is_dir() else ():
            try:
                if path not in leave_out and path.is_file() and secret.encode() in path.read_bytes():
                    found.append(str(path))
            except OSError:
                continue
    return found


def run_with_a_password(emu: EmulatorServer, base: Path, password: str, play_vars: dict[str, Any]) -> dict[str, Any]:
    """A pgadmin create with `password` as its argument, ansible's local and remote tmp in `base` and TMPDIR in a
    short directory of its own (ansible-core 2.21 puts a Unix socket there, whose path must stay short; remote files
    kept); the -vvv output, the result and the files that hold the password after the run (the playbook itself left
    out)."""
    name = unique()
    with tempfile.TemporaryDirectory(prefix="nubes26-") as short:
        tmp = {"tmpdir": Path(short), **{part: base / part for part in ("local-tmp", "remote-tmp")}}
        return _run_with_a_password(emu, base, password, play_vars, name, tmp)


def _run_with_a_password(
    emu: EmulatorServer, base: Path, password: str, play_vars: dict[str, Any], name: str, tmp: dict[str, Path]
) -> dict[str, Any]:
    for directory in tmp.values():
        directory.mkdir(parents=True, exist_ok=True)
    task = {
        "nubes.cloud.pgadmin": {
            "resource_name": name,
            "domain": name,
            "login": "admin@example.test",
            "password": password,
            "resource_realm": "k8s-3.ext.nubes.ru",
        }
    }
    remote_tmp = {"ansible_remote_tmp": str(tmp["remote-tmp"])}
    play_vars = {**play_vars, "ansible_python_interpreter": sys.executable, **remote_tmp}
    env = {
        "TMPDIR": str(tmp["tmpdir"]),
        "ANSIBLE_LOCAL_TEMP": str(tmp["local-tmp"]),
        "ANSIBLE_KEEP_REMOTE_FILES": "1",
        "ANSIBLE_PIPELINING": "0",
    }
    workdir = base / "run"
    play = local_play([{**task, "register": "written"}], vars=play_vars)
    output, results = run_plays(emu, workdir, [play], "localhost\n", env)
    watched = [*tmp.values(), Path.home() / ".ansible" / "tmp", workdir]
    return {
        "output": output,
        "result": results["written"],
        "live": live(emu, name),
        "found": files_holding(watched, password, frozenset({workdir / "play.yml"})),
    }


def test_in_process_writes_nothing_of_the_task_to_disk(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26 (security): in-process, no file holds a password given as a task argument after the run: not
    TMPDIR, the controller's local tmp, ~/.ansible/tmp, the remote tmp (remote files kept), nor the state file or
    anything else the run wrote next to the playbook. On the module path the kept AnsiballZ payload holds it (the
    scan finds what is there)."""
    password = "Pw-" + uuid.uuid4().hex
    in_process = run_with_a_password(emu, tmp_path / "in-process", password, {})
    assert task_lines(in_process["output"], "nubes.cloud: nubes.cloud.pgadmin runs in the controller's process")
    assert not in_process["result"].get("failed") and in_process["live"], in_process["result"]
    assert in_process["found"] == []

    module = run_with_a_password(emu, tmp_path / "module", password, {"nubes_execution": "module"})
    assert task_lines(module["output"], "nubes.cloud: nubes.cloud.pgadmin runs as a module: forced")
    assert not module["result"].get("failed") and module["live"], module["result"]
    assert any("AnsiballZ_pgadmin" in path for path in module["found"]), module["found"]


IMPORTED_PROBE = '''\
from __future__ import annotations

import sys

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    """What this task's worker, a fresh fork of ansible-playbook's main process, holds of the collection and httpx."""

    def run(self, tmp=None, task_vars=None):
        names = [n for n in sys.modules if n.startswith("ansible_collections.nubes.cloud.") or n == "httpx"]
        return {"changed": False, "imported": sorted(names)}
'''
PLUGINS = "ansible_collections.nubes.cloud.plugins."


def test_the_main_process_imports_the_module_and_the_core_once(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26 (plugin_utils/preload.py): the strategy loads a task's action plugin class in ansible-playbook's main
    process before it forks the task's worker, and a nubes.cloud action class imports its module and the cloud core
    there, once: a probe task's worker (forked from the main process) holds none of them before the first
    nubes.cloud task and all of them after it, so no later task's worker imports them again."""
    (tmp_path / "action_plugins").mkdir(parents=True)
    (tmp_path / "action_plugins" / "nubes_test_imported.py").write_text(IMPORTED_PROBE, encoding="utf-8")
    name = unique()
    tasks = [
        {"nubes_test_imported": {}, "register": "before"},
        {**dummy(name), "register": "created"},
        {"nubes_test_imported": {}, "register": "after"},
    ]
    play = local_play(tasks, vars={"ansible_python_interpreter": sys.executable})
    output, results = run_plays(emu, tmp_path, [play], "localhost\n")
    utils = PLUGINS + "module_utils."
    expected = {
        PLUGINS + "modules.dummy",
        utils + "nubes.runner",
        utils + "nubes.instance_task",
        utils + "nubes.client",
        "httpx",
    }
    assert not expected & set(results["before"]["imported"]), results["before"]
    assert expected <= set(results["after"]["imported"]), results["after"]
    assert len(task_lines(output, IN_PROCESS)) == 1 and live(emu, name)
