"""Run the real `ansible-inventory` on an inventory file of nubes.cloud.nubes and read what it printed.

`InventoryRunner.run(config)` writes `config` (a dict) as `<name>.nubes.yml` into the test's directory, runs
`ansible-inventory -i <file> --list` (or `--graph`) with the collection from this repository and
NUBES_API_ENDPOINT / NUBES_API_TOKEN of the emulator, and returns the parsed inventory together with the
deck-api requests the emulator logged during the run (admin calls excluded).
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

from tests.emulator import EmulatorServer

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
TIMEOUT = 300


def plain(data: Any) -> Any:
    """ansible-inventory marks strings it does not trust as templates `{"__ansible_unsafe": "..."}`: unwrap."""
    if isinstance(data, dict):
        if set(data) == {"__ansible_unsafe"}:
            return data["__ansible_unsafe"]
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [plain(v) for v in data]
    return data


@dataclass
class InventoryRun:
    rc: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def hostvars(self) -> dict[str, dict[str, Any]]:
        return dict(self.data.get("_meta", {}).get("hostvars", {}))

    @property
    def hosts(self) -> set[str]:
        return set(self.hostvars)

    def group(self, name: str) -> set[str]:
        """The hosts of a group, its children's included."""
        entry = self.data.get(name) or {}
        hosts = set(entry.get("hosts") or [])
        for child in entry.get("children") or []:
            hosts |= self.group(child)
        return hosts

    @property
    def groups(self) -> set[str]:
        return {k for k in self.data if k != "_meta"}

    def host_of(self, uid: str) -> str:
        """The host name given to the instance `uid`."""
        found = [h for h, v in self.hostvars.items() if v.get("instance_uid") == uid]
        if len(found) != 1:
            raise AssertionError(f"{len(found)} hosts carry instance_uid {uid}: {found}")
        return found[0]

    def calls(self, method: str = "GET", path_prefix: str = "") -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == method and r["path"].startswith(path_prefix)]

    @property
    def list_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "GET" and r["path"] == "/instances"]

    @property
    def detail_calls(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "GET" and r["path"].startswith("/instances/")]


class InventoryRunner:
    """ansible-inventory against one emulator, with its files in ``workdir``."""

    def __init__(self, emu: EmulatorServer, workdir: Path) -> None:
        self.emu = emu
        self.workdir = workdir

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        for key in ("NUBES_API_ENDPOINT", "NUBES_API_TOKEN", "ANSIBLE_INVENTORY_UNPARSED_FAILED"):
            env.pop(key, None)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
            ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
            NUBES_API_ENDPOINT=self.emu.endpoint,
            NUBES_API_TOKEN=self.emu.token,
            NUBES_BACKOFF_SCALE="0.01",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_FORCE_COLOR="0",
            PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        )
        env.update(extra)
        return env

    def write(self, config: dict[str, Any], name: str = "inventory") -> Path:
        path = self.workdir / f"{name}.nubes.yml"
        path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return path

    def run(
        self,
        config: dict[str, Any] | Path,
        *args: str,
        graph: bool = False,
        env: dict[str, str] | None = None,
        name: str = "inventory",
    ) -> InventoryRun:
        """`ansible-inventory -i <file> --list` (or `--graph`); fails the test when it does not exit 0."""
        path = config if isinstance(config, Path) else self.write(config, name)
        since = self.emu.last_seq
        command = [str(BIN / "ansible-inventory"), "-i", str(path), "--graph" if graph else "--list", *args]
        proc = subprocess.run(
            command,
            cwd=self.workdir,
            env=self.env(**(env or {})),
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT,
        )
        requests = [r for r in self.emu.requests(since=since) if "/_emulator" not in r["path"]]
        run = InventoryRun(proc.returncode, proc.stdout, proc.stderr, requests)
        if proc.returncode == 0 and not graph:
            start = 0 if proc.stdout.startswith("{") else proc.stdout.index("\n{") + 1  # after -v lines
            run.data = plain(json.loads(proc.stdout[start:]))
        return run

    def ok(self, config: dict[str, Any] | Path, *args: str, **kwargs: Any) -> InventoryRun:
        """Like run(), but the inventory must parse: the source failing is a test failure."""
        env = {"ANSIBLE_INVENTORY_UNPARSED_FAILED": "true", **(kwargs.pop("env", None) or {})}
        run = self.run(config, *args, env=env, **kwargs)
        if run.rc != 0:
            raise AssertionError(f"ansible-inventory failed (rc={run.rc}):\n{run.stdout}\n{run.stderr}")
        return run
