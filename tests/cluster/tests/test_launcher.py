"""Unit tests of the cluster launcher's parts that need no cluster: PKI, kubeconfigs, tokens, ports, processes."""

from __future__ import annotations

import json
import ssl
import stat
import subprocess
import sys
from pathlib import Path

from tests.cluster.launcher import cluster, processes
from tests.cluster.launcher.identities import CERT_USERS, TOKEN_ENTRIES
from tests.cluster.launcher.layout import StateDir, read_versions
from tests.cluster.launcher.ports import free_ports


def made_state(tmp_path: Path) -> StateDir:
    state = StateDir(tmp_path / "state")
    cluster.fresh_dirs(state)
    cluster.make_pki_and_tokens(state)
    cluster.write_kubeconfigs(state, "https://127.0.0.1:6443")
    return state


def subject_of(cert: Path) -> str:
    out = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-noout", "-subject"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_pki_certs_chain_to_the_ca_and_carry_user_and_groups(tmp_path: Path) -> None:
    """Client certs name the user as CN and each group as O; the serving cert is valid for 127.0.0.1."""
    pki = made_state(tmp_path).pki
    for name in ["apiserver", "admin", *(f"user-{u.name}" for u in CERT_USERS)]:
        verify = subprocess.run(
            ["openssl", "verify", "-CAfile", str(pki / "ca.crt"), str(pki / f"{name}.crt")],
            capture_output=True,
            check=False,
        )
        assert verify.returncode == 0, verify.stderr
        ssl.create_default_context().load_cert_chain(str(pki / f"{name}.crt"), str(pki / f"{name}.key"))
    assert subject_of(pki / "admin.crt") == "subject=CN = nubes-admin, O = system:masters"
    assert subject_of(pki / "user-alice.crt") == "subject=CN = alice, O = nubes:developers"
    assert subject_of(pki / "user-carol.crt") == "subject=CN = carol"
    san = subprocess.run(
        ["openssl", "x509", "-in", str(pki / "apiserver.crt"), "-noout", "-ext", "subjectAltName"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "IP Address:127.0.0.1" in san


def test_secrets_are_owner_only_and_tokens_match_the_token_auth_file(tmp_path: Path) -> None:
    """Keys, tokens and kubeconfigs are mode 0600; each token file's token is a line of tokens.csv."""
    state = made_state(tmp_path)
    secret_files = [
        *state.pki.glob("*.key"),
        state.token_auth_file,
        *state.tokens.iterdir(),
        *state.kubeconfigs.iterdir(),
    ]
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in secret_files)
    lines = state.token_auth_file.read_text(encoding="utf-8").splitlines()
    for entry, line in zip(TOKEN_ENTRIES, lines):
        token = (state.tokens / entry.entry).read_text(encoding="utf-8")
        assert line == f'{token},{entry.user},{entry.user},"{",".join(entry.groups)}"'
    assert len({(state.tokens / e.entry).read_text(encoding="utf-8") for e in TOKEN_ENTRIES}) == len(TOKEN_ENTRIES)


def test_kubeconfigs_are_read_by_kubectl(tmp_path: Path) -> None:
    """kubectl accepts the generated (JSON) kubeconfigs: server, user name and embedded credentials."""
    state = made_state(tmp_path)
    for path, user in [(state.admin_kubeconfig, "nubes-admin"), (state.user_kubeconfig("bob"), "bob")]:
        view = subprocess.run(
            ["kubectl", "config", "view", "--raw", "-o", "json", f"--kubeconfig={path}"],
            capture_output=True,
            text=True,
            check=True,
        )
        config = json.loads(view.stdout)
        assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:6443"
        assert config["users"][0]["name"] == user
        assert config["users"][0]["user"]["client-certificate-data"]
    token_view = json.loads(state.token_kubeconfig("limited").read_text(encoding="utf-8"))
    assert token_view["users"][0]["user"] == {"token": (state.tokens / "limited").read_text(encoding="utf-8")}


def test_free_ports_are_distinct_loopback_ports() -> None:
    ports = free_ports(5)
    assert len(set(ports)) == 5
    assert all(1024 <= port <= 65535 for port in ports)


def test_processes_are_stopped_by_recorded_pid_only_while_they_run_the_same_binary(tmp_path: Path) -> None:
    """A recorded PID whose command line names another binary is never signalled."""
    proc = processes.start("sleeper", [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "s.log")
    assert processes.is_running(proc)
    impostor = processes.Started(name="sleeper", pid=proc.pid, exe="/nonexistent/etcd")
    assert not processes.is_running(impostor)
    processes.stop(impostor)
    assert processes.is_running(proc)
    processes.stop(proc)
    assert not processes.is_running(proc)


def test_versions_are_pinned_in_versions_env() -> None:
    versions = read_versions()
    assert set(versions) == {"K8S_VERSION", "ETCD_VERSION", "KWOK_VERSION"}
    assert all(value.startswith("v") for value in versions.values())
