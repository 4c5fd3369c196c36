"""Where things live: the repo's cluster files, the binary cache and the state directory of a running cluster."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

CLUSTER_SRC = Path(__file__).resolve().parent.parent  # tests/cluster
BUILD_SCRIPT = CLUSTER_SRC / "build"
VERSIONS_FILE = CLUSTER_SRC / "versions.env"
DEFAULT_STATE_DIR = "/tmp/nubes-cluster"


def read_versions() -> dict[str, str]:
    """The pins of versions.env, e.g. {"K8S_VERSION": "v1.37.2", ...}."""
    versions: dict[str, str] = {}
    for line in VERSIONS_FILE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _sep, value = line.partition("=")
            versions[key.strip()] = value.strip()
    return versions


def bin_dir() -> Path:
    """The versioned binary directory; the build script is the one place that computes it."""
    out = subprocess.run([str(BUILD_SCRIPT), "--bin-dir"], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


@dataclass(frozen=True)
class StateDir:
    """Files of one running cluster under ${NUBES_CLUSTER_DIR:-/tmp/nubes-cluster}."""

    root: Path

    @classmethod
    def from_env(cls) -> StateDir:
        return cls(Path(os.environ.get("NUBES_CLUSTER_DIR") or DEFAULT_STATE_DIR).resolve())

    @property
    def lock_file(self) -> Path:
        return self.root / ".lock"

    @property
    def state_file(self) -> Path:
        return self.root / "cluster.json"

    @property
    def pki(self) -> Path:
        return self.root / "pki"

    @property
    def etcd_data(self) -> Path:
        return self.root / "etcd-data"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def kubeconfigs(self) -> Path:
        return self.root / "kubeconfigs"

    @property
    def tokens(self) -> Path:
        return self.root / "tokens"

    @property
    def token_auth_file(self) -> Path:
        return self.pki / "tokens.csv"

    @property
    def admin_kubeconfig(self) -> Path:
        return self.kubeconfigs / "admin.kubeconfig"

    def user_kubeconfig(self, user: str) -> Path:
        return self.kubeconfigs / f"{user}.kubeconfig"

    def token_kubeconfig(self, entry: str) -> Path:
        return self.kubeconfigs / f"token-{entry}.kubeconfig"

    def log(self, component: str) -> Path:
        return self.logs / f"{component}.log"
