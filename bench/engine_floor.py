"""The apiserver's own limit for a first apply, and the engine against it (issue 19).

The floor: `bench/apiserver_floor` (Go, standard library only; built here into .cache/bench) sends the component
engine's server-side-apply creates of N objects (the mix of bench/engine_300.py, with the engine's labels,
annotations and create guard) from C concurrent requests over one HTTP/2 connection; the fastest C is the fastest
this apiserver creates the set on this machine. Around every run the apiserver's and etcd's CPU seconds are read
from /proc (local cluster only): the server's work per object does not depend on the machine's load. The engine:
bench/engine_300.py's first apply, in-process (no Ansible), in the same round.

    .venv/bin/python bench/engine_floor.py [--objects 300] [--rounds 3]   (uses $KUBECONFIG, local cluster state
    from $NUBES_CLUSTER_DIR for the server's CPU)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import BIN, ROOT, ensure_repo_on_path, summary

FLOOR_SOURCE = ROOT / "bench" / "apiserver_floor"
FLOOR_BINARY = ROOT / ".cache" / "bench" / "apiserver-floor"
CONCURRENCY = (1, 2, 4, 8, 16, 32)


def go() -> Optional[str]:
    """The Go toolchain (the machines install it at /usr/local/go), or None."""
    return shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").exists() else None)


def build_floor_tool() -> Path:
    """Build bench/apiserver_floor (standard library only: nothing is downloaded) when missing or older."""
    newest = max(path.stat().st_mtime for path in FLOOR_SOURCE.iterdir())
    if FLOOR_BINARY.exists() and FLOOR_BINARY.stat().st_mtime >= newest:
        return FLOOR_BINARY
    toolchain = go()
    if toolchain is None:
        raise RuntimeError("the apiserver floor needs Go (>= 1.26) to build bench/apiserver_floor")
    FLOOR_BINARY.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
    subprocess.run(
        [toolchain, "build", "-trimpath", "-o", str(FLOOR_BINARY), "."], cwd=FLOOR_SOURCE, env=env, check=True
    )
    return FLOOR_BINARY


class Server:
    """How to reach the apiserver (from the kubeconfig, with the collection's own loader) and its processes."""

    def __init__(self, kubeconfig: str) -> None:
        ensure_repo_on_path()
        from ansible_collections.nubes.cloud.plugins.module_utils.kube import kubeconfig as kc
        from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig

        config = kc.client_config(kc.read_files(kubeconfig))
        self.api = connect_kubeconfig(kubeconfig)
        self.namespaces: List[str] = []
        self.workdir = Path(tempfile.mkdtemp(prefix="nubes-bench-floor-"))
        self.args = ["-server", config.host]
        for flag, path, data in (
            ("-ca", config.ca_file, config.ca_data),
            ("-cert", config.cert_file, config.cert_data),
            ("-key", config.key_file, config.key_data),
        ):
            if data:
                path = str(self.workdir / flag.strip("-"))
                Path(path).write_text(data, encoding="utf-8")
            if path:
                self.args += [flag, path]
        self.authorization = config.auth_header() or ""
        self.pids = server_pids(config.host)

    def drop_namespaces(self) -> None:
        """Delete the floor tool's namespaces (asynchronously: the namespace controller does the rest)."""
        from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import NAMESPACES

        for namespace in self.namespaces:
            self.api.delete(NAMESPACES, "", namespace)
        self.namespaces = []
        shutil.rmtree(self.workdir, ignore_errors=True)

    def cpu(self) -> Optional[float]:
        """CPU seconds the apiserver and etcd have used so far (None without the local cluster's processes)."""
        if not self.pids:
            return None
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self.pids:
            fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
        return total


def server_pids(host: str) -> List[int]:
    """PIDs of kube-apiserver and etcd when the cluster at ``host`` is the local one of $NUBES_CLUSTER_DIR."""
    state = Path(os.environ.get("NUBES_CLUSTER_DIR", "/tmp/nubes-cluster")) / "cluster.json"
    if not state.exists():
        return []
    data = json.loads(state.read_text(encoding="utf-8"))
    if str(data.get("server", "")).rstrip("/") != host.rstrip("/"):
        return []
    pids = [int(c["pid"]) for c in data.get("components", []) if c["name"] in ("kube-apiserver", "etcd")]
    return [pid for pid in pids if Path(f"/proc/{pid}/stat").exists()]


def floor_run(server: Server, objects: int, concurrency: int) -> Dict[str, Any]:
    """One run of the floor tool in a fresh namespace: wall seconds (its own clock) and server CPU seconds."""
    namespace = f"floor-{concurrency}-{uuid.uuid4().hex[:6]}"
    server.namespaces.append(namespace)
    before = server.cpu()
    command = [str(build_floor_tool()), *server.args, "-namespace", namespace, "-objects", str(objects)]
    proc = subprocess.run(
        [*command, "-concurrency", str(concurrency)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "APISERVER_FLOOR_AUTHORIZATION": server.authorization},
    )
    after = server.cpu()
    if proc.returncode != 0:
        raise RuntimeError(f"apiserver-floor failed: {proc.stderr[-2000:]}")
    result = json.loads(proc.stdout)
    result["server_cpu"] = None if before is None or after is None else after - before
    result["namespace"] = namespace
    return result


def engine_run(server: Server, objects: int) -> Dict[str, Any]:
    """bench/engine_300.py's first apply (in-process engine, 8 workers), with the server's CPU around the run."""
    before = server.cpu()
    proc = subprocess.run(
        [str(BIN / "python"), str(ROOT / "bench" / "engine_300.py"), "--objects", str(objects)],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
        env={**os.environ, "NUBES_TEST_EXTERNAL_CLUSTER": "1"},
    )
    after = server.cpu()
    phases = {p["phase"]: p for p in json.loads(proc.stdout)["phases"]}
    first = phases["first apply"]
    return {
        "seconds": first["seconds"],
        "client_cpu": first.get("cpu_seconds"),
        "calls": first["calls"].get("total"),
        # the engine's run also re-applies and deletes: the server CPU of all three is the upper bound
        "server_cpu_all_phases": None if before is None or after is None else after - before,
    }


def measure(kubeconfig: str, objects: int, rounds: int) -> Dict[str, Any]:
    """Rounds of: the floor tool at every concurrency, then the engine; ratios per round."""
    server = Server(kubeconfig)
    floor: Dict[int, List[float]] = {c: [] for c in CONCURRENCY}
    floor_cpu: List[float] = []
    engine: List[float] = []
    engine_cpu: List[float] = []
    ratios: List[float] = []
    for index in range(rounds):
        print(f"component: apiserver floor, {objects} objects, round {index + 1}/{rounds}", file=sys.stderr, flush=True)
        best = None
        for concurrency in CONCURRENCY:
            result = floor_run(server, objects, concurrency)
            floor[concurrency].append(result["seconds"])
            if best is None or result["seconds"] < best["seconds"]:
                best = result
        assert best is not None
        if best["server_cpu"] is not None:
            floor_cpu.append(best["server_cpu"])
        run = engine_run(server, objects)
        engine.append(run["seconds"])
        if run["client_cpu"] is not None:
            engine_cpu.append(run["client_cpu"])
        ratios.append(run["seconds"] / best["seconds"])
    server.drop_namespaces()  # after all runs: the namespace controller's clean-up must not overlap a measurement
    best_concurrency = min(CONCURRENCY, key=lambda c: sorted(floor[c])[len(floor[c]) // 2])
    return {
        "objects": objects,
        "concurrency": {str(c): summary(floor[c], 3) for c in CONCURRENCY},
        "best_concurrency": best_concurrency,
        "floor_seconds": summary([min(floor[c][i] for c in CONCURRENCY) for i in range(rounds)], 3),
        "floor_server_cpu": summary(floor_cpu, 3),
        "engine_seconds": summary(engine, 3),
        "engine_client_cpu": summary(engine_cpu, 3),
        "engine_over_floor": summary(ratios, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(os.environ["KUBECONFIG"], args.objects, args.rounds), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
