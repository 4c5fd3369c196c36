"""Run real `ansible-playbook` against the emulator and collect every task's registered result.

Each call writes one playbook (localhost, connection local, the venv's Python as interpreter) whose tasks
register their results and never stop the play (`ignore_errors`), then a last task writes all results to a
JSON file. Environment: ANSIBLE_COLLECTIONS_PATH=<repo>/.collections, NUBES_API_ENDPOINT/NUBES_API_TOKEN of
the emulator and a temporary NUBES_STATE_PATH.
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


@dataclass
class PlaybookRunner:
    """Runs task lists as playbooks in ``workdir`` with one state file."""

    workdir: Path
    endpoint: str
    token: str
    runs: int = field(default=0)
    output: str = field(default="")  # stdout + stderr of the last run
    extra_env: dict[str, str] = field(default_factory=dict)  # set (or, with "", unset) for every run
    options: tuple[str, ...] = field(default=())  # extra ansible-playbook arguments, e.g. ("-vvvv",)

    @property
    def state_path(self) -> Path:
        return self.workdir / "state.json"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
            ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
            NUBES_API_ENDPOINT=self.endpoint,
            NUBES_API_TOKEN=self.token,
            NUBES_STATE_PATH=str(self.state_path),
            ANSIBLE_LOCALHOST_WARNING="false",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
            ANSIBLE_NOCOLOR="1",
            PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        )
        for name, value in self.extra_env.items():
            if value:
                env[name] = value
            else:
                env.pop(name, None)
        return env

    def run(self, tasks: list[dict[str, Any]], check: bool = False, diff: bool = False) -> list[dict[str, Any]]:
        """Run the tasks in one play; returns each task's registered result, in order."""
        self.runs += 1
        results_file = self.workdir / f"results-{self.runs}.json"
        play_tasks = []
        names = []
        for index, task in enumerate(tasks):
            name = f"r{index}"
            names.append(name)
            play_tasks.append({**task, "register": name, "ignore_errors": True})
        collect = "{" + ", ".join(f"'{n}': {n}" for n in names) + "}"
        play_tasks.append(
            {
                "name": "collect results",
                "ansible.builtin.copy": {"content": "{{ " + collect + " | to_json }}", "dest": str(results_file)},
                "check_mode": False,
                "diff": False,
            }
        )
        play = [
            {
                "hosts": "localhost",
                "connection": "local",
                "gather_facts": False,
                "vars": {"ansible_python_interpreter": sys.executable},
                "tasks": play_tasks,
            }
        ]
        path = self.workdir / f"play-{self.runs}.yml"
        path.write_text(yaml.safe_dump(play, sort_keys=False, allow_unicode=True), encoding="utf-8")
        command = [str(BIN / "ansible-playbook"), "-i", "localhost,", *self.options, str(path)]
        if check:
            command.append("--check")
        if diff:
            command.append("--diff")
        proc = subprocess.run(
            command,
            cwd=self.workdir,
            env=self.env(),
            capture_output=True,
            text=True,
            check=False,
            timeout=PLAYBOOK_TIMEOUT,
        )
        self.output = proc.stdout + proc.stderr
        if not results_file.is_file():
            raise AssertionError(f"ansible-playbook failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        data = json.loads(results_file.read_text(encoding="utf-8"))
        return [data[n] for n in names]

    def one(self, module: str, args: dict[str, Any], check: bool = False, diff: bool = False) -> dict[str, Any]:
        """Run one module task; returns its result."""
        return self.run([{"name": module, f"nubes.cloud.{module}": args}], check=check, diff=diff)[0]


def write_calls(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The emulator log entries that change something (anything but GET), admin API excluded."""
    return [r for r in requests if r["method"] != "GET" and "/_emulator/" not in r["path"]]


def api_gets(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """GET requests to the deck-api (admin API excluded)."""
    return [r for r in requests if r["method"] == "GET" and "/_emulator/" not in r["path"]]


def create_raw_instance(endpoint: str, token: str, service_id: int, name: str, timeout: float = 30.0) -> str:
    """Create an instance of a service the collection has no module for (e.g. the org, 19), straight
    through the deck-api (V6 flow: instance, create operation with its API defaults, run, poll)."""
    import re
    import time

    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=endpoint, headers=headers, timeout=30) as client:
        created = client.post("/instances", json={"serviceId": service_id, "displayName": name, "descr": ""})
        created.raise_for_status()
        uid = re.findall(r"[0-9A-Fa-f-]{36}", created.headers["Location"])[-1]
        op = client.post("/instanceOperations", json={"instanceUid": uid, "operation": "create"})
        op.raise_for_status()
        op_uid = re.findall(r"[0-9A-Fa-f-]{36}", op.headers["Location"])[-1]
        params = client.get(f"/instanceOperations/{op_uid}", params={"fields": "cfsParams"}).json()
        for param in params["instanceOperation"].get("cfsParams") or []:
            value = param.get("paramValue") or param.get("defaultValue") or ""
            client.post(
                "/instanceOperationCfsParams",
                json={
                    "instanceOperationUid": op_uid,
                    "svcOperationCfsParamId": param["svcOperationCfsParamId"],
                    "paramValue": str(value),
                },
            ).raise_for_status()
        client.post(f"/instanceOperations/{op_uid}/run", json={}).raise_for_status()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = client.get(f"/instanceOperations/{op_uid}").json()["instanceOperation"]
            if state.get("dtFinish") or state.get("isSuccessful") is not None:
                if state.get("isSuccessful") is False:
                    raise AssertionError(f"creating {name} (service {service_id}) failed: {state.get('errorLog')}")
                return uid
            time.sleep(0.1)
    raise AssertionError(f"creating {name} (service {service_id}) did not finish in {timeout} s")
