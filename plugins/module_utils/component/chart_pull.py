# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pull a chart of a repository or an OCI registry into the controller's chart cache (issue 27).

``helm pull`` fetches the packaged chart (the real helm: repository indexes, OCI registries, ``helm registry login``
credentials behave as with Helm). The archive's sha256 is computed here and compared with ``helm.chart_digest``
when one is given (for an OCI chart the manifest digest helm reports counts too). The archive is unpacked (only
files and directories, nothing outside it) and the dependencies that it does not carry in ``charts/`` are fetched
with ``helm dependency build``. Only then is the entry moved into the cache, in one rename, so a failed or
interrupted pull never leaves a half entry, and two runs pulling the same chart at once both end with a whole one.

Cache (``$NUBES_CHART_CACHE``, default ``~/.cache/nubes-cloud/charts``; ``$XDG_CACHE_HOME`` is honoured)::

    <cache>/<chart>-<hash of where it comes from>/<version>/
        digests.json                       the digests of the last pull of this version
        sha256-<archive digest>/<chart>-<version>.tgz, chart/  (unpacked, dependencies built)

A version is pulled once; later runs use the cached entry after checking the archive's sha256 again (a changed or
damaged entry is pulled anew). With ``helm.chart_digest`` the entry must have that digest, else the chart is pulled
again and verified.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Type

from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_ref import (
    OCI,
    ChartSourceError,
    RemoteChart,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import load

try:
    from yaml import YAMLError

    YAML_ERRORS: Tuple[Type[BaseException], ...] = (YAMLError,)
except ImportError:  # pragma: no cover - ansible-core depends on PyYAML
    YAML_ERRORS = ()
_UNREADABLE: Tuple[Type[BaseException], ...] = (OSError, ValueError, *YAML_ERRORS)

CACHE_ENV = "NUBES_CHART_CACHE"
DIGESTS_FILE = "digests.json"
CHART_DIR = "chart"
_HELM_DIGEST_LINE = re.compile(r"^Digest:\s*(sha256:[0-9a-f]{64})\s*$", re.MULTILINE)
_PACKAGED_NAME = re.compile(r"^(.+?)-v?[0-9]+\.[0-9]+\.[0-9]+.*\.tgz$")
_PLAIN_HTTP_ANSWER = re.compile(r"server gave HTTP response to HTTPS client", re.IGNORECASE)
_UNREACHABLE = re.compile(
    r"connection refused|no such host|dial tcp|i/o timeout|cannot be reached|network is unreachable|"
    r"server misbehaving|TLS handshake|deadline exceeded|connection reset",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(r"not found|manifest unknown|name unknown|\b404\b", re.IGNORECASE)


@dataclass(frozen=True)
class PulledChart:
    """A chart ready to render: its directory in the cache, the archive's digest (and an OCI chart's manifest
    digest), and whether it came from the cache without a pull."""

    path: str
    digest: str
    manifest_digest: str = ""
    cached: bool = False

    def to_result(self, remote: RemoteChart) -> Dict[str, Any]:
        """What the task returns as ``chart``: enough to pin the chart (``helm.chart_digest``)."""
        result: Dict[str, Any] = {
            "ref": remote.chart if remote.kind != OCI else remote.oci_ref,
            "version": remote.version,
            "digest": self.digest,
            "cached": self.cached,
        }
        if remote.kind != OCI:
            result["repo_url"] = remote.repo_url
        if self.manifest_digest:
            result["manifest_digest"] = self.manifest_digest
        return result


def cache_root(environ: Optional[Mapping[str, str]] = None) -> str:
    """``$NUBES_CHART_CACHE``, else ``$XDG_CACHE_HOME/nubes-cloud/charts``, else ``~/.cache/nubes-cloud/charts``."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV):
        return os.path.expanduser(env[CACHE_ENV])
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "nubes-cloud", "charts")


def sha256_file(path: str) -> str:
    """``sha256:<hex>`` of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def pull_chart(remote: RemoteChart, helm: str, run_command: CommandRunner, root: str = "") -> PulledChart:
    """The chart of ``remote`` in the cache: the cached entry when it is whole (and has ``remote.digest``), else
    pulled, verified and with its dependencies built. Every failure is a ChartSourceError naming the chart."""
    version_dir = os.path.join(root or cache_root(), remote.cache_name(), remote.version)
    cached = _cached(remote, version_dir)
    if cached is not None:
        return cached
    try:
        os.makedirs(version_dir, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".pull-", dir=version_dir)
    except OSError as exc:
        raise ChartSourceError(
            f"cannot write the chart cache {version_dir}: {exc.strerror}; set {CACHE_ENV} to a writable directory"
        ) from None
    try:
        return _pull(remote, helm, run_command, version_dir, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _entry_name(digest: str) -> str:
    return digest.replace(":", "-")


def _archive_name(remote: RemoteChart) -> str:
    return f"{remote.chart}-{remote.version}.tgz"


def _read_digests(version_dir: str) -> Dict[str, str]:
    try:
        with open(os.path.join(version_dir, DIGESTS_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_digests(version_dir: str, archive: str, manifest: str) -> None:
    data = {"archive": archive, **({"manifest": manifest} if manifest else {})}
    descriptor, temporary = tempfile.mkstemp(prefix=".digests-", dir=version_dir)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temporary, os.path.join(version_dir, DIGESTS_FILE))


def _cached(remote: RemoteChart, version_dir: str) -> Optional[PulledChart]:
    recorded = _read_digests(version_dir)
    archive, manifest = recorded.get("archive", ""), recorded.get("manifest", "")
    if not archive or (remote.digest and remote.digest not in (archive, manifest)):
        return None
    entry = os.path.join(version_dir, _entry_name(archive))
    tgz, chart = os.path.join(entry, _archive_name(remote)), os.path.join(entry, CHART_DIR)
    if not (os.path.isfile(tgz) and os.path.isfile(os.path.join(chart, "Chart.yaml"))):
        return None
    if sha256_file(tgz) != archive:  # changed or damaged on disk: pulled anew
        shutil.rmtree(entry, ignore_errors=True)
        return None
    return PulledChart(path=chart, digest=archive, manifest_digest=manifest, cached=True)


def helm_environment(work: str, environ: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """helm's own homes in ``work`` (the user's repositories and caches do not change what is pulled); the user's
    registry login (``helm registry login``) is kept, so private OCI registries work."""
    env = os.environ if environ is None else environ
    isolated = {
        "HELM_CACHE_HOME": os.path.join(work, "helm", "cache"),
        "HELM_CONFIG_HOME": os.path.join(work, "helm", "config"),
        "HELM_DATA_HOME": os.path.join(work, "helm", "data"),
        "HELM_PLUGINS": os.path.join(work, "helm", "plugins"),
    }
    config_home = env.get("HELM_CONFIG_HOME") or os.path.join(
        env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config"), "helm"
    )
    registry_config = env.get("HELM_REGISTRY_CONFIG") or os.path.join(config_home, "registry", "config.json")
    if os.path.isfile(registry_config):
        isolated["HELM_REGISTRY_CONFIG"] = registry_config
    return isolated


def pull_argv(helm: str, remote: RemoteChart, destination: str) -> List[str]:
    """``helm pull`` of the chart at its exact version into ``destination``."""
    if remote.kind == OCI:
        argv = [helm, "pull", remote.oci_ref, "--version", remote.version, "--destination", destination]
        return argv + (["--plain-http"] if remote.plain_http else [])
    return [
        helm,
        "pull",
        remote.chart,
        "--repo",
        remote.repo_url,
        "--version",
        remote.version,
        "--destination",
        destination,
    ]


def _helm_message(output: str, work: str) -> str:
    lines = [line.strip() for line in output.replace(work, "<tmp>").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")] or lines[-1:]
    return (" ".join(errors) or "no output").replace("Error: ", "", 1)


def pull_failure(remote: RemoteChart, output: str, work: str = "") -> str:
    """A clear message for a failed ``helm pull``: what was pulled, from where, helm's words, what to check."""
    helm_says = _helm_message(output, work) if work else _helm_message(output, "\0")
    where = remote.oci_ref.rsplit("/", 1)[0] if remote.kind == OCI else remote.repo_url
    if _PLAIN_HTTP_ANSWER.search(output):
        return (
            f"cannot pull {remote.describe()}: the registry answers over plain HTTP ({helm_says}); set "
            "helm.plain_http: true for a registry without TLS. Nothing was applied"
        )
    if _UNREACHABLE.search(output):
        option = "the oci:// reference" if remote.kind == OCI else "helm.chart_repo_url"
        return (
            f"cannot pull {remote.describe()}: the {'registry' if remote.kind == OCI else 'chart repository'} "
            f"{where} cannot be reached ({helm_says}); check {option} and that the controller can reach it. "
            "Nothing was applied"
        )
    if _NOT_FOUND.search(output):
        return (
            f"cannot pull {remote.describe()}: {where} has no chart {remote.chart} at version {remote.version} "
            f"({helm_says}); check helm.chart_ref and helm.chart_version. Nothing was applied"
        )
    return f"cannot pull {remote.describe()}: {helm_says}. Nothing was applied"


def _pull(remote: RemoteChart, helm: str, run_command: CommandRunner, version_dir: str, work: str) -> PulledChart:
    download = os.path.join(work, "download")
    os.mkdir(download)
    env = helm_environment(work)
    returncode, stdout, stderr = run_command(pull_argv(helm, remote, download), env)
    if returncode != 0:
        raise ChartSourceError(pull_failure(remote, f"{stderr}\n{stdout}", work))
    archives = sorted(name for name in os.listdir(download) if name.endswith(".tgz"))
    if len(archives) != 1:
        raise ChartSourceError(f"helm pull of {remote.describe()} gave {archives or 'no chart archive'}; expected one")
    archive = sha256_file(os.path.join(download, archives[0]))
    manifest = ""
    if remote.kind == OCI:
        found = _HELM_DIGEST_LINE.search(f"{stdout}\n{stderr}")
        manifest = found.group(1) if found else ""
    if remote.digest and remote.digest not in (archive, manifest):
        pulled = f"the chart archive's digest is {archive}" + (f" (its OCI manifest's {manifest})" if manifest else "")
        raise ChartSourceError(
            f"digest mismatch for {remote.describe()}: helm.chart_digest is {remote.digest}, but {pulled}; the chart "
            "published under this version is not the one pinned, or the digest is wrong. Nothing was applied"
        )
    entry = os.path.join(work, "entry")
    os.mkdir(entry)
    tgz = os.path.join(entry, _archive_name(remote))
    os.rename(os.path.join(download, archives[0]), tgz)
    chart = os.path.join(entry, CHART_DIR)
    unpack(tgz, chart, remote)
    build_dependencies(chart, remote, helm, run_command, env, work)
    final = os.path.join(version_dir, _entry_name(archive))
    try:
        os.rename(entry, final)
    except OSError:
        if not os.path.isfile(os.path.join(final, CHART_DIR, "Chart.yaml")):
            shutil.rmtree(final, ignore_errors=True)  # a damaged entry of the same digest: replaced
            os.rename(entry, final)
        # else another run cached the same archive meanwhile: theirs is used
    _write_digests(version_dir, archive, manifest)
    return PulledChart(path=os.path.join(final, CHART_DIR), digest=archive, manifest_digest=manifest)


def unpack(archive: str, target: str, remote: RemoteChart) -> None:
    """Unpack a packaged chart (one top directory with ``Chart.yaml``) into ``target``; a member that is not a
    plain file or directory, or that would land outside, fails (nothing is written outside ``target``)."""
    staging = f"{target}.unpack"
    os.mkdir(staging)
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = tar.getmembers()
            for member in members:
                parts = member.name.split("/")
                if member.name.startswith("/") or ".." in parts or not (member.isfile() or member.isdir()):
                    raise ChartSourceError(
                        f"{remote.describe()}: the chart archive holds {member.name!r}, which is not a file or "
                        "directory inside the chart; not unpacked. Nothing was applied"
                    )
            extra: Dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(staging, members=members, **extra)  # every member checked above
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ChartSourceError(f"{remote.describe()}: the pulled file is not a packaged chart ({exc})") from None
    tops = os.listdir(staging)
    if len(tops) != 1 or not os.path.isfile(os.path.join(staging, tops[0], "Chart.yaml")):
        raise ChartSourceError(f"{remote.describe()}: the pulled archive has no chart directory with a Chart.yaml")
    os.rename(os.path.join(staging, tops[0]), target)
    os.rmdir(staging)


def _chart_metadata(chart: str) -> Dict[str, Any]:
    """Chart.yaml as a mapping; {} when it cannot be read (helm names the problem when it renders the chart)."""
    try:
        with open(os.path.join(chart, "Chart.yaml"), encoding="utf-8") as handle:
            data = load(handle.read())
    except _UNREADABLE:
        return {}
    return data if isinstance(data, dict) else {}


def missing_dependencies(chart: str) -> List[str]:
    """Names of the ``dependencies`` of Chart.yaml that ``charts/`` does not hold (a directory or a ``.tgz``)."""
    present = set()
    charts = os.path.join(chart, "charts")
    for name in sorted(os.listdir(charts)) if os.path.isdir(charts) else []:
        full = os.path.join(charts, name)
        if os.path.isdir(full):
            present.add(str(_chart_metadata(full).get("name") or name))
        else:
            packaged = _PACKAGED_NAME.match(name)
            if packaged:
                present.add(packaged.group(1))
    wanted = [d for d in _chart_metadata(chart).get("dependencies") or [] if isinstance(d, dict) and d.get("name")]
    return [str(d["name"]) for d in wanted if str(d["name"]) not in present]


def build_dependencies(
    chart: str,
    remote: RemoteChart,
    helm: str,
    run_command: CommandRunner,
    env: Mapping[str, str],
    work: str,
) -> Tuple[str, ...]:
    """``helm dependency build`` when the archive does not carry every dependency; the names it fetched."""
    missing = missing_dependencies(chart)
    if not missing:
        return ()
    # helm fetches from the repositories Chart.yaml names, configured or not ("unmanaged" repositories)
    argv = [helm, "dependency", "build", chart] + (["--plain-http"] if remote.plain_http else [])
    returncode, stdout, stderr = run_command(argv, env)
    still = missing_dependencies(chart) if returncode == 0 else missing
    if still:
        helm_says = _helm_message(f"{stderr}\n{stdout}", work)
        raise ChartSourceError(
            f"cannot fetch the dependencies {', '.join(still)} of {remote.describe()} (its archive does not carry "
            f"them in charts/; helm: {helm_says}); check the dependencies' repositories in its "
            "Chart.yaml. Nothing was applied"
        )
    return tuple(missing)
