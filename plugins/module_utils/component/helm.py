# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helm chart sources: ``helm template`` on the controller, its output sorted into typed parts (issue 17).

The chart (a directory or a packaged ``.tgz``) is rendered by the real ``helm`` binary, so templates, subcharts,
``dependencies`` conditions, ``global`` values and library charts behave exactly as with Helm. The result is a
:class:`ChartRender`: the objects of the charts' ``crds/`` directories (not templated, as in Helm), the regular
objects, and the hooks with their kinds, weight and delete policies. ``helm_waves`` turns it into the engine's
object set; this module only renders and checks.

Values, lowest first: the chart's ``values.yaml`` files, the values files in the given order, the component's
``spec`` (C2: passed as it is, never modified; on helm's standard input, never in a file: issue 26). Release name
and namespace are the component's placement (C10).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_ref import REMOTE_OPTIONS
from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import parse_manifests
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import delete_policy, to_kebab

HOOK_ANNOTATION = "helm.sh/hook"
HOOK_WEIGHT_ANNOTATION = "helm.sh/hook-weight"
HOOK_DELETE_POLICY_ANNOTATION = "helm.sh/hook-delete-policy"
RESOURCE_POLICY_ANNOTATION = "helm.sh/resource-policy"

PRE_INSTALL, POST_INSTALL = "pre-install", "post-install"
PRE_UPGRADE, POST_UPGRADE = "pre-upgrade", "post-upgrade"
PRE_DELETE, POST_DELETE = "pre-delete", "post-delete"
SUPPORTED_HOOKS = (PRE_INSTALL, POST_INSTALL, PRE_UPGRADE, POST_UPGRADE, PRE_DELETE, POST_DELETE)
DELETE_PHASE_HOOKS = (PRE_DELETE, POST_DELETE)
TEST_HOOKS = ("test", "test-success")

BEFORE_HOOK_CREATION = "before-hook-creation"
HOOK_SUCCEEDED = "hook-succeeded"
HOOK_FAILED = "hook-failed"
WEIGHT_MIN, WEIGHT_MAX = -100, 100  # the range component-operator-runtime maps into waves (reference 2.3)

DEFAULT_CRDS_DELETE_POLICY = "orphan"  # Helm never deletes the CRDs of crds/; the source may say otherwise
_SOURCE_LINE = re.compile(r"^# Source: (.+?)\s*$", re.MULTILINE)
_DOCUMENT_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)
_CRDS_DIR = re.compile(r"(^|/)crds/")
# helm itself leaves out objects whose hook kinds it does not know, logging this (Helm 4: `msg="skipping unknown
# hooks" hookTypes=crd-install`, Helm 3: `skipping unknown hook: "crd-install"`); a component makes it an error
_UNKNOWN_HOOKS = re.compile(r'skipping unknown hooks?\b(?:.*?hookTypes=("[^"]*"|\S+)|:\s*(.+))?')


class HelmError(RenderError):
    """The chart cannot be rendered or uses something a component cannot do; the message names the object."""


@dataclass(frozen=True)
class HelmSource:
    """A chart source (``source_kind: helm``): paths on the controller, ``helm template``'s options, the CRD policy."""

    chart: str
    values_files: Tuple[str, ...] = ()
    skip_tests: bool = False
    kube_version: str = ""
    api_versions: Tuple[str, ...] = ()
    helm_binary: str = ""
    crds_delete_policy: str = DEFAULT_CRDS_DELETE_POLICY  # read by helm_waves.apply_set


SOURCE_KIND = "helm"  # the value of the module's source_kind
SPEC_VALUES_FROM_STDIN = "-"  # `--values -`: helm reads the spec's values from its standard input (issue 26)
_STRING_OPTIONS = ("kube_version", "helm_binary", "crds_delete_policy")
_LIST_OPTIONS = ("values_files", "api_versions")
# where the chart comes from when it is not a path (chart_ref, ...): checked by chart_ref.remote_chart (issue 27)
HELM_OPTIONS = (*_STRING_OPTIONS, *_LIST_OPTIONS, "skip_tests", *REMOTE_OPTIONS)


def is_chart(path: str) -> bool:
    """A chart directory (with ``Chart.yaml``) or a packaged chart (``.tgz``): what ``source_kind: auto`` detects."""
    if os.path.isdir(path):
        return os.path.isfile(os.path.join(path, "Chart.yaml"))
    return os.path.isfile(path) and path.endswith(".tgz")


def helm_source(chart: str, options: Optional[Mapping[str, Any]] = None) -> HelmSource:
    """Check the module's ``helm`` options (before anything runs) and make a HelmSource of ``chart`` with them.

    ``values_files`` may be one path or a list; paths stay as given (the action plugin resolves them).
    """
    options = options or {}
    unknown = sorted(set(options) - set(HELM_OPTIONS))
    if unknown:
        raise HelmError(f"helm: unknown option(s) {', '.join(unknown)}; known: {', '.join(HELM_OPTIONS)}")
    if not isinstance(chart, str) or not chart:
        raise HelmError("source is required for source_kind helm: the path of a chart directory or a packaged .tgz")
    values: Dict[str, Any] = {"chart": chart}
    for key in _STRING_OPTIONS:
        value = options.get(key)
        if value is not None and not isinstance(value, str):
            raise HelmError(f"helm.{key} must be a string, not {type(value).__name__}")
        if value is not None:
            values[key] = value
    for key in _LIST_OPTIONS:
        value = options.get(key)
        items = [value] if isinstance(value, str) else value
        if items is not None and (not isinstance(items, list) or not all(isinstance(i, str) and i for i in items)):
            raise HelmError(f"helm.{key} must be a list of non-empty strings")
        values[key] = tuple(items or ())
    skip_tests = options.get("skip_tests", False)
    if not isinstance(skip_tests, bool):
        raise HelmError("helm.skip_tests must be true or false")
    canonical_crds_delete_policy(values.get("crds_delete_policy", DEFAULT_CRDS_DELETE_POLICY))
    return HelmSource(skip_tests=skip_tests, **values)


def canonical_crds_delete_policy(value: str) -> str:
    """The kebab-case delete policy for the CRDs of ``crds/`` (C15 spelling rules); "" = the component's policy."""
    try:
        canonical = delete_policy(value)
    except ValidationError as exc:
        raise HelmError(f"helm.crds_delete_policy: {exc}") from None
    return to_kebab(canonical) if canonical else ""


@dataclass(frozen=True)
class Manifest:
    """One rendered object and the chart file it came from (``<chart>/templates/x.yaml``)."""

    obj: Dict[str, Any]
    source: str

    def describe(self) -> str:
        meta = self.obj.get("metadata") or {}
        where = f"{meta['namespace']}/" if meta.get("namespace") else ""
        return f"{self.obj.get('kind')} {where}{meta.get('name')} ({self.source})"


@dataclass(frozen=True)
class Hook(Manifest):
    """A hook object: its hook kinds (``helm.sh/hook``), weight and delete policies."""

    kinds: Tuple[str, ...] = ()
    weight: int = 0
    delete_policies: Tuple[str, ...] = (BEFORE_HOOK_CREATION,)


@dataclass
class ChartRender:
    """What ``helm template`` produced, sorted: ``crds`` (from ``crds/``), regular ``objects`` and ``hooks``."""

    release_name: str
    release_namespace: str
    crds: List[Manifest] = field(default_factory=list)
    objects: List[Manifest] = field(default_factory=list)
    hooks: List[Hook] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (JSON-safe), e.g. to pass from the action plugin to the module."""
        return {
            "release_name": self.release_name,
            "release_namespace": self.release_namespace,
            "crds": [{"obj": m.obj, "source": m.source} for m in self.crds],
            "objects": [{"obj": m.obj, "source": m.source} for m in self.objects],
            "hooks": [
                {
                    "obj": h.obj,
                    "source": h.source,
                    "kinds": list(h.kinds),
                    "weight": h.weight,
                    "delete_policies": list(h.delete_policies),
                }
                for h in self.hooks
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChartRender:
        """The inverse of :meth:`to_dict`."""
        return cls(
            release_name=str(data["release_name"]),
            release_namespace=str(data["release_namespace"]),
            crds=[Manifest(obj=m["obj"], source=m["source"]) for m in data.get("crds") or []],
            objects=[Manifest(obj=m["obj"], source=m["source"]) for m in data.get("objects") or []],
            hooks=[
                Hook(
                    obj=h["obj"],
                    source=h["source"],
                    kinds=tuple(h["kinds"]),
                    weight=int(h["weight"]),
                    delete_policies=tuple(h["delete_policies"]),
                )
                for h in data.get("hooks") or []
            ],
        )


def find_helm(explicit: str = "") -> str:
    """The helm binary: ``explicit`` when given, else ``helm`` on the PATH; a clear error says how to get one."""
    if explicit:
        path = os.path.expanduser(explicit)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise HelmError(f"helm.helm_binary {explicit} is not an executable file")
        return path
    found = shutil.which("helm")
    if found:
        return found
    raise HelmError(
        "the source is a Helm chart but there is no helm binary on the PATH of the controller; install Helm 3.8 or "
        "later (https://helm.sh/docs/intro/install/), or give its path as helm.helm_binary "
        "(in this repository, tests/cluster/build --helm builds the pinned version and prints its path)"
    )


def helm_template_argv(helm: str, source: HelmSource, release_name: str, release_namespace: str) -> List[str]:
    """``helm template`` with CRDs included; the spec's values come last, on stdin (``--values -``, which helm 3
    and 4 read from standard input), so they win over the values files and never go to a file (issue 26)."""
    argv = [helm, "template", release_name, source.chart, "--namespace", release_namespace, "--include-crds"]
    for path in (*source.values_files, SPEC_VALUES_FROM_STDIN):
        argv += ["--values", path]
    if source.skip_tests:
        argv.append("--skip-tests")
    if source.kube_version:
        argv += ["--kube-version", source.kube_version]
    for api_version in source.api_versions:
        argv += ["--api-versions", api_version]
    return argv


def _check_paths(source: HelmSource) -> None:
    chart = source.chart
    if not os.path.exists(chart):
        raise HelmError(f"chart {chart} does not exist; give a chart directory (with Chart.yaml) or a packaged .tgz")
    if os.path.isdir(chart) and not os.path.isfile(os.path.join(chart, "Chart.yaml")):
        raise HelmError(f"chart directory {chart} has no Chart.yaml")
    for path in source.values_files:
        if not os.path.isfile(path):
            raise HelmError(f"values file {path} does not exist")


def _run_helm(argv: Sequence[str], home: str, run_command: CommandRunner, values: str) -> str:
    # helm's own configuration, caches and repositories of the user must not change what a chart renders to
    isolated = {
        "HELM_CACHE_HOME": os.path.join(home, "cache"),
        "HELM_CONFIG_HOME": os.path.join(home, "config"),
        "HELM_DATA_HOME": os.path.join(home, "data"),
        "HELM_PLUGINS": os.path.join(home, "plugins"),
    }
    returncode, stdout, stderr = run_command(list(argv), isolated, stdin=values)
    if returncode != 0:
        message = stderr.strip().replace(home, "<tmp>") or f"exit code {returncode}"
        raise HelmError(f"helm template failed: {message}")
    unknown = [(m.group(1) or m.group(2) or "?").strip('" ') for m in _UNKNOWN_HOOKS.finditer(stderr)]
    if unknown:
        raise HelmError(
            f"the chart has objects whose {HOOK_ANNOTATION} names hook kinds helm does not know "
            f"({', '.join(unknown)}), which helm leaves out; a component runs the hooks "
            f"{', '.join(SUPPORTED_HOOKS)}: fix the annotation or remove the object"
        )
    return stdout


def render_chart(
    source: HelmSource,
    release_name: str,
    release_namespace: str,
    spec: Optional[Mapping[str, Any]],
    run_command: CommandRunner,
) -> ChartRender:
    """Render ``source`` as release ``release_namespace/release_name`` (C10) with ``spec`` as values (C2)."""
    _check_paths(source)
    helm = find_helm(source.helm_binary)
    # the spec may hold secrets: helm reads it from a pipe, never from a file (issue 26); the directory holds only
    # helm's own (empty) configuration and caches
    values = json.dumps(dict(spec or {}))
    with tempfile.TemporaryDirectory(prefix="nubes-helm-") as home:
        argv = helm_template_argv(helm, source, release_name, release_namespace)
        output = _run_helm(argv, home, run_command, values)
    return sort_output(output, release_name, release_namespace)


def sort_output(output: str, release_name: str, release_namespace: str) -> ChartRender:
    """Split ``helm template`` output into CRDs of ``crds/``, regular objects and hooks (checked)."""
    result = ChartRender(release_name=release_name, release_namespace=release_namespace)
    source = "helm template output"
    for chunk in _DOCUMENT_SEPARATOR.split(output):
        match = _SOURCE_LINE.search(chunk)
        if match:
            source = match.group(1)  # a document without its own line continues the file before (crds/ files)
        for obj in parse_manifests(chunk, f"chart file {source}"):
            _classify(result, obj, source)
    return result


def _classify(result: ChartRender, obj: Dict[str, Any], source: str) -> None:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    from_crds_dir = "/templates/" not in f"/{source}" and _CRDS_DIR.search(source) is not None
    if from_crds_dir:
        result.crds.append(Manifest(obj=obj, source=source))
    elif HOOK_ANNOTATION in annotations:
        result.hooks.append(_hook(obj, source, annotations))
    else:
        result.objects.append(Manifest(obj=obj, source=source))


def _hook(obj: Dict[str, Any], source: str, annotations: Mapping[str, Any]) -> Hook:
    """Parse and check the hook annotations; anything a component cannot run is an error naming the object."""
    where = Manifest(obj=obj, source=source).describe()
    kinds = tuple(k.strip() for k in str(annotations[HOOK_ANNOTATION]).split(",") if k.strip())
    if not kinds:
        raise HelmError(f"{where}: empty {HOOK_ANNOTATION} annotation; name the hook, e.g. pre-install")
    for kind in kinds:
        if kind in TEST_HOOKS:
            raise HelmError(
                f"{where}: hook '{kind}' is not supported: Helm runs test hooks only with `helm test`, which a "
                "component does not do; set helm.skip_tests: true to leave them out (helm template --skip-tests)"
            )
        if kind not in SUPPORTED_HOOKS:
            raise HelmError(
                f"{where}: hook '{kind}' is not supported; a component runs the hooks {', '.join(SUPPORTED_HOOKS)} "
                "(there is no rollback: apply the previous values instead)"
            )
    raw_weight = str(annotations.get(HOOK_WEIGHT_ANNOTATION, "0")).strip() or "0"
    try:
        weight = int(raw_weight)
    except ValueError:
        raise HelmError(f"{where}: {HOOK_WEIGHT_ANNOTATION} {raw_weight!r} is not an integer") from None
    if not WEIGHT_MIN <= weight <= WEIGHT_MAX:
        raise HelmError(
            f"{where}: {HOOK_WEIGHT_ANNOTATION} {weight} is out of range; a component maps weights "
            f"{WEIGHT_MIN}..{WEIGHT_MAX} into its apply waves"
        )
    raw_policies = str(annotations.get(HOOK_DELETE_POLICY_ANNOTATION, ""))
    policies = tuple(p.strip() for p in raw_policies.split(",") if p.strip()) or (BEFORE_HOOK_CREATION,)
    for policy in policies:
        if policy == HOOK_FAILED:
            raise HelmError(
                f"{where}: {HOOK_DELETE_POLICY_ANNOTATION} '{HOOK_FAILED}' is not supported: a component keeps a "
                f"failed hook for inspection; use '{HOOK_SUCCEEDED}' and/or '{BEFORE_HOOK_CREATION}'"
            )
        if policy not in (BEFORE_HOOK_CREATION, HOOK_SUCCEEDED):
            raise HelmError(
                f"{where}: unknown {HOOK_DELETE_POLICY_ANNOTATION} '{policy}'; use '{BEFORE_HOOK_CREATION}' and/or "
                f"'{HOOK_SUCCEEDED}'"
            )
    return Hook(obj=obj, source=source, kinds=kinds, weight=weight, delete_policies=policies)
