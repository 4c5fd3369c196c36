"""The test charts published as a user finds charts (issue 27): a chart repository served on 127.0.0.1 (a directory
with the packaged charts and the index.yaml of `helm repo index`, served by Python's http.server) and the local OCI
registry (`tests/cluster/registry.py`), both filled at test time by the real helm.

| chart | repository | OCI registry | what it is |
|---|---|---|---|
| greeter 0.3.0 | yes | yes | the dependency |
| portal 1.0.0, 1.1.0 | yes | yes | depends on greeter, packaged with `--dependency-update` (from the repository) |
| portal 1.2.0 | yes | no | published without its dependency in `charts/` (a tarball, as some release tools make) |

The chart repository records every path it serves (``requests``), so a test can tell a pull from a cache hit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import threading
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

CHARTS = Path(__file__).resolve().parent
PORTAL_VERSIONS = ("1.0.0", "1.1.0")
BARE_VERSION = "1.2.0"  # in the repository without its dependency in charts/
GREETER_VERSION = "0.3.0"
HELM_TIMEOUT_SECONDS = 120


class _RecordingHandler(SimpleHTTPRequestHandler):
    """Serves the repository directory and records each request's path; no log lines on stderr."""

    def __init__(self, *args: Any, requests: List[str], **kwargs: Any) -> None:
        self._requests = requests
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        self._requests.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


@dataclass
class ChartRepository:
    """A chart repository served over HTTP on 127.0.0.1 from ``directory``."""

    directory: Path
    requests: List[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        handler = partial(_RecordingHandler, directory=str(self.directory), requests=self.requests)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


@dataclass
class PublishedCharts:
    """Where the test charts are: the repository's URL, the registry path, and each archive's sha256 digest."""

    repository: ChartRepository
    oci: str  # oci://127.0.0.1:<port>/charts
    archives: Dict[str, Path]  # "portal-1.0.0" -> the packaged chart

    @property
    def repo_url(self) -> str:
        return self.repository.url

    def digest(self, name: str) -> str:
        """``sha256:<hex>`` of the archive ``name`` (e.g. ``portal-1.0.0``), as index.yaml's ``digest`` has it."""
        return "sha256:" + hashlib.sha256(self.archives[name].read_bytes()).hexdigest()


def helm_run(helm: str, home: Path, *args: str) -> str:
    """Run helm with its homes in ``home`` (the user's repositories and caches stay out); its stdout."""
    env = dict(os.environ)
    env.update({f"HELM_{part}_HOME": str(home / part.lower()) for part in ("CACHE", "CONFIG", "DATA")})
    proc = subprocess.run(
        [helm, *args], capture_output=True, text=True, env=env, timeout=HELM_TIMEOUT_SECONDS, check=False
    )
    if proc.returncode != 0:
        raise AssertionError(f"helm {' '.join(args)} failed (exit {proc.returncode}): {proc.stderr}{proc.stdout}")
    return proc.stdout + proc.stderr


def _point_dependency(chart: Path, repository: str) -> None:
    """Let the chart's greeter dependency come from ``repository`` (instead of file://../greeter)."""
    chart_yaml = chart / "Chart.yaml"
    text = chart_yaml.read_text(encoding="utf-8")
    changed = text.replace("repository: file://../greeter", f"repository: {repository}")
    assert changed != text, "tests/charts/portal/Chart.yaml no longer names file://../greeter"
    chart_yaml.write_text(changed, encoding="utf-8")


def _bare_archive(portal: Path, target: Path, version: str) -> None:
    """portal at ``version`` packaged by tar, without charts/ or Chart.lock: the dependency is not carried."""
    staging = target.parent / f".bare-{version}" / "portal"
    shutil.copytree(portal, staging, ignore=shutil.ignore_patterns("charts", "Chart.lock"))
    chart_yaml = staging / "Chart.yaml"
    chart_yaml.write_text(
        chart_yaml.read_text(encoding="utf-8").replace("version: 1.0.0", f"version: {version}", 1), encoding="utf-8"
    )
    with tarfile.open(target, "w:gz") as tar:
        tar.add(staging, arcname="portal")
    shutil.rmtree(staging.parent)


def publish(helm: str, workdir: Path, registry: str) -> PublishedCharts:
    """Package the test charts, serve them from a chart repository and push them to ``registry`` (host:port)."""
    home, src, repo = workdir / "helm-home", workdir / "src", workdir / "repo"
    for path in (home, src, repo):
        path.mkdir(parents=True)
    for name in ("greeter", "portal"):
        shutil.copytree(CHARTS / name, src / name)
    repository = ChartRepository(repo)
    try:
        helm_run(helm, home, "package", str(src / "greeter"), "--destination", str(repo))
        helm_run(helm, home, "repo", "index", str(repo), "--url", repository.url)
        _point_dependency(src / "portal", repository.url)
        for version in PORTAL_VERSIONS:  # greeter is fetched from the repository and carried in charts/
            helm_run(
                helm,
                home,
                "package",
                str(src / "portal"),
                "--version",
                version,
                "--dependency-update",
                "--destination",
                str(repo),
            )
        _bare_archive(src / "portal", repo / f"portal-{BARE_VERSION}.tgz", BARE_VERSION)
        helm_run(helm, home, "repo", "index", str(repo), "--url", repository.url)
        oci = f"oci://{registry}/charts"
        for name in (f"greeter-{GREETER_VERSION}", *(f"portal-{v}" for v in PORTAL_VERSIONS)):
            helm_run(helm, home, "push", str(repo / f"{name}.tgz"), oci, "--plain-http")
    except BaseException:
        repository.stop()
        raise
    archives = {path.name[: -len(".tgz")]: path for path in repo.glob("*.tgz")}
    return PublishedCharts(repository=repository, oci=oci, archives=archives)


@pytest.fixture(scope="session")
def published_charts(
    helm_binary: str, oci_registry: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PublishedCharts]:
    """The test charts in a chart repository on 127.0.0.1 and in the local OCI registry (one per pytest process)."""
    charts = publish(helm_binary, tmp_path_factory.mktemp("published-charts"), oci_registry)
    try:
        yield charts
    finally:
        charts.repository.stop()
