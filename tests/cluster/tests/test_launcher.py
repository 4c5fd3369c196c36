"""Unit tests of the cluster launcher's parts that need no cluster: PKI, kubeconfigs, tokens, ports, processes."""

from __future__ import annotations

import json
import socket
import ssl
import stat
import subprocess
import sys
from pathlib import Path

import pytest

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
    """A recorded PID that now runs another binary, or started at another time, is never signalled."""
    proc = processes.start("sleeper", [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "s.log")
    assert processes.is_running(proc)
    impostor = processes.Started(name="sleeper", pid=proc.pid, exe="/nonexistent/etcd")
    earlier = processes.Started(name="sleeper", pid=proc.pid, exe=proc.exe, start_ticks=proc.start_ticks - 1)
    assert not processes.is_running(impostor)
    assert not processes.is_running(earlier)
    processes.stop(impostor)
    processes.stop(earlier)
    assert processes.is_running(proc)
    assert processes.Started.from_json(json.loads(json.dumps(proc.to_json()))) == proc
    processes.stop(proc)
    assert not processes.is_running(proc)


def test_versions_are_pinned_in_versions_env() -> None:
    versions = read_versions()
    assert set(versions) == {"K8S_VERSION", "ETCD_VERSION", "KWOK_VERSION", "HELM_VERSION", "REGISTRY_VERSION"}
    assert all(value.startswith("v") for value in versions.values())


def test_port_was_taken_reads_the_component_logs(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    state.logs.mkdir()
    (state.logs / "etcd.log").write_text("serving\n", encoding="utf-8")
    assert not cluster.port_was_taken(state)
    (state.logs / "kube-apiserver.log").write_text("listen tcp 127.0.0.1:1: bind: address already in use\n")
    assert cluster.port_was_taken(state)


@pytest.mark.cluster
@pytest.mark.slow
def test_up_starts_again_on_other_ports_when_a_chosen_port_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second, private cluster: its etcd port is taken before etcd binds it; up retries, then down stops all."""
    state = StateDir(tmp_path / "c")
    recorded: list[processes.Started] = []
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        calls: list[int] = []

        def first_port_busy(count: int) -> list[int]:
            chosen = free_ports(count)
            calls.append(count)
            return [busy.getsockname()[1], *chosen[1:]] if len(calls) == 1 else chosen

        monkeypatch.setattr(cluster, "free_ports", first_port_busy)
        try:
            assert cluster.up(state, timeout=180) == 0
            assert len(calls) == 2
            assert capsys.readouterr().out.strip().splitlines()[-1] == f"KUBECONFIG={state.admin_kubeconfig}"
            recorded = cluster.started_of(cluster.load(state))
            assert [p.name for p in recorded] == list(cluster.BINARIES)
            assert all(processes.is_running(p) for p in recorded)
        finally:
            cluster.down(state)
    assert not any(processes.is_running(p) for p in recorded)
