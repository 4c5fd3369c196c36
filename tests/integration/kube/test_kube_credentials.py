"""Credential sources of the Kubernetes access layer against the real kube-apiserver (tests/cluster): exec plugins
(token and client certificate, run again after expiry), in-cluster service accounts (token re-read), merged
KUBECONFIG lists with relative paths, auth-provider users (delegated to the ``kubernetes`` package), TLS server
name and verification. The proof is what the apiserver answers: the identity it saw (``system:masters`` reads the
cluster UID; ``alice`` is named in the 403) (C11)."""

from __future__ import annotations

import base64
import datetime
import json
import os
import shutil
import ssl
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest
import yaml

from ansible_collections.nubes.cloud.plugins.module_utils.kube import kubeconfig as kc
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import ConnectionOptions, connect
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ConnectionFailed, Forbidden

pytestmark = pytest.mark.cluster


def kubeconfig_of(server: str, user: Dict[str, Any], cluster_extra: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server, **cluster_extra}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }


def plugin(path: Path, status: Dict[str, Any], api_version: str = "client.authentication.k8s.io/v1") -> Path:
    """An exec credential plugin that prints ``status`` and appends its KUBERNETES_EXEC_INFO to ``<path>.calls``."""
    path.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import json, os
            with open({str(path) + ".calls"!r}, "a") as calls:
                calls.write(os.environ["KUBERNETES_EXEC_INFO"] + "\\n")
            print(json.dumps({{"apiVersion": {api_version!r}, "kind": "ExecCredential", "status": {status!r}}}))
            """
        ),
        encoding="utf-8",
    )
    path.chmod(0o700)
    return path


def calls(path: Path) -> list:
    target = Path(str(path) + ".calls")
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()] if target.exists() else []


def pem(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture
def ca_settings(local_cluster) -> Dict[str, Any]:
    return {"certificate-authority": str(local_cluster.ca_file)}


def test_exec_plugin_token_is_used_and_refreshed_after_expiry(
    local_cluster, cluster_tokens, ca_settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C11: an exec plugin's bearer token authenticates (the admin token reads kube-system); the plugin runs once per
    credential, gets the cluster with provideClusterInfo, and runs again once expirationTimestamp has passed."""
    expiry = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=10)
    script = plugin(
        tmp_path / "token-plugin",
        {"token": cluster_tokens["admin"], "expirationTimestamp": expiry.strftime("%Y-%m-%dT%H:%M:%SZ")},
    )
    user = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(script), "provideClusterInfo": True}
    }
    api = connect(ConnectionOptions(kubeconfig=kubeconfig_of(local_cluster.server, user, ca_settings)))
    uid = api.cluster_uid()
    assert uid and api.cluster_uid() == uid
    seen = calls(script)
    assert len(seen) == 1, "the plugin runs once while its credential is valid"
    assert seen[0]["spec"]["cluster"]["server"] == local_cluster.server
    assert seen[0]["spec"]["cluster"]["certificate-authority-data"]  # the CA file, as client-go passes it
    later = expiry + datetime.timedelta(seconds=1)
    monkeypatch.setattr(kc, "_now", lambda: later)
    assert api.cluster_uid() == uid
    assert len(calls(script)) == 2, "an expired credential is fetched again before the next request"


def test_exec_plugin_client_certificate_is_the_identity(local_cluster, ca_settings, tmp_path: Path) -> None:
    """An exec plugin that answers a client certificate (v1beta1): the apiserver sees that certificate's user."""
    pki = local_cluster.state.pki
    script = plugin(
        tmp_path / "cert-plugin",
        {"clientCertificateData": pem(pki / "user-alice.crt"), "clientKeyData": pem(pki / "user-alice.key")},
        api_version="client.authentication.k8s.io/v1beta1",
    )
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": str(script)}}
    before = set(Path(tempfile.gettempdir()).glob("nubes-kube-*"))
    api = connect(ConnectionOptions(kubeconfig=kubeconfig_of(local_cluster.server, user, ca_settings)))
    assert set(Path(tempfile.gettempdir()).glob("nubes-kube-*")) == before, "inline certificates never stay on disk"
    with pytest.raises(Forbidden, match='User "alice"'):
        api.cluster_uid()


def files_holding(directory: Path, secret: str) -> list:
    """The files under `directory` whose text contains `secret`."""
    return [str(p) for p in directory.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_inline_client_key_is_in_no_file(
    local_cluster, ca_settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 (the in-process path writes nothing of the task's arguments to disk): an inline client key
    (client-key-data) reaches OpenSSL through anonymous memory files (memfd, in no file system); while the TLS
    context loads it, no file in the temporary directory holds it; the apiserver sees the certificate's user."""
    pki = local_cluster.state.pki
    key = pem(pki / "user-alice.key")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    loaded = []
    load_cert_chain = ssl.SSLContext.load_cert_chain

    def watching(context, certfile, keyfile=None, password=None):  # records what OpenSSL is given, then loads it
        loaded.append((os.readlink(certfile), os.readlink(keyfile), files_holding(temporary, key.strip())))
        return load_cert_chain(context, certfile, keyfile, password)

    monkeypatch.setattr(ssl.SSLContext, "load_cert_chain", watching)
    user = {
        "client-certificate-data": base64.b64encode((pki / "user-alice.crt").read_bytes()).decode(),
        "client-key-data": base64.b64encode(key.encode()).decode(),
    }
    api = connect(ConnectionOptions(kubeconfig=kubeconfig_of(local_cluster.server, user, ca_settings)))
    with pytest.raises(Forbidden, match='User "alice"'):
        api.cluster_uid()
    [(cert_target, key_target, holding)] = loaded
    assert cert_target.startswith("/memfd:nubes-kube-client.crt")
    assert key_target.startswith("/memfd:nubes-kube-client.key")  # "/memfd:<name> (deleted)": in no file system
    assert holding == [] and list(temporary.iterdir()) == []


@pytest.fixture
def service_account(local_cluster, cluster_tokens, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A pod's service account mount and environment, pointing at the local apiserver."""
    mount = tmp_path / "serviceaccount"
    mount.mkdir()
    shutil.copy(local_cluster.ca_file, mount / "ca.crt")
    (mount / "token").write_text(cluster_tokens["admin"], encoding="utf-8")
    (mount / "namespace").write_text("team-a", encoding="utf-8")
    host, _sep, port = local_cluster.server.removeprefix("https://").rpartition(":")
    monkeypatch.setattr(kc, "SERVICE_ACCOUNT_DIR", str(mount))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    yield mount


def test_in_cluster_service_account_and_token_rotation(
    service_account: Path, cluster_tokens, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No connection option inside a pod: the mounted token and CA; a rotated token is read within a minute."""
    api = connect(ConnectionOptions())
    assert api.cluster_uid()
    (service_account / "token").write_text(cluster_tokens["limited"], encoding="utf-8")
    assert api.cluster_uid(), "the token is read again only after a minute"
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=1, seconds=1)
    monkeypatch.setattr(kc, "_now", lambda: later)
    with pytest.raises(Forbidden, match="token-limited"):
        api.cluster_uid()


def test_kubeconfig_list_merges_first_wins_with_relative_paths(
    local_cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KUBECONFIG=a:b as kubectl merges it: the first definition of a name and the first current-context win;
    relative certificate paths are relative to the file that names them."""
    pki = local_cluster.state.pki
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    for name in ("ca.crt", "admin.crt", "admin.key"):
        shutil.copy(pki / name, first / name)
    (first / "config").write_text(
        yaml.safe_dump(
            {
                "clusters": [
                    {"name": "local", "cluster": {"server": local_cluster.server, "certificate-authority": "ca.crt"}}
                ],
                "users": [{"name": "admin", "user": {"client-certificate": "admin.crt", "client-key": "admin.key"}}],
                "contexts": [{"name": "main", "context": {"cluster": "local", "user": "admin"}}],
                "current-context": "main",
            }
        ),
        encoding="utf-8",
    )
    (second / "config").write_text(
        yaml.safe_dump(
            {
                "clusters": [{"name": "local", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [{"name": "admin", "user": {"token": "not-this-one"}}],
                "contexts": [{"name": "other", "context": {"cluster": "local", "user": "admin"}}],
                "current-context": "other",
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("KUBECONFIG", f"{second / 'missing'}:{first / 'config'}:{second / 'config'}")
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert connect(ConnectionOptions()).cluster_uid()
    assert connect(ConnectionOptions(context="other")).cluster_uid(), "the first file's cluster and user win"


def test_auth_provider_users_are_delegated_to_the_kubernetes_package(
    local_cluster, cluster_tokens, ca_settings
) -> None:
    """An auth-provider user (gcp, with a cached access token that has not expired) is loaded by the kubernetes
    package as before; its bearer token reaches the apiserver."""
    expiry = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    user = {
        "auth-provider": {
            "name": "gcp",
            "config": {"access-token": cluster_tokens["admin"], "expiry": expiry.strftime("%Y-%m-%dT%H:%M:%SZ")},
        }
    }
    api = connect(ConnectionOptions(kubeconfig=kubeconfig_of(local_cluster.server, user, ca_settings)))
    assert api.cluster_uid()


def test_tls_server_name_and_verification(local_cluster, cluster_tokens, ca_settings) -> None:
    """tls-server-name is the name the certificate is checked against; insecure-skip-tls-verify needs no CA."""
    user = {"token": cluster_tokens["admin"]}
    named = kubeconfig_of(local_cluster.server, user, {**ca_settings, "tls-server-name": "kubernetes.default"})
    assert connect(ConnectionOptions(kubeconfig=named)).cluster_uid()
    wrong = kubeconfig_of(local_cluster.server, user, {**ca_settings, "tls-server-name": "elsewhere.example"})
    with pytest.raises(ConnectionFailed):
        connect(ConnectionOptions(kubeconfig=wrong)).cluster_uid()
    unverified = kubeconfig_of(local_cluster.server, user, {"insecure-skip-tls-verify": True})
    assert connect(ConnectionOptions(kubeconfig=unverified)).cluster_uid()
    with pytest.raises(ConnectionFailed):
        connect(ConnectionOptions(kubeconfig=kubeconfig_of(local_cluster.server, user, {}))).cluster_uid()
