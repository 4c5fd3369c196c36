"""Pulling charts into the controller's chart cache with the real helm (issue 27; chart sources, beyond the seed:
docs/dev/rules.md), no cluster: a chart repository on 127.0.0.1 and the local OCI registry
(`tests/charts/published.py`). What is in the cache is read from disk, and what was fetched from the repository's
own request log."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_pull import (
    DIGESTS_FILE,
    PulledChart,
    pull_chart,
    sha256_file,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_ref import (
    ChartSourceError,
    RemoteChart,
    remote_chart,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command
from tests.charts.published import BARE_VERSION, GREETER_VERSION, PublishedCharts


def _repo_chart(charts: PublishedCharts, version: str, **options: Any) -> RemoteChart:
    remote = remote_chart(
        {"chart_ref": "portal", "chart_repo_url": charts.repo_url, "chart_version": version, **options}
    )
    assert remote is not None
    return remote


def _archives(requests: List[str]) -> List[str]:
    return [path for path in requests if path.endswith(".tgz")]


def test_repository_chart_is_pulled_verified_and_then_served_from_the_cache(
    published_charts: PublishedCharts, helm_binary: str, tmp_path: Path
) -> None:
    """issue 27: the first pull fetches index.yaml and the archive, checks the pinned digest and keeps the chart
    (with its dependency, carried in charts/) in the cache keyed by version and digest; the second use of the same
    version sends no request at all."""
    remote = _repo_chart(published_charts, "1.0.0", chart_digest=published_charts.digest("portal-1.0.0"))
    before = len(published_charts.repository.requests)
    first = pull_chart(remote, helm_binary, run_command, str(tmp_path))
    fetched = published_charts.repository.requests[before:]
    assert "/index.yaml" in fetched and _archives(fetched) == ["/portal-1.0.0.tgz"]
    assert (first.digest, first.cached) == (published_charts.digest("portal-1.0.0"), False)
    version_dir = tmp_path / remote.cache_name() / "1.0.0"
    entry = version_dir / first.digest.replace(":", "-")
    assert Path(first.path) == entry / "chart"
    assert sha256_file(str(entry / "portal-1.0.0.tgz")) == first.digest
    assert (entry / "chart" / "charts" / "greeter" / "Chart.yaml").is_file()  # helm package stores it unpacked
    assert (version_dir / DIGESTS_FILE).is_file()
    assert not [name for name in os.listdir(version_dir) if name.startswith(".pull-")]  # no work dir left

    before = len(published_charts.repository.requests)
    again = pull_chart(remote, helm_binary, run_command, str(tmp_path))
    assert again == PulledChart(path=first.path, digest=first.digest, cached=True)
    assert published_charts.repository.requests[before:] == []


def test_a_changed_cache_entry_is_pulled_again(
    published_charts: PublishedCharts, helm_binary: str, tmp_path: Path
) -> None:
    """issue 27: the archive's sha256 is checked at every use of the cache; an entry changed on disk is replaced by
    a fresh pull, never rendered."""
    remote = _repo_chart(published_charts, "1.1.0")
    first = pull_chart(remote, helm_binary, run_command, str(tmp_path))
    archive = Path(first.path).parent / "portal-1.1.0.tgz"
    archive.write_bytes(archive.read_bytes() + b"tampered")
    before = len(published_charts.repository.requests)
    again = pull_chart(remote, helm_binary, run_command, str(tmp_path))
    assert _archives(published_charts.repository.requests[before:]) == ["/portal-1.1.0.tgz"]
    assert (again.digest, again.cached) == (published_charts.digest("portal-1.1.0"), False)
    assert sha256_file(str(archive)) == again.digest


def test_a_chart_published_without_its_dependency_gets_it_built(
    published_charts: PublishedCharts, helm_binary: str, tmp_path: Path
) -> None:
    """issue 27: portal 1.2.0's archive lists greeter in Chart.yaml but does not carry it; helm dependency build
    fetches it from the repository the Chart.yaml names, into the cached chart's charts/."""
    remote = _repo_chart(published_charts, BARE_VERSION)
    before = len(published_charts.repository.requests)
    pulled = pull_chart(remote, helm_binary, run_command, str(tmp_path))
    assert _archives(published_charts.repository.requests[before:]) == [
        f"/portal-{BARE_VERSION}.tgz",
        f"/greeter-{GREETER_VERSION}.tgz",
    ]
    assert (Path(pulled.path) / "charts" / f"greeter-{GREETER_VERSION}.tgz").is_file()


def test_oci_chart_is_verified_by_archive_or_manifest_digest(
    published_charts: PublishedCharts, helm_binary: str, tmp_path: Path
) -> None:
    """issue 27: an OCI chart pinned by its archive's sha256 is pulled and cached; the manifest digest helm reports
    pins it as well; a wrong digest fails naming both digests, and leaves no entry in the cache."""
    archive_digest = published_charts.digest("portal-1.0.0")
    oci = f"{published_charts.oci}/portal"
    remote = remote_chart(
        {"chart_ref": oci, "chart_version": "1.0.0", "plain_http": True, "chart_digest": archive_digest}
    )
    assert remote is not None
    pulled = pull_chart(remote, helm_binary, run_command, str(tmp_path / "a"))
    assert pulled.digest == archive_digest and pulled.manifest_digest.startswith("sha256:")
    by_manifest = remote_chart(
        {"chart_ref": oci, "chart_version": "1.0.0", "plain_http": True, "chart_digest": pulled.manifest_digest}
    )
    assert by_manifest is not None
    assert pull_chart(by_manifest, helm_binary, run_command, str(tmp_path / "b")).digest == archive_digest

    wrong = remote_chart(
        {"chart_ref": oci, "chart_version": "1.0.0", "plain_http": True, "chart_digest": "sha256:" + "0" * 64}
    )
    assert wrong is not None
    with pytest.raises(ChartSourceError) as failure:
        pull_chart(wrong, helm_binary, run_command, str(tmp_path / "c"))
    assert str(failure.value).startswith(f"digest mismatch for chart {oci} 1.0.0: helm.chart_digest is sha256:000")
    assert archive_digest in str(failure.value) and pulled.manifest_digest in str(failure.value)
    version_dir = tmp_path / "c" / wrong.cache_name() / "1.0.0"
    assert os.listdir(version_dir) == []
