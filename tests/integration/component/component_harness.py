"""Playbook-level harness of the component tests: real ``ansible-playbook`` runs against the test cluster."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

REPO = Path(__file__).resolve().parents[3]
SOURCES = Path(__file__).resolve().parent / "sources"
ANSIBLE_PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"
PLAYBOOK_TIMEOUT_SECONDS = 600


class PlaybookRun:
    """Outcome of one ansible-playbook run: exit code, output and every task's registered result."""

    def __init__(self, proc: subprocess.CompletedProcess[str], results: List[Dict[str, Any]]) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.results = results

    def __getitem__(self, index: int) -> Dict[str, Any]:
        return self.results[index]


class Ansible:
    """Write a playbook of ``nubes.cloud.component`` tasks and run it; results come back as JSON."""

    def __init__(self, workdir: Path, kubeconfig: str) -> None:
        self.workdir = workdir
        self.kubeconfig = kubeconfig
        self.runs = 0

    def source(self, name: str) -> str:
        """Copy a source directory from tests/integration/component/sources into the work dir; return its path."""
        target = self.workdir / name
        if not target.exists():
            shutil.copytree(SOURCES / name, target)
        return str(target)

    def run(
        self,
        tasks: List[Dict[str, Any]],
        check: bool = False,
        diff: bool = False,
        extra_env: Optional[Dict[str, str]] = None,
        verbosity: int = 0,
    ) -> PlaybookRun:
        """Run the tasks (each registered, errors ignored so all results come back) on localhost."""
        self.runs += 1
        out_file = self.workdir / f"results-{self.runs}.json"
        play_tasks: List[Dict[str, Any]] = []
        names: List[str] = []
        for index, task in enumerate(tasks):
            entry = dict(task)
            entry.setdefault("name", f"task {index}")
            entry["register"] = f"result_{index}"
            entry["ignore_errors"] = True
            play_tasks.append(entry)
            names.append(f"result_{index}")
        collected = "[" + ", ".join(f"{name} | default({{}})" for name in names) + "]"
        play_tasks.append(
            {
                "name": "save the results",
                "ansible.builtin.copy": {"content": "{{ " + collected + " | to_json }}", "dest": str(out_file)},
                "check_mode": False,
                "diff": False,
            }
        )
        playbook = [{"hosts": "localhost", "gather_facts": False, "tasks": play_tasks}]
        path = self.workdir / f"playbook-{self.runs}.yml"
        path.write_text(yaml.safe_dump(playbook, sort_keys=False), encoding="utf-8")
        env = self.environment(extra_env)
        argv = [str(ANSIBLE_PLAYBOOK), str(path)]
        if check:
            argv.append("--check")
        if diff:
            argv.append("--diff")
        if verbosity:
            argv.append("-" + "v" * verbosity)
        proc = subprocess.run(
            argv,
            cwd=self.workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=PLAYBOOK_TIMEOUT_SECONDS,
            check=False,
        )
        if not out_file.exists():
            raise AssertionError(
                f"ansible-playbook did not finish the play (exit {proc.returncode}):\n"
                f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
            )
        results = json.loads(out_file.read_text(encoding="utf-8"))
        return PlaybookRun(proc, results)

    def environment(self, extra_env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        """The environment of an ansible-playbook run against the test cluster."""
        env = dict(os.environ)
        env.update(
            {
                "ANSIBLE_COLLECTIONS_PATH": str(REPO / ".collections"),
                "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
                "ANSIBLE_LOCALHOST_WARNING": "false",
                "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
                "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
                "KUBECONFIG": self.kubeconfig,
            }
        )
        env.update(extra_env or {})
        return env

    def role_command(self, role_vars: Dict[str, Any]) -> List[str]:
        """Write a playbook that runs the nubes.cloud.component role with ``role_vars``; return its argv (the role
        fails the play on an error, so the caller reads the exit code and the output)."""
        self.runs += 1
        play = {
            "hosts": "localhost",
            "gather_facts": False,
            "tasks": [{"ansible.builtin.include_role": {"name": "nubes.cloud.component"}, "vars": role_vars}],
        }
        path = self.workdir / f"role-playbook-{self.runs}.yml"
        path.write_text(yaml.safe_dump([play], sort_keys=False), encoding="utf-8")
        return [str(ANSIBLE_PLAYBOOK), str(path)]

    def run_role(self, role_vars: Dict[str, Any]) -> subprocess.CompletedProcess[str]:
        """Run the role once and wait for it."""
        return subprocess.run(
            self.role_command(role_vars),
            cwd=self.workdir,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=PLAYBOOK_TIMEOUT_SECONDS,
            check=False,
        )


def component(namespace: str, name: str, **options: Any) -> Dict[str, Any]:
    """A ``nubes.cloud.component`` task."""
    args: Dict[str, Any] = {"name": name, "namespace": namespace}
    args.update(options)
    return {"nubes.cloud.component": args}
