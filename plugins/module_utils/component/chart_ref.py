# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a Helm chart comes from when it is not a path on the controller (issue 27): the ``helm`` options that name
a chart in a chart repository or an OCI registry, checked before anything runs.

The option names are kubernetes.core.helm's (``chart_ref``, ``chart_repo_url``, ``chart_version``, ``plain_http``)
plus ``chart_digest`` (Flux's OCIRepository pins a digest the same way):

| options | the chart |
|---|---|
| ``chart_ref: portal``, ``chart_repo_url: https://charts.example.com`` | ``portal`` of the repository's index.yaml |
| ``chart_ref: oci://registry.example.com/charts/portal`` | the OCI artifact ``charts/portal`` of the registry |
| ``chart_ref: portal``, ``chart_repo_url: oci://registry.example.com/charts`` | the same (Flux: type oci) |

``chart_version`` is required and exact (``1.2.3``, not a range): it keys the cache and makes runs repeatable.
``chart_digest`` (``sha256:<64 hex>``) is the chart archive's digest (the ``digest`` of its ``index.yaml`` entry,
``sha256sum`` of the ``.tgz``) or, for an OCI chart, also its manifest digest (what ``helm push`` prints).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import SourceError

REMOTE_STRING_OPTIONS = ("chart_ref", "chart_repo_url", "chart_version", "chart_digest")
REMOTE_OPTIONS = (*REMOTE_STRING_OPTIONS, "plain_http")
OCI_SCHEME = "oci://"
HTTP_SCHEMES = ("https://", "http://")
REPO, OCI = "repository", "oci"

_EXACT_VERSION = re.compile(r"^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_CHART_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_OCI_PATH = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)+$")


class ChartSourceError(SourceError):
    """A chart cannot be pulled (wrong options, unreachable repository, missing version, digest mismatch); raised
    before anything is rendered or applied."""


@dataclass(frozen=True)
class RemoteChart:
    """A chart in a repository (``kind`` REPO: ``repo_url`` + ``chart``) or an OCI registry (``kind`` OCI:
    ``oci_ref``), at ``version``, optionally pinned to ``digest``."""

    kind: str
    chart: str
    version: str
    repo_url: str = ""
    oci_ref: str = ""
    digest: str = ""
    plain_http: bool = False

    @property
    def location(self) -> str:
        """The repository URL or the OCI reference, as given (normalised: no trailing slash)."""
        return self.oci_ref if self.kind == OCI else self.repo_url

    def describe(self) -> str:
        """``chart portal 1.0.0 of https://charts.example.com`` or ``chart oci://host/charts/portal 1.0.0``."""
        if self.kind == OCI:
            return f"chart {self.oci_ref} {self.version}"
        return f"chart {self.chart} {self.version} of {self.repo_url}"

    def cache_name(self) -> str:
        """The cache directory of this chart and location: its name and a hash of where it comes from (two
        repositories may serve different charts under one name)."""
        where = hashlib.sha256(f"{self.kind} {self.location} {self.chart}".encode()).hexdigest()[:16]
        return f"{self.chart}-{where}"


def _string(options: Mapping[str, Any], key: str) -> str:
    value = options.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ChartSourceError(f"helm.{key} must be a string, not {type(value).__name__}")
    return value.strip()


def remote_chart(options: Optional[Mapping[str, Any]], source: Optional[str] = None) -> Optional[RemoteChart]:
    """The chart named by the ``helm`` options, or None when they name none (the chart is ``source``).

    Every mistake fails here, naming the option and what to give instead, before anything is pulled or applied.
    """
    options = options or {}
    values = {key: _string(options, key) for key in REMOTE_STRING_OPTIONS}
    plain_http = options.get("plain_http")
    if plain_http is not None and not isinstance(plain_http, bool):
        raise ChartSourceError("helm.plain_http must be true or false")
    ref = values["chart_ref"]
    if not ref:
        given = [key for key in REMOTE_STRING_OPTIONS if values[key]] + (["plain_http"] if plain_http else [])
        if given:
            raise ChartSourceError(
                f"helm.{given[0]} needs helm.chart_ref: the chart's name in helm.chart_repo_url, or an oci:// reference"
            )
        return None
    if source:
        raise ChartSourceError(
            "source and helm.chart_ref are alternatives: source is a chart on the controller, helm.chart_ref a chart "
            "in a repository or an OCI registry; give one"
        )
    version = values["chart_version"]
    if not version:
        raise ChartSourceError(
            f"helm.chart_version is required with helm.chart_ref {ref}: the exact version to install, e.g. 1.2.3"
        )
    if not _EXACT_VERSION.match(version):
        raise ChartSourceError(
            f"helm.chart_version {version!r} is not an exact version; give one such as 1.2.3 (a range would not pin "
            "what is installed)"
        )
    digest = values["chart_digest"].lower()
    if digest and not _DIGEST.match(digest):
        raise ChartSourceError(
            f"helm.chart_digest {values['chart_digest']!r} is not a digest; give sha256: and 64 hex digits, e.g. the "
            "digest of the chart's entry in the repository's index.yaml"
        )
    repo_url = values["chart_repo_url"].rstrip("/")
    if ref.startswith(OCI_SCHEME):
        if repo_url:
            raise ChartSourceError(
                f"helm.chart_ref {ref} is a full oci:// reference; leave out helm.chart_repo_url, or give the "
                "registry path there and only the chart's name as helm.chart_ref"
            )
        return _oci(ref, version, digest, bool(plain_http))
    if not _CHART_NAME.match(ref):
        raise ChartSourceError(
            f"helm.chart_ref {ref!r} is not a chart name; give the chart's name in helm.chart_repo_url, or an "
            "oci:// reference (a chart directory or .tgz on the controller goes in source)"
        )
    if not repo_url:
        raise ChartSourceError(
            f"helm.chart_ref {ref} needs helm.chart_repo_url (an https:// chart repository or an oci:// registry "
            "path), or give an oci:// reference as helm.chart_ref; a chart on the controller goes in source"
        )
    if repo_url.startswith(OCI_SCHEME):
        return _oci(f"{repo_url}/{ref}", version, digest, bool(plain_http))
    if not repo_url.startswith(HTTP_SCHEMES):
        raise ChartSourceError(
            f"helm.chart_repo_url {repo_url!r} is neither an https:// (or http://) chart repository nor an oci:// "
            "registry path"
        )
    if plain_http:
        raise ChartSourceError("helm.plain_http is for OCI registries; a chart repository's URL says http:// itself")
    return RemoteChart(kind=REPO, chart=ref, version=version, repo_url=repo_url, digest=digest)


def _oci(ref: str, version: str, digest: str, plain_http: bool) -> RemoteChart:
    path = ref[len(OCI_SCHEME) :].rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if "@" in path or ":" in last:
        raise ChartSourceError(
            f"oci reference {ref} names a tag or digest; give the reference without it and the version as "
            "helm.chart_version (and a digest as helm.chart_digest)"
        )
    if not _OCI_PATH.match(path):
        raise ChartSourceError(
            f"oci reference {ref} is not a registry host followed by a repository path, e.g. "
            "oci://registry.example.com/charts/portal"
        )
    return RemoteChart(
        kind=OCI, chart=last, version=version, oci_ref=f"{OCI_SCHEME}{path}", digest=digest, plain_http=plain_http
    )
