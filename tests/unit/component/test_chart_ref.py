"""The helm options that name a chart of a repository or an OCI registry (issue 27; chart sources, beyond the seed:
docs/dev/rules.md), checked before anything runs: each form kubernetes.core.helm and Flux users write, and each
mistake with the message that says what to give."""

from __future__ import annotations

from typing import Any, Dict, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_pull import (
    cache_root,
    helm_environment,
    missing_dependencies,
    pull_argv,
    pull_failure,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_ref import (
    OCI,
    REPO,
    ChartSourceError,
    RemoteChart,
    remote_chart,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import helm_source

DIGEST = "sha256:" + "ab" * 32


def _remote(source: Optional[str] = None, **options: Any) -> Optional[RemoteChart]:
    return remote_chart(options, source)


def test_repository_chart_as_kubernetes_core_names_it() -> None:
    """chart_ref + chart_repo_url + chart_version (+ chart_digest): a chart of an index.yaml repository."""
    remote = _remote(chart_ref="portal", chart_repo_url="https://charts.example.com/", chart_version="1.0.0")
    assert remote == RemoteChart(kind=REPO, chart="portal", version="1.0.0", repo_url="https://charts.example.com")
    assert remote.describe() == "chart portal 1.0.0 of https://charts.example.com"
    pinned = _remote(
        chart_ref="portal",
        chart_repo_url="http://127.0.0.1:8080",
        chart_version="1.0.0",
        chart_digest=DIGEST.upper().replace("SHA256", "sha256"),
    )
    assert pinned is not None and pinned.digest == DIGEST


def test_oci_chart_as_a_full_reference_or_as_flux_oci_repository() -> None:
    """oci://host/path/chart, or chart_repo_url oci://host/path + the chart's name: the same chart."""
    full = _remote(chart_ref="oci://127.0.0.1:5000/charts/portal", chart_version="1.1.0", plain_http=True)
    flux = _remote(
        chart_ref="portal", chart_repo_url="oci://127.0.0.1:5000/charts/", chart_version="1.1.0", plain_http=True
    )
    assert full == flux
    assert full is not None and (full.kind, full.chart, full.oci_ref) == (OCI, "portal", full.location)
    assert full.describe() == "chart oci://127.0.0.1:5000/charts/portal 1.1.0"
    assert full.cache_name().startswith("portal-")
    assert (
        full.cache_name() != _remote(chart_ref="portal", chart_repo_url="http://x", chart_version="1.1.0").cache_name()
    )


def test_no_chart_ref_means_the_chart_is_the_source() -> None:
    assert _remote() is None
    assert _remote(source="charts/shop", values_files=["a.yaml"]) is None


@pytest.mark.parametrize(
    ("source", "options", "message"),
    [
        (None, {"chart_version": "1.0.0"}, "helm.chart_version needs helm.chart_ref"),
        (None, {"plain_http": True}, "helm.plain_http needs helm.chart_ref"),
        ("charts/shop", {"chart_ref": "portal"}, "source and helm.chart_ref are alternatives"),
        (None, {"chart_ref": "portal", "chart_repo_url": "https://c"}, "helm.chart_version is required"),
        (None, {"chart_ref": "oci://r/c/portal", "chart_version": "^1.0"}, "is not an exact version"),
        (None, {"chart_ref": "oci://r/c/portal", "chart_version": "1.x"}, "is not an exact version"),
        (None, {"chart_ref": "oci://r/c/portal", "chart_version": 1.0}, "helm.chart_version must be a string"),
        (None, {"chart_ref": "oci://r/c/portal", "chart_version": "1.0.0", "chart_digest": "abc"}, "is not a digest"),
        (None, {"chart_ref": "portal", "chart_version": "1.0.0"}, "needs helm.chart_repo_url"),
        (None, {"chart_ref": "bitnami/nginx", "chart_version": "1.0.0"}, "is not a chart name"),
        (
            None,
            {"chart_ref": "portal", "chart_repo_url": "ftp://c", "chart_version": "1.0.0"},
            "is neither an https://",
        ),
        (
            None,
            {"chart_ref": "oci://r/c/portal", "chart_repo_url": "oci://r/c", "chart_version": "1.0.0"},
            "is a full oci:// reference",
        ),
        (None, {"chart_ref": "oci://r/c/portal:1.0.0", "chart_version": "1.0.0"}, "names a tag or digest"),
        (None, {"chart_ref": f"oci://r/c/portal@{DIGEST}", "chart_version": "1.0.0"}, "names a tag or digest"),
        (None, {"chart_ref": "oci://portal", "chart_version": "1.0.0"}, "is not a registry host followed by"),
        (
            None,
            {"chart_ref": "portal", "chart_repo_url": "https://c", "chart_version": "1.0.0", "plain_http": True},
            "helm.plain_http is for OCI registries",
        ),
    ],
)
def test_mistakes_fail_before_anything_runs(source: Optional[str], options: Dict[str, Any], message: str) -> None:
    """issue 27: every wrong combination names the option and what to give instead."""
    with pytest.raises(ChartSourceError, match=message.replace("^", r"\^").replace("+", r"\+")):
        remote_chart(options, source)


def test_helm_source_accepts_the_remote_options_beside_the_render_options() -> None:
    """The same `helm` dict holds both: the renderer ignores where the chart came from."""
    source = helm_source("/cache/portal", {"chart_ref": "portal", "chart_version": "1.0.0", "skip_tests": True})
    assert source.chart == "/cache/portal" and source.skip_tests


def test_pull_commands_and_cache_location(tmp_path) -> None:
    """helm pull at the exact version (OCI with --plain-http when asked); the cache honours NUBES_CHART_CACHE, then
    XDG_CACHE_HOME; helm's homes are private to the pull, the user's registry login is kept."""
    repo = _remote(chart_ref="portal", chart_repo_url="https://c", chart_version="1.0.0")
    oci = _remote(chart_ref="oci://r.example/c/portal", chart_version="1.0.0", plain_http=True)
    assert repo is not None and oci is not None
    assert pull_argv("helm", repo, "/d") == [
        "helm",
        "pull",
        "portal",
        "--repo",
        "https://c",
        "--version",
        "1.0.0",
        "--destination",
        "/d",
    ]
    assert pull_argv("helm", oci, "/d")[2:] == [
        "oci://r.example/c/portal",
        "--version",
        "1.0.0",
        "--destination",
        "/d",
        "--plain-http",
    ]
    assert cache_root({"NUBES_CHART_CACHE": "/x"}) == "/x"
    assert cache_root({"XDG_CACHE_HOME": "/xdg"}) == "/xdg/nubes-cloud/charts"
    login = tmp_path / "config" / "registry" / "config.json"
    login.parent.mkdir(parents=True)
    login.write_text("{}", encoding="utf-8")
    env = helm_environment("/work", {"HELM_CONFIG_HOME": str(tmp_path / "config")})
    assert env["HELM_CONFIG_HOME"] == "/work/helm/config" and env["HELM_REGISTRY_CONFIG"] == str(login)
    assert "HELM_REGISTRY_CONFIG" not in helm_environment("/work", {"HELM_CONFIG_HOME": str(tmp_path / "none")})


def test_pull_failures_say_what_failed_and_what_to_check() -> None:
    """The three failures a user meets most, told apart from helm's words."""
    repo = _remote(chart_ref="portal", chart_repo_url="http://127.0.0.1:9", chart_version="9.9.9")
    oci = _remote(chart_ref="oci://127.0.0.1:9/charts/portal", chart_version="1.0.0")
    assert repo is not None and oci is not None
    refused = pull_failure(
        repo,
        'Error: looks like "http://127.0.0.1:9" is not a valid chart repository or cannot be '
        'reached: Get "http://127.0.0.1:9/index.yaml": dial tcp 127.0.0.1:9: connect: connection '
        "refused",
    )
    assert refused.startswith("cannot pull chart portal 9.9.9 of http://127.0.0.1:9: the chart repository")
    assert "check helm.chart_repo_url" in refused and refused.endswith("Nothing was applied")
    missing = pull_failure(repo, 'Error: chart "portal" version "9.9.9" not found in http://127.0.0.1:9 repository')
    assert (
        "has no chart portal at version 9.9.9" in missing and "check helm.chart_ref and helm.chart_version" in missing
    )
    plain = pull_failure(oci, "Error: Head: http: server gave HTTP response to HTTPS client")
    assert "set helm.plain_http: true" in plain


def test_missing_dependencies_reads_chart_yaml_and_charts_dir(tmp_path) -> None:
    """A dependency counts as carried when charts/ has its directory or its packaged archive."""
    chart = tmp_path / "portal"
    (chart / "charts" / "sub").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: portal\nversion: 1.0.0\ndependencies:\n"
        "  - {name: greeter, version: 0.3.0, repository: http://r}\n"
        "  - {name: sub, version: 0.1.0}\n  - {name: cache-store, version: 1.0.0-rc.1, repository: http://r}\n",
        encoding="utf-8",
    )
    (chart / "charts" / "sub" / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    assert missing_dependencies(str(chart)) == ["greeter", "cache-store"]
    (chart / "charts" / "greeter-0.3.0.tgz").write_bytes(b"")
    (chart / "charts" / "cache-store-1.0.0-rc.1.tgz").write_bytes(b"")
    assert missing_dependencies(str(chart)) == []
