"""Shared pieces of the benchmarks: statistics, the machine description, and ansible-playbook runs that record
per-task wall-clock times (bench/callback_plugins/bench_timing.py) against an in-process emulator.

Every figure is reported as {median, min, max, runs}; ratios are computed per run (both sides measured in the
same playbook or the same round) and then summarised the same way.
"""

from __future__ import annotations

import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"
# The runtime-only venv (issue 19): requirements.txt + ansible-core, what an execution environment holds; made by
# bench/setup.sh. The headline of the cloud rows; the dev venv (.venv, with ansible-lint, molecule...) beside it.
RUNTIME_BIN = ROOT / ".cache" / "bench-runtime-venv" / "bin"
RESULTS = ROOT / "bench" / "results"
CALLBACKS = ROOT / "bench" / "callback_plugins"
PLAYBOOK_TIMEOUT = 1800


def quick() -> bool:
    """BENCH_QUICK=1: fewer repetitions (the figures are still medians of at least 3 runs where affordable)."""
    return os.environ.get("BENCH_QUICK", "") not in ("", "0")


def summary(values: Sequence[float], digits: int = 3) -> dict[str, Any]:
    """Median, min and max of the runs."""
    if not values:
        return {"median": None, "min": None, "max": None, "runs": 0}
    return {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
        "runs": len(values),
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return 0.0


def _version(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "not available"
    return out.strip().splitlines()[0] if out.strip() else "not available"


def machine() -> dict[str, Any]:
    """What the figures ran on."""
    ansible = _version([str(BIN / "ansible"), "--version"])
    match = re.search(r"core ([0-9.]+)", ansible)
    kubectl = _version(["kubectl", "version", "--client"])
    return {
        "nproc": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "ansible_core": match.group(1) if match else ansible,
        "kubectl": kubectl.replace("Client Version: ", ""),
        "kernel": platform.release(),
        "load_average": load_average(),
    }


def save(area: str, data: dict[str, Any]) -> Path:
    """Write bench/results/<area>.json (with the machine and load at the end of the area's run)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    data = {"area": area, "quick": quick(), "machine": machine(), **data}
    path = RESULTS / f"{area}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"bench: wrote {path.relative_to(ROOT)}")
    return path


@dataclass
class TaskTime:
    task: str
    action: str
    host: str
    status: str
    start: float
    end: float
    changed: bool
    api_calls: Any = None
    msg: str = ""

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass
class PlaybookRun:
    wall: float
    rc: int
    tasks: list[TaskTime]
    stdout: str
    stderr: str
    cpu: float = 0.0  # user + system seconds of ansible-playbook and everything it ran (load-independent)


@dataclass
class Playbooks:
    """Runs plays with the bench timing callback, the emulator's env and one state file per instance."""

    endpoint: str = ""
    token: str = ""
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="nubes-bench-")))
    extra_env: dict[str, str] = field(default_factory=dict)
    collections_path: str = str(ROOT / ".collections")
    runs: int = 0
    bin_dir: Path = BIN  # the venv of ansible-playbook and of the module processes (see venvs())

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=self.collections_path,
            ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
            ANSIBLE_CALLBACK_PLUGINS=str(CALLBACKS),
            ANSIBLE_CALLBACKS_ENABLED="bench_timing",
            ANSIBLE_LOCALHOST_WARNING="false",
            ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_PYTHON_INTERPRETER=str(self.bin_dir / "python"),
            PATH=f"{self.bin_dir}{os.pathsep}{env.get('PATH', '')}",
        )
        if self.endpoint:
            env.update(
                NUBES_API_ENDPOINT=self.endpoint,
                NUBES_API_TOKEN=self.token,
                NUBES_STATE_PATH=str(self.workdir / "state.json"),
            )
        env.update(self.extra_env)
        return env

    def run(self, plays: list[dict[str, Any]], inventory: str = "localhost,", forks: int = 5) -> PlaybookRun:
        """Run the plays; fails (RuntimeError with the output) when ansible-playbook exits non-zero."""
        import time

        self.runs += 1
        path = self.workdir / f"play-{self.runs}.yml"
        timing = self.workdir / f"timing-{self.runs}.json"
        path.write_text(yaml.safe_dump(plays, sort_keys=False, allow_unicode=True), encoding="utf-8")
        env = self.env()
        env["NUBES_BENCH_TIMING_FILE"] = str(timing)
        command = [str(self.bin_dir / "ansible-playbook"), "-i", inventory, "-f", str(forks), str(path)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            command, cwd=self.workdir, env=env, capture_output=True, text=True, check=False, timeout=PLAYBOOK_TIMEOUT
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            raise RuntimeError(
                f"ansible-playbook {path} failed (rc={proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
            )
        records = json.loads(timing.read_text(encoding="utf-8")) if timing.is_file() else []
        return PlaybookRun(wall, proc.returncode, [TaskTime(**r) for r in records], proc.stdout, proc.stderr, cpu)


def local_play(tasks: list[dict[str, Any]], hosts: str = "localhost") -> dict[str, Any]:
    """One play on localhost (connection local, the Python of the venv that runs ansible-playbook)."""
    return {
        "hosts": hosts,
        "connection": "local",
        "gather_facts": False,
        "vars": {"ansible_python_interpreter": "{{ ansible_playbook_python }}"},
        "tasks": tasks,
    }


def api_calls(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deck-api requests of the log (the emulator's admin API excluded)."""
    return [r for r in requests if "/_emulator/" not in r["path"]]


def count_by_method(requests: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in requests:
        counts[entry["method"]] = counts.get(entry["method"], 0) + 1
    return counts


def ensure_repo_on_path() -> None:
    """Make `tests.emulator` and `ansible_collections.nubes.cloud` importable from a bench script."""
    for entry in (str(ROOT / ".collections"), str(ROOT)):
        if entry not in sys.path:
            sys.path.insert(0, entry)


def venvs() -> dict[str, Path]:
    """The venvs the cloud rows are measured in, headline first: `runtime-only` (made by bench/setup.sh when
    missing) and `dev` (.venv)."""
    if not (RUNTIME_BIN / "ansible-playbook").exists():
        subprocess.run(["bash", str(ROOT / "bench" / "setup.sh")], check=True)
    return {"runtime-only": RUNTIME_BIN, "dev": BIN}
