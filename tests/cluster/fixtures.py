"""pytest fixtures for the local Kubernetes control plane (issue 6).

`kubeconfig` (session) starts the cluster with tests/cluster/up, or uses your own cluster with
NUBES_TEST_EXTERNAL_CLUSTER=1 KUBECONFIG=<path>. The cluster is left running after the session
(pytest-xdist workers share it); `tests/cluster/down` or `make cluster-down` stops it.
`local_cluster`, `cluster_users` and `cluster_tokens` need the local cluster (also when it is given
as the external one): they name identities that only it has (client-certificate users, static tokens).
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from tests.cluster.launcher.identities import CERT_USERS, TOKEN_ENTRIES
from tests.cluster.launcher.layout import StateDir
from tests.cluster.second_apiserver import SecondApiserver

UP_SCRIPT = Path(__file__).resolve().parent / "up"
EXTERNAL_ENV = "NUBES_TEST_EXTERNAL_CLUSTER"
KUBECTL_TIMEOUT_SECONDS = 300  # a hung kubectl fails the test instead of hanging the run


def uses_external_cluster() -> bool:
    return os.environ.get(EXTERNAL_ENV) == "1"


@pytest.fixture(scope="session")
def kubeconfig() -> str:
    """Path of an admin kubeconfig for a running cluster (local one started on demand)."""
    if uses_external_cluster():
        path = os.environ.get("KUBECONFIG", "")
        if not path or not Path(path).is_file():
            pytest.fail(f"{EXTERNAL_ENV}=1 needs KUBECONFIG=<path of an admin kubeconfig>; got {path!r}")
        return path
    proc = subprocess.run([str(UP_SCRIPT)], capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].startswith("KUBECONFIG="):
        pytest.fail(
            f"{UP_SCRIPT} failed (exit {proc.returncode}); its output:\n{proc.stderr[-6000:]}\n"
            f"To use your own cluster instead: {EXTERNAL_ENV}=1 KUBECONFIG=<path> pytest ..."
        )
    return lines[-1].partition("=")[2]


@dataclass(frozen=True)
class LocalCluster:
    """The cluster started by tests/cluster/up: where its files are and who can log in."""

    state: StateDir
    server: str

    @property
    def kubeconfig(self) -> Path:
        return self.state.admin_kubeconfig

    @property
    def ca_file(self) -> Path:
        return self.state.pki / "ca.crt"

    def user_kubeconfig(self, user: str) -> Path:
        """Kubeconfig of a client-certificate user (alice, bob, carol; see identities.py)."""
        return self.state.user_kubeconfig(user)

    def token(self, entry: str) -> str:
        """A static bearer token (entries admin, limited, issued; see identities.py). Never log it."""
        return (self.state.tokens / entry).read_text(encoding="utf-8")

    def token_kubeconfig(self, entry: str) -> Path:
        return self.state.token_kubeconfig(entry)


@pytest.fixture(scope="session")
def local_cluster(kubeconfig: str) -> LocalCluster:
    state = StateDir.from_env()
    # with EXTERNAL_ENV=1 the KUBECONFIG may still be the local cluster's (scripts/with-cluster.sh does that)
    if uses_external_cluster() and Path(kubeconfig).resolve() != state.admin_kubeconfig.resolve():
        pytest.fail(
            f"this test needs the local cluster's users and tokens (tests/cluster/up); "
            f"KUBECONFIG={kubeconfig} with {EXTERNAL_ENV}=1 is another cluster"
        )
    data = json.loads(state.state_file.read_text(encoding="utf-8"))
    return LocalCluster(state=state, server=str(data["server"]))


@pytest.fixture(scope="session")
def cluster_users(local_cluster: LocalCluster) -> dict[str, Path]:
    """Client-certificate users without RBAC bindings: name -> kubeconfig path."""
    return {user.name: local_cluster.user_kubeconfig(user.name) for user in CERT_USERS}


@pytest.fixture(scope="session")
def cluster_tokens(local_cluster: LocalCluster) -> dict[str, str]:
    """Static bearer tokens of --token-auth-file: entry -> token (admin, limited, issued)."""
    return {entry.entry: local_cluster.token(entry.entry) for entry in TOKEN_ENTRIES}


class KubectlError(AssertionError):
    pass


class Kubectl:
    """Runs kubectl against the test cluster: kubectl("get", "ns"), kubectl.json("get", "ns", "x")."""

    def __init__(self, kubeconfig: str) -> None:
        self.kubeconfig = kubeconfig

    def __call__(
        self,
        *args: str,
        kubeconfig: Optional[os.PathLike[str] | str] = None,
        stdin: Optional[str] = None,
        check: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        argv = ["kubectl", f"--kubeconfig={kubeconfig or self.kubeconfig}", *args]
        proc = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, timeout=KUBECTL_TIMEOUT_SECONDS, check=False
        )
        if check and proc.returncode != 0:
            raise KubectlError(f"kubectl {' '.join(args)} failed (exit {proc.returncode}): {proc.stderr.strip()}")
        return proc

    def json(self, *args: str, kubeconfig: Optional[os.PathLike[str] | str] = None) -> Any:
        """The decoded `-o json` output of a kubectl command."""
        return json.loads(self(*args, "-o", "json", kubeconfig=kubeconfig).stdout)

    def apply(self, manifest: str, *args: str, field_manager: str = "nubes-tests") -> None:
        """Server-side apply of a YAML/JSON manifest given as text."""
        self("apply", "--server-side", f"--field-manager={field_manager}", "-f", "-", *args, stdin=manifest)


@pytest.fixture(scope="session")
def kubectl(kubeconfig: str) -> Kubectl:
    return Kubectl(kubeconfig)


def unique_name(prefix: str) -> str:
    """A DNS-1123 name that no other test (or xdist worker, or earlier run) uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def kube_namespace(kubectl: Kubectl) -> Iterator[str]:
    """A fresh namespace for one test, deleted (without waiting) afterwards."""
    name = unique_name("t")
    kubectl("create", "namespace", name)
    yield name
    kubectl("delete", "namespace", name, "--wait=false", "--ignore-not-found", check=False)


@pytest.fixture
def second_apiserver(tmp_path: Path, local_cluster: LocalCluster) -> Iterator[SecondApiserver]:
    """A second kube-apiserver on the local cluster's etcd, started for this test: kill() and start() it to restart
    "the" apiserver a module talks to (through `second_apiserver.kubeconfig`, admin) while the shared apiserver keeps
    serving every other test. Killed after the test."""
    server = SecondApiserver(tmp_path, str(local_cluster.kubeconfig))
    server.start()
    try:
        yield server
    finally:
        server.kill()
