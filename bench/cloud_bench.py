"""Cloud module benchmarks against the in-process deck-api emulator (writes bench/results/cloud.json).

- overhead: per-task wall time of a no-op `nubes.cloud.dummy` task vs `ansible.builtin.ping`, interleaved in the
  same playbook (bench/callback_plugins/bench_timing.py); the ratio is computed per playbook run;
- import time: `python -X importtime` of generated modules vs `ansible.module_utils.basic` (what ping imports);
- the AnsiballZ payloads of ping and a no-op dummy: size, files shipped, files imported, compile time;
- API calls per action (create, no-op, modify, destroy) from the emulator's request log;
- polling latency: from the operation's `dtFinish` in the emulator to the task's result arriving at the
  controller, for a 2 s and a 60 s create, next to the latency of the core's poll schedule and of fixed 10 s and
  5 s pollers simulated against the same operation (see `poll_simulation.py`).

The overhead, import and 2 s latency figures are measured in two venvs (benchlib.venvs()): the runtime-only venv
(requirements.txt + ansible-core, what an execution environment holds) is the headline, under the plain keys; the
dev venv (.venv) beside it, under the same keys with `_dev` appended.

Run: .venv/bin/python bench/cloud_bench.py  (BENCH_QUICK=1 for fewer repetitions)
"""

from __future__ import annotations

import argparse
import base64
import glob
import io
import json
import re
import resource
import statistics
import subprocess
import sys
import time
import uuid
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (
    RESULTS,
    ROOT,
    Playbooks,
    api_calls,
    count_by_method,
    ensure_repo_on_path,
    local_play,
    quick,
    save,
    summary,
    venvs,
)
from poll_simulation import CORE, POLLERS, expected, simulate

ensure_repo_on_path()

from tests.emulator import EmulatorServer  # noqa: E402

REALM = "dummy"
IMPORT_MODULES = ("dummy", "s3", "postgres")
SHORT_OP, LONG_OP = 2.0, 60.0
TARGET_RATIO = 1.3  # no-op dummy task / ping task, wall (issue 19)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def dummy_task(name: str, **extra: Any) -> dict[str, Any]:
    return {"resource_name": name, "resource_realm": REALM, **extra}


# ------------------------------------------------------------------------------------------- overhead
def cpu_seconds(command: list[str], env: dict[str, str], cwd: Path = ROOT) -> float:
    """User + system CPU seconds of one run of the command (load-independent, unlike wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, capture_output=True, check=True, env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def module_process_cpu(playbooks: Playbooks, name: str, runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """CPU seconds of the module processes themselves: the AnsiballZ payloads of one ping and one no-op dummy task
    are kept (ANSIBLE_KEEP_REMOTE_FILES) and re-run directly, each `runs` times; and the profile of both payloads."""
    remote = playbooks.workdir / "remote"
    saved = dict(playbooks.extra_env)
    # the module path (issue 26: a local no-op dummy task runs in the controller's process, with no payload)
    playbooks.extra_env.update(ANSIBLE_KEEP_REMOTE_FILES="1", ANSIBLE_REMOTE_TMP=str(remote), NUBES_EXECUTION="module")
    try:
        playbooks.run(
            [
                local_play(
                    [
                        {"name": "ping", "ansible.builtin.ping": {}},
                        {"name": "noop", "nubes.cloud.dummy": dummy_task(name)},
                    ]
                )
            ]
        )
    finally:
        playbooks.extra_env = saved
    env = playbooks.env()
    figures: dict[str, list[float]] = {"ping": [], "dummy": [], "ratio": []}
    payloads = {label: glob.glob(str(remote / "*" / f"AnsiballZ_{label}.py"))[0] for label in ("ping", "dummy")}
    python = str(playbooks.bin_dir / "python")
    for _run in range(runs):
        ping = cpu_seconds([python, payloads["ping"]], env)
        dummy = cpu_seconds([python, payloads["dummy"]], env)
        figures["ping"].append(ping)
        figures["dummy"].append(dummy)
        figures["ratio"].append(dummy / ping)
    profile = {label: payload_profile(python, path, env) for label, path in payloads.items()}
    return {label: summary(values, 3) for label, values in figures.items()}, profile


IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$")


def payload_profile(python: str, path: str, env: dict[str, str]) -> dict[str, Any]:
    """What an AnsiballZ payload costs besides its imports' own work: its size, the Python files it ships, the
    ones the run imports (zipimport compiles each from source on every run: a zip holds no .pyc) and the time to
    compile those (best of 7, in this process)."""
    text = Path(path).read_text(encoding="utf-8")
    match = re.search(r"^zip_data='([^']*)'", text, re.M)
    if not match:
        raise RuntimeError(f"{path}: no zip_data in the AnsiballZ wrapper")
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(match[1])))
    sources = {
        name[: -len(".py")].replace("/", ".").removesuffix(".__init__"): archive.read(name)
        for name in archive.namelist()
        if name.endswith(".py")
    }
    proc = subprocess.run(
        [python, "-X", "importtime", path], capture_output=True, text=True, check=True, env=env, cwd=ROOT
    )
    imported = [m[1] for m in map(IMPORTED.match, proc.stderr.splitlines()) if m and m[1] in sources]
    fqn = re.search(r"^module_fqn='([^']*)'", text, re.M)
    if fqn and fqn[1] in sources and fqn[1] not in imported:
        imported.append(fqn[1])  # the module itself: run by runpy, so -X importtime does not list it
    compile_seconds = []
    for _round in range(7):
        start = time.perf_counter()
        for name in imported:
            compile(sources[name], name, "exec", dont_inherit=True)
        compile_seconds.append(time.perf_counter() - start)
    ours = [name for name in sources if name.startswith("ansible_collections.nubes.")]
    return {
        "payload_bytes": len(text.encode("utf-8")),
        "files_shipped": len(sources),
        "source_bytes_shipped": sum(len(source) for source in sources.values()),
        "files_imported": len(imported),
        "source_bytes_imported": sum(len(sources[name]) for name in imported),
        "nubes_files_shipped": len(ours),
        "nubes_files_imported": sum(1 for name in imported if name.startswith("ansible_collections.nubes.")),
        "nubes_shipped_not_imported": sorted(
            name.removeprefix("ansible_collections.nubes.cloud.plugins.") for name in set(ours) - set(imported)
        ),
        "compile_seconds_imported": round(min(compile_seconds), 4),
    }


def overhead(emu: EmulatorServer, rounds: int, pairs: int, bin_dir: Path) -> dict[str, Any]:
    """Interleaved ping / no-op dummy tasks; per run the medians of each and their ratio."""
    emu.configure(op_duration=0.2)
    name = unique("bench-noop")
    playbooks = Playbooks(emu.endpoint, emu.token, bin_dir=bin_dir)
    playbooks.run([local_play([{"name": "create", "nubes.cloud.dummy": dummy_task(name)}])])
    pings, noops, ratios, calls_per_task = [], [], [], []
    for _round in range(rounds):
        tasks: list[dict[str, Any]] = []
        for index in range(pairs):
            tasks.append({"name": f"ping {index}", "ansible.builtin.ping": {}})
            tasks.append({"name": f"noop {index}", "nubes.cloud.dummy": dummy_task(name)})
        since = emu.last_seq
        run = playbooks.run([local_play(tasks)])
        calls = api_calls(emu.requests(since=since))
        ping = statistics.median(t.seconds for t in run.tasks if t.action == "ansible.builtin.ping")
        noop_times = [t for t in run.tasks if t.action == "nubes.cloud.dummy"]
        if any(t.changed for t in noop_times):
            raise RuntimeError("a no-op dummy task reported changed: the no-op benchmark is not measuring a no-op")
        noop = statistics.median(t.seconds for t in noop_times)
        pings.append(ping)
        noops.append(noop)
        ratios.append(noop / ping)
        calls_per_task.append(len(calls) / pairs)
    cpu, payloads = module_process_cpu(playbooks, name, runs=rounds * 2)
    return {
        "venv": str(bin_dir.parent.relative_to(ROOT)),
        "module_process_cpu_seconds": cpu,
        "payload": payloads,
        "pairs_per_run": pairs,
        "ping_seconds": summary(pings),
        "noop_seconds": summary(noops),
        "ratio": summary(ratios, 2),
        "api_calls_per_noop": summary(calls_per_task, 2),
        "target_ratio": TARGET_RATIO,
    }


# ------------------------------------------------------------------------------------------- import time
IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)$")


def importtime(statement: str, python: str) -> tuple[float, dict[str, float]]:
    """Total import seconds of the statement's top module, and self time by top-level package."""
    proc = subprocess.run(
        [python, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / ".collections"), "PATH": "/usr/bin:/bin"},
    )
    total = 0.0
    groups: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if not match:
            continue
        self_us, cumulative_us, indent, name = int(match[1]), int(match[2]), match[3], match[4]
        if len(indent) == 1:
            total += cumulative_us / 1e6
        groups[package_group(name)] = groups.get(package_group(name), 0.0) + self_us / 1e6
    return total, groups


def package_group(name: str) -> str:
    """Group a module name for the import breakdown."""
    if name.startswith("ansible_collections.nubes.cloud.plugins.module_utils"):
        return "nubes.cloud module_utils"
    if name.startswith("ansible_collections.nubes.cloud"):
        return "nubes.cloud module file"
    if name.startswith("ansible.module_utils") or name == "ansible" or name.startswith("ansible._"):
        return "ansible.module_utils"
    top = name.split(".")[0]
    if top in ("httpx", "httpcore", "h11", "anyio", "sniffio", "certifi", "idna", "h2", "hpack", "hyperframe"):
        return "httpx and its deps"
    if top in ("rich", "click", "pygments", "markdown_it", "mdurl"):
        return "rich/click/pygments (httpx CLI)"
    if top in ("yaml", "_yaml"):
        return "PyYAML"
    return "stdlib and other"


def import_times(rounds: int, bin_dir: Path) -> dict[str, Any]:
    statements = {"ansible.module_utils.basic (ping's floor)": "import ansible.module_utils.basic"}
    for module in IMPORT_MODULES:
        statements[module] = f"import ansible_collections.nubes.cloud.plugins.modules.{module}"
    totals: dict[str, list[float]] = {label: [] for label in statements}
    cpu: dict[str, list[float]] = {label: [] for label in statements}
    breakdown: dict[str, list[float]] = {}
    env = {"PYTHONPATH": str(ROOT / ".collections"), "PATH": "/usr/bin:/bin"}
    python = str(bin_dir / "python")
    for _round in range(rounds):
        bare = cpu_seconds([python, "-c", "pass"], env)
        for label, statement in statements.items():
            cpu[label].append(cpu_seconds([python, "-c", statement], env) - bare)
            total, groups = importtime(statement, python)
            totals[label].append(total)
            if label == "dummy":
                for group, seconds in groups.items():
                    breakdown.setdefault(group, []).append(seconds)
    return {
        "venv": str(bin_dir.parent.relative_to(ROOT)),
        "seconds": {label: summary(values) for label, values in totals.items()},
        "cpu_seconds": {label: summary(values) for label, values in cpu.items()},
        "dummy_self_time_by_package": {
            group: summary(values)
            for group, values in sorted(breakdown.items(), key=lambda kv: -statistics.median(kv[1]))
        },
    }


# ------------------------------------------------------------------------------------------- API calls
def classify(entry: dict[str, Any]) -> str:
    if entry["method"] != "GET":
        return "writes"
    if entry["path"].startswith("/instanceOperations/"):
        return "operation reads (polls)"
    return "other reads"


def calls_per_action(emu: EmulatorServer, rounds: int) -> dict[str, Any]:
    """API calls of create, no-op, modify and destroy of a dummy instance (operations take 2 s)."""
    emu.configure(op_duration=SHORT_OP)
    playbooks = Playbooks(emu.endpoint, emu.token)
    per_action: dict[str, dict[str, list[float]]] = {}
    for _round in range(rounds):
        name = unique("bench-calls")
        steps = (
            ("create", dummy_task(name, map_example={"k": "v1"})),
            ("no-op", dummy_task(name, map_example={"k": "v1"})),
            ("modify", dummy_task(name, map_example={"k": "v2"})),
            ("destroy", {"resource_name": name, "state": "absent"}),
        )
        for action, args in steps:
            since = emu.last_seq
            run = playbooks.run([local_play([{"name": action, "nubes.cloud.dummy": args}])])
            if run.tasks[0].changed != (action != "no-op"):
                raise RuntimeError(f"dummy {action}: unexpected changed={run.tasks[0].changed}")
            calls = api_calls(emu.requests(since=since))
            kinds = {"total": float(len(calls))}
            for entry in calls:
                kinds[classify(entry)] = kinds.get(classify(entry), 0.0) + 1
            for method, count in count_by_method(calls).items():
                kinds[method] = float(count)
            bucket = per_action.setdefault(action, {})
            for key, value in kinds.items():
                bucket.setdefault(key, []).append(value)
    return {
        "operation_seconds": SHORT_OP,
        "actions": {
            action: {key: summary(values, 1) for key, values in sorted(kinds.items())}
            for action, kinds in per_action.items()
        },
    }


# ------------------------------------------------------------------------------------------- polling latency
def parse_ts(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def stamp_requests(emu: EmulatorServer) -> None:
    """Give every request-log entry of this in-process emulator its arrival time (`t`, epoch seconds), so the
    latency can be split at the poll that sees the operation finished. Wraps the log of this bench's own
    emulator instance; the emulator's code is unchanged."""
    log = emu.app.log
    if getattr(log, "bench_stamped", False):
        return
    original = log.add

    def add(entry: dict[str, Any]) -> int:
        entry["t"] = time.time()
        return original(entry)

    log.add = add  # type: ignore[method-assign]
    log.bench_stamped = True  # type: ignore[attr-defined]


def module_tail(emu: EmulatorServer, duration: float, runs: int, bin_dir: Path) -> dict[str, Any]:
    """Where the time after the last API call goes, module side: the AnsiballZ payload of one create (kept with
    ANSIBLE_KEEP_REMOTE_FILES) is re-run directly, outside Ansible, for fresh names; `tail` is the process's exit
    minus its last request's arrival at the emulator (the state-file write, the result's JSON, interpreter
    teardown). What the measured latency holds beyond it is Ansible's side (result handling, the temporary
    directory's removal, the callback)."""
    playbooks = Playbooks(emu.endpoint, emu.token, bin_dir=bin_dir)
    remote = playbooks.workdir / "remote"
    # the module path (issue 26: a local no-op dummy task runs in the controller's process, with no payload)
    playbooks.extra_env.update(ANSIBLE_KEEP_REMOTE_FILES="1", ANSIBLE_REMOTE_TMP=str(remote), NUBES_EXECUTION="module")
    name = unique("bench-tail")
    playbooks.run([local_play([{"name": "create", "nubes.cloud.dummy": dummy_task(name)}])])
    wrapper = Path(glob.glob(str(remote / "*" / "AnsiballZ_dummy.py"))[0]).read_text(encoding="utf-8")
    env = playbooks.env()
    stamp_requests(emu)
    tails, walls = [], []
    for _run in range(runs):
        fresh = unique("bench-tail")
        script = playbooks.workdir / f"{fresh}.py"
        script.write_text(wrapper.replace(name, fresh), encoding="utf-8")
        since = emu.last_seq
        start = time.time()
        proc = subprocess.run(
            [str(bin_dir / "python"), str(script)], capture_output=True, text=True, env=env, check=False
        )
        end = time.time()
        if proc.returncode != 0 or '"changed": true' not in proc.stdout:
            raise RuntimeError(
                f"module tail: the create of {fresh} failed: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
            )
        stamps = [e["t"] for e in emu.requests(since=since) if "t" in e]
        tails.append(end - max(stamps))
        walls.append(end - start)
    return {"operation_seconds": duration, "tail_seconds": summary(tails), "process_seconds": summary(walls)}


def polling_latency(emu: EmulatorServer, duration: float, hosts: int, rounds: int, bin_dir: Path) -> dict[str, Any]:
    """Create `hosts` dummy instances in parallel (one per inventory host) whose create takes `duration` s."""
    emu.configure(op_duration=0.2, durations={"dummy.create": duration})
    playbooks = Playbooks(emu.endpoint, emu.token, bin_dir=bin_dir)
    inventory = playbooks.workdir / f"latency-{int(duration)}.ini"
    inventory.write_text(
        "[bench]\n" + "".join(f"h{i} ansible_connection=local\n" for i in range(hosts)), encoding="utf-8"
    )
    measured: list[float] = []
    polls: list[float] = []
    core_schedule: list[float] = []
    phases: dict[str, list[float]] = {"poll": [], "after_poll": [], "to_controller": []}
    stamp_requests(emu)
    for _round in range(rounds):
        prefix = unique(f"bench-lat{int(duration)}")
        play = local_play(
            [{"name": "create", "nubes.cloud.dummy": dummy_task(prefix + "-{{ inventory_hostname }}")}], hosts="bench"
        )
        since = emu.last_seq
        run = playbooks.run([play], inventory=str(inventory), forks=hosts)
        log = api_calls(emu.requests(since=since))
        ops = {
            o["displayName"]: o
            for o in emu.operations()
            if o["operation"] == "create" and o["displayName"].startswith(prefix)
        }
        for task in run.tasks:
            op = ops[f"{prefix}-{task.host}"]
            submit, finish = parse_ts(op["dtSubmit"]), parse_ts(op["dtFinish"])
            measured.append(task.end - finish)
            polls.append(
                sum(1 for e in log if e["method"] == "GET" and op["instanceOperationUid"] in e["path"].lower())
            )
            core_schedule.append(simulate(CORE, finish - submit))
            uids = (op["instanceOperationUid"].lower(), op["instanceUid"].lower())
            mine = [e for e in log if any(uid in e["path"].lower() for uid in uids) and "t" in e]
            seen = [e["t"] for e in mine if e["method"] == "GET" and uids[0] in e["path"].lower() and e["t"] >= finish]
            if seen and mine:
                phases["poll"].append(min(seen) - finish)
                phases["after_poll"].append(max(e["t"] for e in mine) - min(seen))
                phases["to_controller"].append(task.end - max(e["t"] for e in mine))
    return {
        "venv": str(bin_dir.parent.relative_to(ROOT)),
        "operation_seconds": duration,
        "parallel_tasks": hosts,
        "measured_task_return_after_dtFinish": summary(measured),
        "operation_gets_per_task": summary(polls, 1),
        "core_schedule_latency_at_this_duration": summary(core_schedule),
        "return_overhead": summary([m - c for m, c in zip(measured, core_schedule)]),
        "breakdown": {
            "dtFinish -> the poll that sees it (real, with request time and drift)": summary(phases["poll"]),
            "that poll -> the module's last API call (final instance read)": summary(phases["after_poll"]),
            "last API call -> result at the controller (state file, module exit, Ansible)": summary(
                phases["to_controller"]
            ),
        },
        "module_tail": module_tail(emu, duration, runs=3 if quick() else 5, bin_dir=bin_dir)
        if duration <= SHORT_OP
        else None,
        "expected_poll_latency_over_duration_pm10pct": {
            label: dict(zip(("mean", "max", "polls"), (round(x, 3) for x in expected(label, duration))))
            for label in POLLERS
        },
    }


PARTS = ("overhead", "imports", "calls", "latency")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="comma-separated subset of "
        + ", ".join(PARTS)
        + "; a subset updates those figures in bench/results/cloud.json",
    )
    args = parser.parse_args()
    parts = [part for part in args.parts.split(",") if part]
    if set(parts) - set(PARTS):
        parser.error(f"unknown part(s): {', '.join(sorted(set(parts) - set(PARTS)))}")
    fast = quick()
    started = time.perf_counter()
    previous = RESULTS / "cloud.json"
    result: dict[str, Any] = {}
    if set(parts) != set(PARTS) and previous.exists():
        kept = json.loads(previous.read_text(encoding="utf-8"))
        result = {key: value for key, value in kept.items() if key not in ("area", "quick", "machine", "seconds")}
    bins = venvs()
    with EmulatorServer(seed=1, op_duration=0.2) as emu:
        for label, bin_dir in bins.items():
            suffix = "" if label == "runtime-only" else f"_{label}"
            if "overhead" in parts:
                print(f"cloud: overhead (no-op dummy vs ping), {label} venv", flush=True)
                result["overhead" + suffix] = overhead(
                    emu, rounds=3 if fast else 5, pairs=5 if fast else 10, bin_dir=bin_dir
                )
            if "imports" in parts:
                print(f"cloud: import time, {label} venv", flush=True)
                result["import_time" + suffix] = import_times(rounds=3 if fast else 7, bin_dir=bin_dir)
            if "latency" in parts:
                print(f"cloud: polling latency, 2 s operations, {label} venv", flush=True)
                result["latency_short" + suffix] = polling_latency(
                    emu, SHORT_OP, hosts=3 if fast else 5, rounds=1 if fast else 3, bin_dir=bin_dir
                )
        if "calls" in parts:
            print("cloud: API calls per action", flush=True)
            result["api_calls"] = calls_per_action(emu, rounds=1 if fast else 3)
        if "latency" in parts:
            print("cloud: polling latency, 60 s operations (real time), runtime-only venv", flush=True)
            result["latency_long"] = polling_latency(
                emu, LONG_OP, hosts=3 if fast else 5, rounds=1, bin_dir=bins["runtime-only"]
            )
    result["seconds"] = round(time.perf_counter() - started, 1)
    save("cloud", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
