"""One real `ansible-playbook` run that manages N cloud resources in parallel (one inventory host per resource).

Every host of the inventory (`r0` ... `r<N-1>`, connection local, the venv's Python) runs the same task list, so
a playbook of 10 resources is 10 forks of one module task. Each host writes its registered results to
`results/<host>.json`; :meth:`Fleet.start` returns the live process (crash tests SIGKILL it).
Environment: ANSIBLE_COLLECTIONS_PATH=<repo>/.collections, NUBES_API_ENDPOINT / NUBES_API_TOKEN of the emulator,
NUBES_STATE_PATH in the work dir and NUBES_BACKOFF_SCALE=0.01 (the P33 backoff, scaled down for tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
PLAYBOOK_TIMEOUT = 600
BACKOFF_SCALE = "0.01"


@dataclass
class FleetRun:
    """What one run left behind: exit code, output and each host's registered task results."""

    returncode: int
    stdout: str
    stderr: str
    results: dict[str, list[dict[str, Any]]]

    def last(self) -> dict[str, dict[str, Any]]:
        """Each host's last task result."""
        return {host: items[-1] for host, items in self.results.items() if items}


@dataclass
class Fleet:
    """Runs task lists on `size` hosts in parallel against one endpoint and one state file."""

    workdir: Path
    endpoint: str
    token: str
    size: int = 10
    extra_env: dict[str, str] = field(default_factory=dict)
    runs: int = 0

    @property
    def hosts(self) -> list[str]:
        return [f"r{index}" for index in range(self.size)]

    @property
    def state_path(self) -> Path:
        return self.workdir / "state.json"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
            ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
            ANSIBLE_FORKS=str(self.size),
            ANSIBLE_LOCALHOST_WARNING="false",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_HOST_KEY_CHECKING="false",
            ANSIBLE_RETRY_FILES_ENABLED="false",
            NUBES_API_ENDPOINT=self.endpoint,
            NUBES_API_TOKEN=self.token,
            NUBES_STATE_PATH=str(self.state_path),
            NUBES_BACKOFF_SCALE=BACKOFF_SCALE,
            PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        )
        env.update(self.extra_env)
        return env

    def _write(self, tasks: list[dict[str, Any]], hosts: list[str] | None) -> tuple[list[str], Path]:
        self.runs += 1
        run_dir = self.workdir / f"run-{self.runs}"
        (run_dir / "results").mkdir(parents=True)
        inventory = run_dir / "inventory.ini"
        lines = [f"{h} ansible_connection=local ansible_python_interpreter={sys.executable}" for h in self.hosts]
        inventory.write_text("\n".join(lines) + "\n", encoding="utf-8")
        play_tasks: list[dict[str, Any]] = []
        names = []
        for index, task in enumerate(tasks):
            names.append(f"t{index}")
            play_tasks.append({**task, "register": f"t{index}", "ignore_errors": True})
        collect = "[" + ", ".join(f"{n} | default({{}})" for n in names) + "]"
        play_tasks.append(
            {
                "name": "collect results",
                "ansible.builtin.copy": {
                    "content": "{{ " + collect + " | to_json }}",
                    "dest": str(run_dir / "results") + "/{{ inventory_hostname }}.json",
                },
                "check_mode": False,
                "diff": False,
                "no_log": True,
            }
        )
        play = [{"hosts": ",".join(hosts or self.hosts), "gather_facts": False, "tasks": play_tasks}]
        playbook = run_dir / "play.yml"
        playbook.write_text(yaml.safe_dump(play, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return [str(BIN / "ansible-playbook"), "-i", str(inventory), str(playbook)], run_dir

    def start(
        self, tasks: list[dict[str, Any]], options: tuple[str, ...] = (), hosts: list[str] | None = None
    ) -> tuple[subprocess.Popen[str], Path]:
        """Start ansible-playbook without waiting; returns the process and its run dir. The process leads its
        own session, so a crash test can SIGKILL the whole process group (playbook, workers, module)."""
        command, run_dir = self._write(tasks, hosts)
        proc = subprocess.Popen(
            [*command, *options],
            cwd=run_dir,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        return proc, run_dir

    def run(
        self, tasks: list[dict[str, Any]], options: tuple[str, ...] = (), hosts: list[str] | None = None
    ) -> FleetRun:
        """Run the tasks on every host (or `hosts`) and collect the results; fails when no host got that far."""
        proc, run_dir = self.start(tasks, options, hosts)
        stdout, stderr = proc.communicate(timeout=PLAYBOOK_TIMEOUT)
        results = {
            path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted((run_dir / "results").glob("*.json"))
        }
        if not results:
            raise AssertionError(f"ansible-playbook failed (rc={proc.returncode}):\n{stdout}\n{stderr}")
        return FleetRun(proc.returncode, stdout, stderr, results)
