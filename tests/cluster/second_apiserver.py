"""A second kube-apiserver on the test cluster's etcd, so a test can kill and restart an apiserver without
touching the shared one (tests/cluster keeps serving everyone else, pytest-xdist workers included).

It runs the shared apiserver's own command line (read from /proc/<pid>/cmdline, pid from cluster.json) with
another --secure-port; a copy of the admin kubeconfig points at it. Only the process this helper started is ever
signalled. The `second_apiserver` fixture (tests/cluster/fixtures.py) starts one per test and kills it afterwards;
starting it took 2.6 s on the project machine (pytest setup time of the component restart test), killing it
under 0.2 s.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

CLUSTER_DIR = Path(os.environ.get("NUBES_CLUSTER_DIR", "/tmp/nubes-cluster"))
READY_LIMIT_SECONDS = 120.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class SecondApiserver:
    """start() / kill() / restart() of one extra apiserver process; `kubeconfig` reaches it as the admin."""

    def __init__(self, workdir: Path, admin_kubeconfig: str) -> None:
        info = json.loads((CLUSTER_DIR / "cluster.json").read_text(encoding="utf-8"))
        shared = next(c for c in info["components"] if c["name"] == "kube-apiserver")
        argv = Path(f"/proc/{shared['pid']}/cmdline").read_bytes().decode().split("\0")
        self.port = free_port()
        self.argv = [f"--secure-port={self.port}" if a.startswith("--secure-port=") else a for a in argv if a]
        self.log = workdir / "second-apiserver.log"
        config: dict[str, Any] = yaml.safe_load(Path(admin_kubeconfig).read_text(encoding="utf-8"))
        for cluster in config["clusters"]:
            cluster["cluster"]["server"] = f"https://127.0.0.1:{self.port}"
        self.kubeconfig = str(workdir / "second.kubeconfig")
        Path(self.kubeconfig).write_text(yaml.safe_dump(config), encoding="utf-8")
        os.chmod(self.kubeconfig, 0o600)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.argv, stdout=log, stderr=log, start_new_session=True)
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_LIMIT_SECONDS
        while True:
            probe = subprocess.run(
                ["kubectl", "--kubeconfig", self.kubeconfig, "get", "--raw", "/readyz"],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
            if probe.returncode == 0:
                return
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the second apiserver exited: {self.log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the second apiserver did not get ready: {self.log.read_text()[-2000:]}")
            time.sleep(0.3)

    def kill(self) -> None:
        """SIGKILL (a crash, not a graceful stop) of the process this helper started."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
