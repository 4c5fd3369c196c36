"""Unit tests of the kubeconfig loader's rules (no cluster): which credential wins, merge order, relative paths,
exec plugin answers and errors, basic auth, in-cluster host, proxies from the environment (C11). The credential
sources themselves are proven against the real apiserver in tests/integration/kube/test_kube_credentials.py."""

from __future__ import annotations

import base64
import json
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

from ansible_collections.nubes.cloud.plugins.module_utils.kube import kubeconfig as kc
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError
from ansible_collections.nubes.cloud.plugins.module_utils.kube.transport import bypassed, proxy_for

SERVER = "https://api.example:6443"


def config(user: Dict[str, Any], cluster: Dict[str, Any] | None = None) -> Dict[str, Any]:
    return {
        "clusters": [{"name": "c", "cluster": {"server": SERVER, **(cluster or {})}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }


def load(data: Dict[str, Any], context: str | None = None) -> kc.ClientConfig:
    return kc.client_config(kc.from_content(data), context)


def script(tmp_path: Path, output: str, code: int = 0) -> str:
    path = tmp_path / "plugin"
    path.write_text(f"#!{sys.executable}\nimport sys\nprint({output!r})\nsys.exit({code})\n", encoding="utf-8")
    path.chmod(0o700)
    return str(path)


def test_token_wins_over_exec_and_basic_auth_is_a_header(tmp_path: Path) -> None:
    """kubernetes.config's order: token (or tokenFile) before exec before username/password."""
    never = script(tmp_path, "not json", code=1)
    both = {"token": "t0k", "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": never}}
    assert load(config(both)).auth_header() == "Bearer t0k"
    basic = load(config({"username": "ann", "password": "pw"})).auth_header()
    assert basic == "Basic " + base64.b64encode(b"ann:pw").decode()
    (tmp_path / "token").write_text("from-file\n", encoding="utf-8")
    assert load(config({"tokenFile": str(tmp_path / "token")})).auth_header() == "Bearer from-file"


def test_inline_data_wins_and_relative_paths_follow_their_file(tmp_path: Path) -> None:
    """``*-data`` wins over the path; relative paths are relative to the file that defines the entry."""
    (tmp_path / "ca.crt").write_text("CA", encoding="utf-8")
    (tmp_path / "config").write_text(yaml.safe_dump(config({}, {"certificate-authority": "ca.crt"})), encoding="utf-8")
    loaded = kc.client_config(kc.read_files(str(tmp_path / "config")))
    assert loaded.ca_file == str(tmp_path / "ca.crt") and loaded.ca_data is None
    inline = config(
        {}, {"certificate-authority": "ca.crt", "certificate-authority-data": base64.b64encode(b"PEM").decode()}
    )
    assert load(inline).ca_data == "PEM" and load(inline).ca_file is None
    with pytest.raises(KubeConfigError, match=r"certificate-authority .*missing\.crt of the kubeconfig does not exist"):
        load(config({}, {"certificate-authority": "missing.crt"}))


def test_merge_keeps_the_first_definition_and_current_context(tmp_path: Path) -> None:
    """C11: several files: the first definition of a name and the first current-context win; missing files skipped."""
    first = {"clusters": [{"name": "c", "cluster": {"server": "https://first:1"}}], "current-context": "a"}
    second = {
        "clusters": [{"name": "c", "cluster": {"server": "https://second:1"}}],
        "users": [{"name": "u", "user": {"token": "x"}}],
        "contexts": [
            {"name": "a", "context": {"cluster": "c", "user": "u"}},
            {"name": "b", "context": {"cluster": "c"}},
        ],
        "current-context": "b",
    }
    (tmp_path / "1").write_text(yaml.safe_dump(first), encoding="utf-8")
    (tmp_path / "2").write_text(yaml.safe_dump(second), encoding="utf-8")
    merged = kc.read_files(f"{tmp_path / 'none'}:{tmp_path / '1'}:{tmp_path / '2'}")
    assert merged.current_context == "a"
    assert kc.client_config(merged).host == "https://first:1"
    assert kc.client_config(merged, "b").auth_header() is None
    with pytest.raises(KubeConfigError, match="context z is not in the kubeconfig"):
        kc.client_config(merged, "z")
    with pytest.raises(KubeConfigError, match="no kubeconfig file found"):
        kc.read_files(str(tmp_path / "none"))


def test_exec_plugin_answers_are_checked(tmp_path: Path) -> None:
    """Wrong apiVersion, non-zero exit and output without credentials fail with the plugin named."""
    ok = json.dumps(
        {"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"interactive": False}}
    )
    spec = {"apiVersion": "client.authentication.k8s.io/v1", "command": script(tmp_path, ok)}
    with pytest.raises(KubeConfigError, match="gave neither a token nor a client certificate"):
        load(config({"exec": spec}))
    with pytest.raises(KubeConfigError, match="exited with 3"):
        load(config({"exec": dict(spec, command=script(tmp_path, "", code=3))}))
    with pytest.raises(KubeConfigError, match=r"apiVersion client\.authentication\.k8s\.io/v1alpha1 is not supported"):
        load(config({"exec": dict(spec, apiVersion="client.authentication.k8s.io/v1alpha1")}))
    other = json.dumps(
        {"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", "status": {"token": "t"}}
    )
    with pytest.raises(KubeConfigError, match=r"answered client\.authentication\.k8s\.io/v1beta1"):
        load(config({"exec": dict(spec, command=script(tmp_path, other))}))


def test_exec_plugin_environment_and_working_directory(tmp_path: Path) -> None:
    """env entries reach the plugin; it runs in the kubeconfig's directory (relative commands resolve there)."""
    plugin = tmp_path / "env-plugin"
    plugin.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import json, os
            token = os.environ["PLUGIN_TOKEN"] + ":" + os.path.basename(os.getcwd())
            print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                               "status": {{"token": token}}}}))
            """
        ),
        encoding="utf-8",
    )
    plugin.chmod(0o700)
    spec = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "command": "./env-plugin",
        "env": [{"name": "PLUGIN_TOKEN", "value": "abc"}],
    }
    (tmp_path / "config").write_text(yaml.safe_dump(config({"exec": spec})), encoding="utf-8")
    loaded = kc.client_config(kc.read_files(str(tmp_path / "config")))
    assert loaded.auth_header() == f"Bearer abc:{tmp_path.name}"


def test_in_cluster_host_and_missing_mount(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """IPv6 service hosts are bracketed (net.JoinHostPort); a missing CA or token is a clear error."""
    (tmp_path / "token").write_text("sa-token", encoding="utf-8")
    (tmp_path / "ca.crt").write_text("CA", encoding="utf-8")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    loaded = kc.in_cluster_config(str(tmp_path))
    assert loaded.host == "https://[fd00::1]:443" and loaded.auth_header() == "Bearer sa-token"
    (tmp_path / "ca.crt").unlink()
    with pytest.raises(KubeConfigError, match=r"ca\.crt is missing or empty"):
        kc.in_cluster_config(str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT")
    with pytest.raises(KubeConfigError, match="not inside a pod"):
        kc.in_cluster_config(str(tmp_path))


def test_proxy_from_kubeconfig_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """proxy-url wins; else HTTPS_PROXY unless NO_PROXY names the host, a domain suffix or an IP network."""
    for name in ("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_for(kc.ClientConfig(host=SERVER)) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert proxy_for(kc.ClientConfig(host=SERVER)) == "http://proxy:3128"
    assert proxy_for(kc.ClientConfig(host=SERVER, proxy="socks5://s:1080")) == "socks5://s:1080"
    monkeypatch.setenv("NO_PROXY", "localhost,.example")
    assert proxy_for(kc.ClientConfig(host=SERVER)) is None
    assert bypassed("https://10.1.2.3:6443", "10.0.0.0/8") and not bypassed("https://11.1.2.3:6443", "10.0.0.0/8")
    assert bypassed("https://api.example:6443", "api.example:6443") and bypassed("https://x:1", "*")
