"""Benchmark: a 300-object component, first apply and no-op re-apply, side by side with other tools.

Tools, each in a fresh namespace of the same cluster, on the same 300 objects (ConfigMaps with a few keys):
  kubectl          ``kubectl apply --server-side -f objects.yaml`` (the reference: ratios are relative to it), the
                   kubectl of the control plane's own pinned version (``tests/cluster/build --kubectl``)
  component        ``ansible-playbook`` with one ``nubes.cloud.component`` task (source = the manifest file)
  component-engine the same module code in-process (ComponentRun), without ansible-playbook's start-up
  kubernetes.core  ``ansible-playbook`` with one ``kubernetes.core.k8s`` task (``src`` = the manifest file,
                   server-side apply), from the ``ansible`` PyPI package installed in a throwaway venv under
                   ``.cache/bench/kubernetes-core-venv`` (never into .venv)
  ansible-startup  ``ansible-playbook`` with one ``debug`` task: the fixed cost inside the two playbook figures

Usage: .venv/bin/python bench/component_bench.py [--objects 300] [--repeat 1] [--write-docs]
(starts the local test cluster with tests/cluster/up; NUBES_TEST_EXTERNAL_CLUSTER=1 KUBECONFIG=<path> uses yours).
Prints one JSON document; ``--write-docs`` also rewrites the section "Component engine" of docs/benchmarks.md.
Nothing is asserted here.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / ".collections"), str(ROOT)]

from ansible_collections.nubes.cloud.plugins.module_utils.component.runner import (  # noqa: E402
    ComponentRun,
    ComponentTask,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import (  # noqa: E402
    ConnectionOptions,
)

CACHE = ROOT / ".cache" / "bench"
KCORE_VENV = CACHE / "kubernetes-core-venv"
DOCS = ROOT / "docs" / "benchmarks.md"
SECTION = "## Component engine"


def kubeconfig() -> str:
    """Like the pytest fixture: your KUBECONFIG with NUBES_TEST_EXTERNAL_CLUSTER=1, else the local test cluster."""
    if os.environ.get("NUBES_TEST_EXTERNAL_CLUSTER") == "1" and os.environ.get("KUBECONFIG"):
        return os.environ["KUBECONFIG"]
    out = subprocess.run([str(ROOT / "tests/cluster/up")], capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1].partition("=")[2]


def fair_kubectl_dir() -> str:
    """Directory of the kubectl built from the control plane's pinned k8s.io/kubernetes (built when missing)."""
    out = subprocess.run(
        [str(ROOT / "tests/cluster/build"), "--kubectl"], capture_output=True, text=True, check=True, timeout=7200
    ).stdout
    return str(Path(out.strip().splitlines()[-1]).parent)


def objects(count: int) -> List[Dict[str, Any]]:
    """The benchmark's objects: ConfigMaps without a namespace (each tool puts them into its own)."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"bench-{index:04d}", "labels": {"app": "bench"}},
            "data": {f"key{k}": f"value-{index}-{k}" for k in range(5)},
        }
        for index in range(count)
    ]


def ensure_kcore_venv() -> Path:
    """The throwaway venv with the ``ansible`` package (it bundles kubernetes.core) and the kubernetes client."""
    playbook = KCORE_VENV / "bin" / "ansible-playbook"
    if playbook.exists():
        return playbook
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(KCORE_VENV)], check=True)
    subprocess.run([str(KCORE_VENV / "bin" / "pip"), "install", "-q", "ansible", "kubernetes"], check=True)
    return playbook


def timed(action: Callable[[], None]) -> float:
    """Wall time of one call, in seconds."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run(argv: List[str], env: Dict[str, str], cwd: Path) -> None:
    """Run a command; fail loudly with its output."""
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv[:3])} failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )


def playbook(workdir: Path, name: str, task: Dict[str, Any]) -> Path:
    """A one-task playbook on localhost."""
    path = workdir / f"{name}.yml"
    play = [{"hosts": "localhost", "gather_facts": False, "tasks": [task]}]
    path.write_text(yaml.safe_dump(play, sort_keys=False), encoding="utf-8")
    return path


class Bench:
    """One benchmark run: a work dir, the manifest file and one namespace per tool."""

    def __init__(self, config: str, count: int) -> None:
        self.kubeconfig = config
        self.count = count
        self.workdir = CACHE / f"run-{uuid.uuid4().hex[:8]}"
        self.workdir.mkdir(parents=True)
        self.manifest = self.workdir / "objects.yaml"
        self.manifest.write_text(yaml.safe_dump_all(objects(count), sort_keys=False), encoding="utf-8")
        self.namespaces: List[str] = []
        # kubectl of the control plane's pinned version first on PATH (built once by tests/cluster/build --kubectl)
        kubectl_dir = fair_kubectl_dir()
        self.env = dict(os.environ, KUBECONFIG=config, PATH=f"{kubectl_dir}{os.pathsep}{os.environ['PATH']}")

    def namespace(self, tool: str) -> str:
        name = f"bench-{tool}-{uuid.uuid4().hex[:6]}"
        run(["kubectl", "create", "namespace", name], self.env, self.workdir)
        self.namespaces.append(name)
        return name

    def verify(self, namespace: str) -> None:
        """Every tool must really have applied all objects (not timed)."""
        out = subprocess.run(
            ["kubectl", "get", "configmaps", "-n", namespace, "-l", "app=bench", "-o", "name"],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        found = len(out.split())
        if found != self.count:
            raise RuntimeError(f"namespace {namespace}: {found} of {self.count} objects applied")

    def cleanup(self) -> None:
        for name in self.namespaces:
            subprocess.run(
                ["kubectl", "delete", "namespace", name, "--wait=false"], env=self.env, capture_output=True, check=False
            )

    def kubectl(self) -> Dict[str, Any]:
        ns = self.namespace("kubectl")
        argv = ["kubectl", "apply", "--server-side", "--field-manager=bench", "-n", ns, "-f", str(self.manifest)]
        return self.phases(ns, lambda: run(argv, self.env, self.workdir))

    def phases(self, namespace: str, apply: Callable[[], None]) -> Dict[str, Any]:
        """Time the first apply, check that it applied everything, time the no-op re-apply."""
        first = timed(apply)
        self.verify(namespace)
        return {"first": first, "noop": timed(apply)}

    def ansible_env(self) -> Dict[str, str]:
        return dict(
            self.env,
            ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
            ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
            ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        )

    def component(self) -> Dict[str, Any]:
        ns = self.namespace("component")
        task = {"nubes.cloud.component": {"name": "bench", "namespace": ns, "source": str(self.manifest)}}
        path = playbook(self.workdir, "component", task)
        argv = [str(Path(sys.executable).parent / "ansible-playbook"), str(path)]
        env = self.ansible_env()
        return self.phases(ns, lambda: run(argv, env, self.workdir))

    def component_engine(self) -> Dict[str, Any]:
        ns = self.namespace("engine")
        calls: Dict[str, Any] = {}

        def once() -> None:
            phase = "noop" if "first" in calls else "first"
            task = ComponentTask(
                name="bench",
                namespace=ns,
                files={"objects.yaml": self.manifest.read_text(encoding="utf-8")},
                source_kind="manifests",
                connection=ConnectionOptions(kubeconfig=self.kubeconfig),
            )
            result = ComponentRun(task).execute()
            calls[phase] = result["api_calls"]

        times = self.phases(ns, once)
        times["api_calls"] = calls
        return times

    def startup(self) -> Dict[str, float]:
        path = playbook(self.workdir, "startup", {"ansible.builtin.debug": {"msg": "hello"}})
        argv = [str(Path(sys.executable).parent / "ansible-playbook"), str(path)]
        env = self.ansible_env()
        return {
            "first": timed(lambda: run(argv, env, self.workdir)),
            "noop": timed(lambda: run(argv, env, self.workdir)),
        }

    def kubernetes_core(self, ansible_playbook: Path) -> Dict[str, Any]:
        ns = self.namespace("kcore")
        task = {
            "kubernetes.core.k8s": {
                "state": "present",
                "namespace": ns,
                "src": str(self.manifest),
                "apply": True,
                "server_side_apply": {"field_manager": "bench", "force_conflicts": True},
            }
        }
        path = playbook(self.workdir, "kcore", task)
        env = {k: v for k, v in self.env.items() if not k.startswith("ANSIBLE_")}
        env["ANSIBLE_CONFIG"] = str(self.workdir / "none.cfg")
        env["ANSIBLE_PYTHON_INTERPRETER"] = str(KCORE_VENV / "bin" / "python")
        argv = [str(ansible_playbook), str(path)]
        return self.phases(ns, lambda: run(argv, env, self.workdir))


def best(samples: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Minimum over repeats per phase (least disturbed by the other engineers' load on the shared machine)."""
    result = dict(samples[0])
    for phase in ("first", "noop"):
        result[phase] = min(s[phase] for s in samples)
    return result


def ratios(results: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, float]]:
    """Each tool's time divided by kubectl's, per phase."""
    base = results["kubectl"]
    return {
        tool: {phase: round(data[phase] / base[phase], 2) for phase in ("first", "noop")}
        for tool, data in results.items()
    }


def markdown(report: Dict[str, Any]) -> str:
    """The docs section."""
    res, rat = report["results"], report["ratios"]
    lines = [
        SECTION,
        "",
        f"Measured by `bench/component_bench.py` on {report['date']} ({report['machine']}): {report['objects']} "
        f"ConfigMaps (5 keys each), each tool in a fresh namespace of the local control plane (tests/cluster), "
        f"best of {report['repeat']} run(s). Ratios are relative to `kubectl apply --server-side` (lower is faster), "
        "kubectl of the control plane's own pinned version (`tests/cluster/build --kubectl`).",
        "",
        "| tool | first apply (s) | ratio | no-op re-apply (s) | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    labels = {
        "kubectl": "`kubectl apply --server-side -f`",
        "component": "`nubes.cloud.component` (ansible-playbook, one task)",
        "component-engine": "component module code in-process (no ansible-playbook)",
        "kubernetes.core": "`kubernetes.core.k8s` (ansible-playbook, one task, `src`, server-side apply)",
        "ansible-startup": "ansible-playbook with one `debug` task (fixed cost)",
    }
    for tool in ("kubectl", "component", "component-engine", "kubernetes.core", "ansible-startup"):
        if tool not in res:
            continue
        lines.append(
            f"| {labels[tool]} | {res[tool]['first']:.2f} | {rat[tool]['first']:.2f} | {res[tool]['noop']:.2f} | "
            f"{rat[tool]['noop']:.2f} |"
        )
    calls = res.get("component-engine", {}).get("api_calls", {})
    if calls:
        lines += [
            "",
            f"API calls of the component engine: first apply {calls['first'].get('total')} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(calls['first'].items()) if k != 'total')}), "
            f"no-op {calls['noop'].get('total')} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(calls['noop'].items()) if k != 'total')}); the component's "
            "record (one ConfigMap) is written apart from these and only when it changed.",
        ]
    lines += [
        "",
        "Reproduce: `.venv/bin/python bench/component_bench.py --write-docs` (or `make bench-component`).",
        "",
    ]
    return "\n".join(lines)


def write_docs(section: str) -> None:
    """Replace (or append) the section "Component engine" of docs/benchmarks.md, leaving other sections alone."""
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else "# Benchmarks\n\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _match: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--skip-kubernetes-core", action="store_true", help="do not install/run kubernetes.core")
    parser.add_argument("--write-docs", action="store_true", help="rewrite the section in docs/benchmarks.md")
    args = parser.parse_args(argv)
    config = kubeconfig()
    kcore = None if args.skip_kubernetes_core else ensure_kcore_venv()
    samples: Dict[str, List[Dict[str, Any]]] = {}
    for _round in range(args.repeat):
        bench = Bench(config, args.objects)
        try:
            tools: Dict[str, Callable[[], Dict[str, Any]]] = {
                "kubectl": bench.kubectl,
                "component": bench.component,
                "component-engine": bench.component_engine,
                "ansible-startup": bench.startup,
            }
            if kcore is not None:
                tools["kubernetes.core"] = lambda current=bench, playbook=kcore: current.kubernetes_core(playbook)
            for tool, measure in tools.items():
                samples.setdefault(tool, []).append(measure())
        finally:
            bench.cleanup()
    results = {tool: best(values) for tool, values in samples.items()}
    report = {
        "objects": args.objects,
        "repeat": args.repeat,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores shared, load average"
        f" {', '.join(f'{x:.2f}' for x in os.getloadavg())} at the end",
        "results": results,
        "ratios": ratios(results),
    }
    print(json.dumps(report, indent=2))
    if args.write_docs:
        write_docs(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
