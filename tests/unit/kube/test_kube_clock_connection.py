"""Unit tests of the access layer's time helpers and connection precedence (no cluster)."""

from __future__ import annotations

import datetime

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import (
    format_micro_time,
    format_time,
    parse_time,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import (
    ConnectionOptions,
    configuration,
    kubeconfig_dict,
    sensitive_values,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError

MOMENT = datetime.datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=datetime.timezone.utc)
KUBECONFIG = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:6443"}}],
    "users": [{"name": "u", "user": {"token": "s3cr3t-token"}}],
    "contexts": [
        {"name": "ctx", "context": {"cluster": "c", "user": "u"}},
        {"name": "other", "context": {"cluster": "c", "user": "u"}},
    ],
    "current-context": "ctx",
}


def test_times_as_kubernetes_writes_them() -> None:
    """Time (seconds) and MicroTime (Leases) in UTC with Z; parse_time reads both."""
    assert format_time(MOMENT) == "2026-03-04T05:06:07Z"
    assert format_micro_time(MOMENT) == "2026-03-04T05:06:07.891011Z"
    assert parse_time("2026-03-04T05:06:07Z") == MOMENT.replace(microsecond=0)
    assert parse_time("2026-03-04T05:06:07.891011Z") == MOMENT
    with pytest.raises(ValueError):
        parse_time("yesterday")


def test_alternatives_are_exclusive() -> None:
    """C11: kubeconfig, host and gke are alternatives; two of them is an error before any call."""
    with pytest.raises(KubeConfigError, match="kubeconfig and host are alternatives"):
        configuration(ConnectionOptions(kubeconfig=KUBECONFIG, host="https://x"))


def test_kubeconfig_dict_text_and_context() -> None:
    """C11: a kubeconfig dict (a cloud module's output) or its YAML text; context picks the cluster and user."""
    config = configuration(ConnectionOptions(kubeconfig=KUBECONFIG, context="other"))
    assert config.host == "https://127.0.0.1:6443"
    assert kubeconfig_dict("apiVersion: v1\nclusters: []\n") == {"apiVersion": "v1", "clusters": []}
    assert sensitive_values(KUBECONFIG) == ["s3cr3t-token"]


def test_host_token_and_overrides() -> None:
    """host + api_key as a bearer token; validate_certs and ca_cert apply on top of any source."""
    config = configuration(ConnectionOptions(host="https://10.0.0.1:6443/", api_key="tok", validate_certs=False))
    assert config.host == "https://10.0.0.1:6443"
    assert config.auth_header() == "Bearer tok" and config.verify is False


def test_default_kubeconfig_when_not_in_a_pod(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No option: outside a pod, $KUBECONFIG with the context asked for."""
    import yaml

    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(KUBECONFIG), encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert configuration(ConnectionOptions(context="other")).host == "https://127.0.0.1:6443"
    with pytest.raises(KubeConfigError, match="cannot load the kubeconfig"):
        configuration(ConnectionOptions(context="missing"))
