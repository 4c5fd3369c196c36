"""Component benchmark: `nubes.cloud.component` vs `kubectl apply --server-side` vs `kubernetes.core.k8s` on the same
objects and the same cluster (writes bench/results/component.json). Needs a Kubernetes control plane: starts its
own local one with tests/cluster/up (which builds it first when needed) in $NUBES_BENCH_CLUSTER_DIR (default
/tmp/nubes-bench-cluster, apart from the tests' shared one) and stops it at the end, or uses $KUBECONFIG with
NUBES_TEST_EXTERNAL_CLUSTER=1.

kubectl is the one built from the control plane's own pinned k8s.io/kubernetes (`tests/cluster/build --kubectl`,
built here when missing); the image's kubectl (a v1.32 build behind a cloud SDK dispatcher) is measured beside it
once per size up to 300 objects, for reference.

For 300 and 1000 objects (the mix of bench/engine_300.py: ConfigMaps, Secrets, ServiceAccounts) in a fresh
namespace per tool and round: first apply, then the no-op re-apply. Per run: wall time (the playbook task's
time from bench/callback_plugins/bench_timing.py for the modules, the process's wall time for kubectl), API
calls (client side: the module's `api_calls`, kubectl's -v=6 request lines; apiserver side for every tool: the
growth of `apiserver_request_total`, which also counts other clients in the same window), and peak RSS of the
process doing the work (the module process, through bench/peak_rss as its interpreter; kubectl itself).
Also runs bench/engine_300.py (the engine in-process, no Ansible) for the same sizes, and (issue 19):
- overhead: whole playbooks with one `debug` task, one `ansible.builtin.ping` task, one no-op component task
  (300 objects), wall and CPU seconds, in turn;
- floor: the apiserver's own limit for the 300-object first apply and the engine against it (bench/engine_floor.py);
- operator set: a real-shaped ~60-object bundle, no-op and check+diff against kubectl (bench/operator_set.py);
- drift: the 300-object no-op with live drift detection on vs off, in one run (bench/drift_bench.py, issue 25).

Run: .venv/bin/python bench/component_compare.py [--sizes 300,1000]  (BENCH_QUICK=1: fewer rounds)
kubernetes.core comes from bench/setup.sh (.cache/bench-collections).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Mapping

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

import drift_bench
import engine_floor
import operator_set
from benchlib import BIN, RESULTS, ROOT, Playbooks, local_play, quick, save, summary

BENCH = ROOT / "bench"
K8S_COLLECTIONS = ROOT / ".cache" / "bench-collections"
KUBECTL_REQUEST = re.compile(
    r'round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE|HEAD) https?://|"Response" verb="(GET|POST|PUT|PATCH|DELETE)"'
)
METRIC = re.compile(r"^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>[0-9.e+]+)$")
# "component" runs as a module (the peak RSS of its module process; the rows of issue 19), "component (in-process)"
# in the controller's process, the default for a local target (issue 26)
TOOLS = ("kubectl", "kubectl (image)", "component", "component (in-process)", "k8s", "k8s-loop")
COMPONENT_TOOLS = ("component", "component (in-process)")
LOOP_MAX_OBJECTS = 300  # with --with-loop: `kubernetes.core.k8s` once per object, measured once, for sizes <= this
PARTS = ("sizes", "overhead", "costs", "floor", "operator", "drift")
IMAGE_KUBECTL_MAX_OBJECTS = 300  # the image's kubectl (reference only): first round, sizes <= this
OVERHEAD_OBJECTS = 300


def fair_kubectl() -> str:
    """kubectl of the control plane's pinned version (tests/cluster/build --kubectl builds it once)."""
    proc = subprocess.run(
        [str(ROOT / "tests/cluster/build"), "--kubectl"], capture_output=True, text=True, check=True, timeout=7200
    )
    return proc.stdout.strip().splitlines()[-1]


def image_kubectl() -> str:
    """The image's kubectl (on PATH), the reference the earlier figures used."""
    return shutil.which("kubectl") or ""


def external_cluster() -> bool:
    return os.environ.get("NUBES_TEST_EXTERNAL_CLUSTER") == "1" and bool(os.environ.get("KUBECONFIG"))


def cluster_env() -> dict[str, str]:
    """A control plane of the bench's own (state dir $NUBES_BENCH_CLUSTER_DIR, default /tmp/nubes-bench-cluster):
    other engineers' `make test` stops the shared one at /tmp/nubes-cluster, which must not end a bench run."""
    return {**os.environ, "NUBES_CLUSTER_DIR": os.environ.get("NUBES_BENCH_CLUSTER_DIR", "/tmp/nubes-bench-cluster")}


def kubeconfig() -> str:
    """Your $KUBECONFIG with NUBES_TEST_EXTERNAL_CLUSTER=1, else the bench's own local control plane (tests/cluster/up
    builds and starts it)."""
    if external_cluster():
        return os.environ["KUBECONFIG"]
    out = subprocess.run(
        [str(ROOT / "tests/cluster/up")], capture_output=True, text=True, check=True, env=cluster_env()
    ).stdout
    return out.strip().splitlines()[-1].partition("=")[2]


def stop_cluster() -> None:
    if not external_cluster():
        subprocess.run([str(ROOT / "tests/cluster/down")], capture_output=True, check=False, env=cluster_env())


def objects(count: int) -> list[dict[str, Any]]:
    """The object mix of bench/engine_300.py (50 % ConfigMaps, 30 % Secrets, 20 % ServiceAccounts)."""
    result: list[dict[str, Any]] = []
    for i in range(count):
        if i % 10 < 5:
            result.append(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"i": str(i)}}
            )
        elif i % 10 < 8:
            result.append(
                {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"s-{i}"}, "stringData": {"i": str(i)}}
            )
        else:
            result.append({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": f"sa-{i}"}})
    return result


class Cluster:
    def __init__(self, config: str, kubectl: str, image_kubectl: str) -> None:
        self.config = config
        self.kubectl_binary = kubectl
        self.image_kubectl = image_kubectl

    def kubectl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.kubectl_binary, "--kubeconfig", self.config, *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=1800,
        )

    def apiserver_requests(self) -> float:
        """Sum of apiserver_request_total over every verb but WATCH/CONNECT."""
        total = 0.0
        for line in self.kubectl("get", "--raw", "/metrics").stdout.splitlines():
            match = METRIC.match(line)
            if match and 'verb="WATCH"' not in match["labels"] and 'verb="CONNECT"' not in match["labels"]:
                total += float(match["value"])
        return total

    def namespace(self, prefix: str) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:6]}"
        self.kubectl("create", "namespace", name)
        return name

    def drop(self, namespace: str) -> None:
        self.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


class Runs:
    """One tool's apply, measured."""

    def __init__(self, cluster: Cluster, manifest: Path, workdir: Path) -> None:
        self.cluster = cluster
        self.manifest = manifest
        self.workdir = workdir
        self.rss_file = workdir / "rss.jsonl"
        self.playbooks = Playbooks(workdir=workdir)
        self.playbooks.extra_env = {
            "NUBES_BENCH_RSS_FILE": str(self.rss_file),
            "NUBES_BENCH_REAL_PYTHON": str(BIN / "python"),
            "K8S_AUTH_KUBECONFIG": cluster.config,
        }
        self.playbooks.collections_path = f"{ROOT / '.collections'}{os.pathsep}{K8S_COLLECTIONS}"

    def _rss_lines(self) -> int:
        return len(self.rss_file.read_text(encoding="utf-8").splitlines()) if self.rss_file.exists() else 0

    def _peak_rss_since(self, offset: int) -> float:
        """Largest peak RSS (MiB) of the processes recorded after line `offset` (a loop runs one per item)."""
        lines = self.rss_file.read_text(encoding="utf-8").splitlines()[offset:]
        return max(json.loads(line)["peak_rss_kib"] for line in lines) / 1024

    def kubectl(self, namespace: str, binary: str) -> dict[str, float]:
        command = [
            str(BIN / "python"), str(BENCH / "peak_rss"),
            binary, "--kubeconfig", self.cluster.config, "apply", "--server-side",
            "-n", namespace, "-f", str(self.manifest), "-v=6",
        ]  # fmt: skip
        env = {**os.environ, "NUBES_BENCH_RSS_FILE": str(self.rss_file)}
        env.pop("NUBES_BENCH_REAL_PYTHON", None)
        offset = self._rss_lines()
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, check=False, env=env, timeout=1800)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"kubectl apply failed: {proc.stderr[-3000:]}")
        calls = sum(1 for line in proc.stderr.splitlines() if KUBECTL_REQUEST.search(line))
        return {"seconds": seconds, "calls": float(calls), "peak_rss_mib": self._peak_rss_since(offset)}

    def module(self, tool: str, namespace: str) -> dict[str, float]:
        if tool in COMPONENT_TOOLS:
            task = {
                "name": "component",
                "nubes.cloud.component": {
                    "name": "bench",
                    "namespace": namespace,
                    "source": str(self.manifest),
                    "kubeconfig": self.cluster.config,
                    "timeout": 1200,
                },
            }
        elif tool == "k8s":
            task = {
                "name": "k8s",
                "kubernetes.core.k8s": {
                    "kubeconfig": self.cluster.config,
                    "namespace": namespace,
                    "src": str(self.manifest),
                    "state": "present",
                },
            }
        else:  # k8s-loop: one module run per object, the way playbooks often feed a list of definitions
            task = {
                "name": "k8s-loop",
                "kubernetes.core.k8s": {
                    "kubeconfig": self.cluster.config,
                    "namespace": namespace,
                    "definition": "{{ item }}",
                    "state": "present",
                },
                "loop": "{{ lookup('ansible.builtin.file', '"
                + str(self.manifest)
                + "') | ansible.builtin.from_yaml_all }}",
                "loop_control": {"label": "{{ item.kind }}/{{ item.metadata.name }}"},
            }
        play = local_play([task])
        in_process = tool == "component (in-process)"  # no module process: no peak RSS of one
        if not in_process:  # a module process, through bench/peak_rss as its interpreter
            play["vars"] = {"ansible_python_interpreter": str(BENCH / "peak_rss"), "nubes_execution": "module"}
        offset = self._rss_lines()
        run = self.playbooks.run([play])
        record = run.tasks[0]
        if record.status != "ok":
            raise RuntimeError(f"{tool} task {record.status}: {record.msg}")
        calls = float(record.api_calls.get("total", 0)) if isinstance(record.api_calls, dict) else -1.0
        figures = {"seconds": record.seconds, "calls": calls, "changed": record.changed}
        if not in_process:
            figures["peak_rss_mib"] = self._peak_rss_since(offset)
        return figures

    def apply(self, tool: str, namespace: str) -> dict[str, float]:
        before = self.cluster.apiserver_requests()
        if tool == "kubectl":
            figures = self.kubectl(namespace, self.cluster.kubectl_binary)
        elif tool == "kubectl (image)":
            figures = self.kubectl(namespace, self.cluster.image_kubectl)
        else:
            figures = self.module(tool, namespace)
        # the metrics GET of `before` is counted; `after` is not
        figures["apiserver_requests"] = self.cluster.apiserver_requests() - before - 1
        return figures


def engine_inprocess(config: str, size: int) -> dict[str, Any]:
    """bench/engine_300.py for this size (the engine without Ansible)."""
    env = {**os.environ, "NUBES_TEST_EXTERNAL_CLUSTER": "1", "KUBECONFIG": config}
    proc = subprocess.run(
        [str(BIN / "python"), str(BENCH / "engine_300.py"), "--objects", str(size)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=1800,
    )
    report = json.loads(proc.stdout)
    return {p["phase"]: {"seconds": p["seconds"], "calls": p["calls"]} for p in report["phases"]}


def measure_size(
    cluster: Cluster, size: int, rounds: int, k8s_rounds: int, workdir: Path, with_loop: bool
) -> dict[str, Any]:
    manifest = workdir / f"objects-{size}.yaml"
    manifest.write_text(yaml.safe_dump_all(objects(size), sort_keys=False), encoding="utf-8")
    runs = Runs(cluster, manifest, workdir)
    raw: dict[str, dict[str, dict[str, list[float]]]] = {}
    ratios: dict[str, list[float]] = {}
    for index in range(rounds):
        round_figures: dict[str, dict[str, dict[str, float]]] = {}
        for tool in TOOLS:
            if tool == "k8s" and index >= k8s_rounds:
                continue
            if tool == "k8s-loop" and (not with_loop or index > 0 or size > LOOP_MAX_OBJECTS):
                continue
            if tool == "kubectl (image)" and (
                not cluster.image_kubectl or index > 0 or size > IMAGE_KUBECTL_MAX_OBJECTS
            ):
                continue
            print(f"component: {size} objects, round {index + 1}/{rounds}, {tool}", flush=True)
            namespace = cluster.namespace(f"bench-{tool.split()[0]}")
            try:
                for phase in ("first apply", "no-op re-apply"):
                    figures = runs.apply(tool, namespace)
                    if phase == "no-op re-apply" and figures.get("changed"):
                        raise RuntimeError(f"{tool}: the re-apply of unchanged objects reported changed")
                    figures.pop("changed", None)
                    round_figures.setdefault(tool, {})[phase] = figures
                    for key, value in figures.items():
                        raw.setdefault(tool, {}).setdefault(phase, {}).setdefault(key, []).append(value)
            finally:
                cluster.drop(namespace)
        for phase in ("first apply", "no-op re-apply"):
            for tool in COMPONENT_TOOLS:  # "component/..." and "component (in-process)/..."
                ours = round_figures[tool][phase]["seconds"]
                for other in ("kubectl", "k8s"):
                    if other in round_figures:
                        theirs = round_figures[other][phase]["seconds"]
                        ratios.setdefault(f"{tool}/{other} {phase}", []).append(ours / theirs)
            if "k8s-loop" in round_figures:
                ratios.setdefault(f"k8s-loop/component {phase}", []).append(
                    round_figures["k8s-loop"][phase]["seconds"] / round_figures["component"][phase]["seconds"]
                )
    print(f"component: {size} objects, engine in-process (bench/engine_300.py)", flush=True)
    return {
        "objects": size,
        "tools": {
            tool: {
                phase: {key: summary(values, 2) for key, values in figures.items()} for phase, figures in phases.items()
            }
            for tool, phases in raw.items()
        },
        "ratios": {key: summary(values, 2) for key, values in ratios.items()},
        "engine_inprocess": engine_inprocess(cluster.config, size),
    }


def overhead_task(cluster: Cluster, workdir: Path, prefix: str) -> tuple[Path, str, dict[str, Any]]:
    """The manifest of OVERHEAD_OBJECTS objects, a fresh namespace and the component task that applies it there."""
    manifest = workdir / f"objects-{OVERHEAD_OBJECTS}.yaml"
    manifest.write_text(yaml.safe_dump_all(objects(OVERHEAD_OBJECTS), sort_keys=False), encoding="utf-8")
    namespace = cluster.namespace(prefix)
    task = {
        "name": "component",
        "nubes.cloud.component": {
            "name": "bench",
            "namespace": namespace,
            "source": str(manifest),
            "kubeconfig": cluster.config,
            "timeout": 1200,
        },
    }
    return manifest, namespace, task


def measure_overhead(cluster: Cluster, workdir: Path, rounds: int) -> dict[str, Any]:
    """Whole playbooks in turn: one `debug` task, one `ansible.builtin.ping` task, one no-op component task (300
    objects, applied once before). Wall and CPU seconds (ansible-playbook and everything it ran); the component's
    and ping's overhead above the debug playbook per round. The component runs as a module
    (`NUBES_EXECUTION=module`: the row of issue 19; bench/inprocess_bench.py measures both paths for issue 26)."""
    _manifest, namespace, task = overhead_task(cluster, workdir, "bench-overhead")
    playbooks = Playbooks(workdir=workdir)
    playbooks.extra_env = {"NUBES_EXECUTION": "module"}
    plays = {
        "debug": [local_play([{"name": "debug", "ansible.builtin.debug": {"msg": "hello"}}])],
        "ping": [local_play([{"name": "ping", "ansible.builtin.ping": {}}])],
        "component no-op": [local_play([task])],
    }
    playbooks.run(plays["component no-op"])  # the first apply, not measured
    raw: dict[str, dict[str, list[float]]] = {}
    over: dict[str, list[float]] = {}
    try:
        for index in range(rounds):
            print(f"component: overhead playbooks, round {index + 1}/{rounds}", flush=True)
            figures = {}
            for name, play in plays.items():
                run = playbooks.run(play)
                if name == "component no-op" and run.tasks[0].changed:
                    raise RuntimeError("the no-op component task reported changed")
                figures[name] = {"wall": run.wall, "cpu": run.cpu}
                for key, value in figures[name].items():
                    raw.setdefault(name, {}).setdefault(key, []).append(value)
            for name in ("ping", "component no-op"):
                for key in ("wall", "cpu"):
                    over.setdefault(f"{name} over debug ({key})", []).append(figures[name][key] - figures["debug"][key])
    finally:
        cluster.drop(namespace)
    return {
        "objects": OVERHEAD_OBJECTS,
        "playbooks": {name: {k: summary(v, 3) for k, v in keys.items()} for name, keys in raw.items()},
        "over_debug": {key: summary(values, 3) for key, values in over.items()},
    }


def module_cpu(payload: Path, env: dict[str, str]) -> float:
    """User + system seconds of one re-run of a kept AnsiballZ payload; its result must be a success that changed
    nothing (a failed or changing run would measure something else)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = [str(BIN / "python"), str(payload)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(proc.stdout or "{}")
    if proc.returncode or result.get("failed") or result.get("changed"):
        raise RuntimeError(f"{payload.name} did not re-run as a no-op: {proc.stdout[-500:]} {proc.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_costs(cluster: Cluster, workdir: Path, rounds: int) -> dict[str, Any]:
    """What a component task pays besides waiting for the API (CPU seconds, load-independent):
    - the module processes themselves: the AnsiballZ payloads of one `ansible.builtin.ping` task and one no-op
      component task (300 objects) are kept (ANSIBLE_KEEP_REMOTE_FILES, a private remote tmp) and re-run directly;
      the difference is the component's imports (compiled from the payload's zip on every run, as AnsiballZ
      does) and its work, which the in-process no-op (`ComponentRun`, imports done) measures alone;
    - the action plugin's source read on the controller: a manifest file of 300 objects, and the operator set's
      kustomize overlay (`kubectl kustomize` of the kubectl under test, a child process);
    - writing and reading the record of a 300-object component (JSON, gzip above 64 KiB, one PUT / GET)."""
    ensure_repo = str(ROOT / ".collections")
    sys.path[:0] = [ensure_repo]
    from ansible_collections.nubes.cloud.plugins.module_utils.component.runner import ComponentRun, ComponentTask
    from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import ReadInput, read_source
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import ConnectionOptions

    manifest, namespace, task = overhead_task(cluster, workdir, "bench-costs")
    playbooks = Playbooks(workdir=workdir)
    remote = workdir / "remote-tmp"
    playbooks.run([local_play([task])])  # the first apply, not measured
    # the module path (issue 26: a local component task runs in the controller's process, with no payload)
    playbooks.extra_env = {
        "ANSIBLE_KEEP_REMOTE_FILES": "1",
        "ANSIBLE_REMOTE_TMP": str(remote),
        "NUBES_EXECUTION": "module",
    }
    playbooks.run([local_play([{"name": "ping", "ansible.builtin.ping": {}}, task])])
    playbooks.extra_env = {}
    payloads = {
        label: sorted(remote.glob(f"*/AnsiballZ_{module}.py"))[-1]
        for label, module in (("ping", "ping"), ("component no-op (300 objects)", "component"))
    }
    files = {"objects.yaml": manifest.read_text(encoding="utf-8")}
    run_task = ComponentTask(
        name="bench",
        namespace=namespace,
        files=files,
        source_kind="manifests",
        connection=ConnectionOptions(kubeconfig=cluster.config),
        timeout=600,
    )
    bundle = operator_set.write_set(workdir / "costs")
    path_env = {**os.environ, "PATH": f"{Path(cluster.kubectl_binary).parent}{os.pathsep}{os.environ['PATH']}"}

    def run(
        argv: list[str], environ_update: Mapping[str, str] | None = None, stdin: str | None = None
    ) -> tuple[int, str, str]:
        env = {**path_env, **(environ_update or {})}
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False, env=env)
        return proc.returncode, proc.stdout, proc.stderr

    raw: dict[str, list[float]] = {}
    env = playbooks.env()
    try:
        for _round in range(rounds):
            for label, payload in payloads.items():
                raw.setdefault(f"module process: {label}", []).append(module_cpu(payload, env))
            start = time.process_time()
            result = ComponentRun(run_task).execute()
            if result["changed"]:
                raise RuntimeError("the in-process no-op changed something")
            raw.setdefault("in-process no-op (300 objects, imports done)", []).append(time.process_time() - start)
            for label, path in (
                ("a 300-object manifest file", manifest),
                ("the operator set's overlay", bundle["overlay"]),
            ):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.process_time()
                read_source(str(path), "auto", ReadInput(run_command=run))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                children = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                raw.setdefault(f"action plugin: read {label}", []).append(time.process_time() - start + children)
    finally:
        cluster.drop(namespace)
        shutil.rmtree(remote, ignore_errors=True)
    raw.update(record_costs(cluster, rounds))
    return {"cpu_seconds": {key: summary(values, 3) for key, values in raw.items()}}


def record_costs(cluster: Cluster, rounds: int) -> dict[str, list[float]]:
    """Save (forced) and load the record of a 300-object component, in-process."""
    from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
    from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem

    namespace = cluster.namespace("bench-record")
    store = ComponentStore(connect_kubeconfig(cluster.config), namespace, "bench", "component.nubes.cloud")
    items = [
        InventoryItem("", "v1", "ConfigMap", f"cm-{i}", namespace, "IfUnowned", "OnObjectChange", "SsaOverride",
                      "Delete", 0, 0, [], "0" * 64, "Ready", "Current", "2026-01-01T00:00:00Z")
        for i in range(OVERHEAD_OBJECTS)
    ]  # fmt: skip
    record = ComponentStatus(inventory=items, state="Ready")
    raw: dict[str, list[float]] = {}
    try:
        for _round in range(rounds):
            start = time.process_time()
            store.save(record, force=True)
            raw.setdefault("record write (300 items)", []).append(time.process_time() - start)
            start = time.process_time()
            store.load()
            raw.setdefault("record read (300 items)", []).append(time.process_time() - start)
    finally:
        cluster.drop(namespace)
    return raw


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300,1000")
    parser.add_argument(
        "--with-loop",
        action="store_true",
        help="also run kubernetes.core.k8s once per object (a loop; ~1-3 s per object on the shared machine)",
    )
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="comma-separated: sizes, overhead, floor, operator, drift (default: all)",
    )
    args = parser.parse_args()
    parts = {part for part in args.parts.split(",") if part}
    subprocess.run(["bash", str(BENCH / "setup.sh")], check=True)
    started = time.perf_counter()
    kubectl_fair, kubectl_image = fair_kubectl(), image_kubectl()
    results: dict[str, Any] = {
        "kubectl": {"fair": kubectl_version(kubectl_fair), "image": kubectl_version(kubectl_image)},
    }
    if not external_cluster():  # the floor reads the local apiserver's and etcd's CPU time from its state dir
        os.environ["NUBES_CLUSTER_DIR"] = cluster_env()["NUBES_CLUSTER_DIR"]
    try:
        cluster = Cluster(kubeconfig(), kubectl_fair, kubectl_image)
        workdir = Playbooks().workdir
        rounds = 2 if quick() else 3
        if "sizes" in parts:
            sizes = [int(size) for size in args.sizes.split(",") if size]
            results["sizes"] = measure_all(cluster, sizes, args.with_loop, workdir)
        if "overhead" in parts:
            results["overhead"] = measure_overhead(cluster, workdir, 3 if quick() else 5)
        if "costs" in parts:
            results["costs"] = measure_costs(cluster, workdir, 3 if quick() else 5)
        if "floor" in parts:
            results["floor"] = engine_floor.measure(cluster.config, OVERHEAD_OBJECTS, rounds)
        if "operator" in parts:
            results["operator_set"] = operator_set.measure(cluster.config, kubectl_fair, kubectl_image, rounds, workdir)
        if "drift" in parts:  # issue 25: the no-op with live drift detection on vs off, in one run
            results["drift"] = drift_bench.measure(cluster.config, OVERHEAD_OBJECTS, 5 if quick() else 9)
    finally:
        stop_cluster()
    results["seconds"] = round(time.perf_counter() - started, 1)
    previous = RESULTS / "component.json"
    if parts != set(PARTS) and previous.exists():  # one part re-run: keep the others' figures
        kept = json.loads(previous.read_text(encoding="utf-8"))
        results = {**{k: v for k, v in kept.items() if k not in ("area", "quick", "machine")}, **results}
    save("component", results)
    return 0


def kubectl_version(binary: str) -> str:
    if not binary:
        return "not installed"
    out = subprocess.run([binary, "version", "--client"], capture_output=True, text=True, check=False).stdout
    return out.strip().splitlines()[0].replace("Client Version: ", "") if out.strip() else "unknown"


def measure_all(cluster: Cluster, sizes: list[int], with_loop: bool, workdir: Path) -> list[dict[str, Any]]:
    results = []
    for size in sizes:
        rounds = (2 if size <= LOOP_MAX_OBJECTS else 1) if quick() else 3
        results.append(measure_size(cluster, size, rounds, rounds, workdir, with_loop))
    return results


if __name__ == "__main__":
    sys.exit(main())
