"""Run real `ansible-playbook` processes the way AWX runs jobs: each "pod" has its own HOME (nothing local
survives between pods), the state lives in the Kubernetes backend (or a shared file for one controller).

`Pod.start(tasks)` starts one ansible-playbook without waiting; `Pod.results(proc)` waits and returns
{host: registered result}. Every module task is registered and `ignore_errors`, then each host writes its result
to `<pod dir>/result-<host>.json`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
PLAYBOOK_TIMEOUT = 900


@dataclass
class Pod:
    """One ansible-playbook run in a fresh directory (its HOME) with the given NUBES_* environment."""

    root: Path
    env_vars: Dict[str, str]
    hosts: List[str] = field(default_factory=lambda: ["localhost"])
    forks: int = 5
    name: str = field(default_factory=lambda: "pod-" + uuid.uuid4().hex[:8])
    output: str = field(default="")  # what ansible-playbook printed, once `results` returned

    @property
    def home(self) -> Path:
        return self.root / self.name

    def env(self) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUBES_", "ANSIBLE_", "KUBECONFIG"))}
        env.update(
            HOME=str(self.home),
            ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
            ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
            ANSIBLE_LOCALHOST_WARNING="false",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_FORKS=str(self.forks),
            PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        env.update(self.env_vars)
        return env

    def start(self, tasks: List[Dict[str, Any]]) -> subprocess.Popen[str]:
        self.home.mkdir(parents=True, exist_ok=True)
        play_tasks = [{**task, "register": "r", "ignore_errors": True} for task in tasks[:1]]
        play_tasks.append(
            {
                "name": "write the result",
                "ansible.builtin.copy": {
                    "content": "{{ r | to_json }}",
                    "dest": str(self.home) + "/result-{{ inventory_hostname }}.json",
                },
            }
        )
        play = [{"hosts": "all", "gather_facts": False, "tasks": play_tasks}]
        (self.home / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False), encoding="utf-8")
        lines = [f"{h} ansible_connection=local ansible_python_interpreter={sys.executable}" for h in self.hosts]
        (self.home / "inventory.ini").write_text("[all]\n" + "\n".join(lines) + "\n", encoding="utf-8")
        command = [str(BIN / "ansible-playbook"), "-i", "inventory.ini", "play.yml"]
        return subprocess.Popen(
            command, cwd=self.home, env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    def results(self, proc: subprocess.Popen[str]) -> Dict[str, Dict[str, Any]]:
        output, _unused = proc.communicate(timeout=PLAYBOOK_TIMEOUT)
        self.output = output
        found: Dict[str, Dict[str, Any]] = {}
        for host in self.hosts:
            path = self.home / f"result-{host}.json"
            if not path.is_file():
                raise AssertionError(f"{self.name}: no result of {host} (rc={proc.returncode}):\n{output}")
            found[host] = json.loads(path.read_text(encoding="utf-8"))
        return found

    def run(self, tasks: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
        return self.results(self.start(tasks))


def live_instances(emu: Any, service_id: int, name: str) -> List[Dict[str, Any]]:
    """Live (not deleted) instances of `service_id` named `name` in the emulator."""
    return [
        i
        for i in emu.instances()
        if i.get("displayName") == name and int(i.get("serviceId", 0)) == service_id and not i.get("isDeleted")
    ]


def write_calls(emu: Any, since: int) -> List[Dict[str, Any]]:
    """Deck-api calls that change something, since log sequence `since` (admin API excluded)."""
    return [r for r in emu.requests(since=since) if r["method"] != "GET" and "/_emulator/" not in r["path"]]


def failed_msgs(results: Dict[str, Dict[str, Any]]) -> List[str]:
    return [f"{host}: {r.get('msg')}" for host, r in results.items() if r.get("failed")]


def kube_env(kubeconfig: str, namespace: str, workspace: str, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = {
        "NUBES_STATE_BACKEND": "kubernetes",
        "NUBES_STATE_KUBECONFIG": kubeconfig,
        "NUBES_STATE_NAMESPACE": namespace,
        "NUBES_WORKSPACE": workspace,
    }
    env.update(extra or {})
    return env
