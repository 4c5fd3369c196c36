# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Component sources: what a ``source`` path holds, how it is read where it lives, and how it becomes objects.

Kinds (``source_kind``), as component-operator-runtime keeps its generators apart:

| kind | read where the files are (the controller) | rendered in the module |
|---|---|---|
| ``helm`` | ``helm template`` (values: the spec, release: the placement) | hooks become waves (``helm_waves``) |
| ``kustomize`` | built in place (``../base`` resolves) | the built YAML, parsed: never templated |
| ``manifests`` | every ``.yaml``/``.yml``/``.json`` file | parsed as they are: never templated |
| ``templates`` | every file | Jinja2 (opt-in), then kustomize when a kustomization is among them |

``auto`` picks ``helm`` for a chart directory (``Chart.yaml``) or a packaged ``.tgz``, ``kustomize`` for a
directory with a ``kustomization.yaml``, else ``manifests``; never ``templates``: a source with a
``.component-config.yaml`` or ``*.j2`` files fails and asks for ``source_kind: templates``.

A Helm chart travels from the controller to the module as one file, ``helm-render.json`` (the typed render,
``helm.ChartRender``); the module turns it into the apply set for the component's revision (install or upgrade
hooks) and the sets of the delete phase, which the record keeps for ``state: absent``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.component import helm, helm_waves
from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError, SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.kustomize import build_in_place, has_kustomization
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import parse_manifests
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import (
    CONFIG_FILE,
    MANIFEST_SUFFIXES,
    RenderInput,
    render_files,
)

MAX_SOURCE_BYTES = 64 * 1024 * 1024
KUSTOMIZE_OUTPUT = "kustomize-build.yaml"
HELM_RENDER = "helm-render.json"
AUTO = "auto"
DELETE_PHASES = helm.DELETE_PHASE_HOOKS  # pre-delete, post-delete

Objects = List[Dict[str, Any]]


def _no_commands(
    argv: List[str], environ_update: Optional[Mapping[str, str]] = None, stdin: Optional[str] = None
) -> Tuple[int, str, str]:
    del environ_update, stdin
    raise SourceError(f"cannot run {argv[0]} here: reading this source needs a command runner")


@dataclass(frozen=True)
class ReadInput:
    """What reading a source needs besides its path: a command runner (kustomize, helm) and, for a Helm chart, the
    values (the spec, C2), the release (the placement, C10) and the module's ``helm`` options (paths resolved)."""

    run_command: CommandRunner = _no_commands
    spec: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = ""
    name: str = ""
    helm: Mapping[str, Any] = field(default_factory=dict)


def _no_delete_hooks(files: Dict[str, str], render_input: RenderInput) -> Dict[str, Objects]:
    del files, render_input
    return {}


@dataclass(frozen=True)
class SourceKind:
    """How one kind of source is read (where its files are) and rendered (in the module); ``delete_hooks`` gives
    the object sets of the delete phase (``pre-delete``, ``post-delete``) of the kinds that have one."""

    name: str
    detect: Callable[[str], bool]
    read: Callable[[str, ReadInput], Dict[str, str]]
    render: Callable[[Dict[str, str], RenderInput], Objects]
    delete_hooks: Callable[[Dict[str, str], RenderInput], Dict[str, Objects]] = _no_delete_hooks


def _read_files(path: str, keep: Callable[[str], bool]) -> Dict[str, str]:
    if os.path.isfile(path):
        return {os.path.basename(path): _read_text(path)}
    files: Dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in (".git",))
        for name in sorted(names):
            full = os.path.join(root, name)
            relative = os.path.relpath(full, path).replace(os.sep, "/")
            if not keep(relative):
                continue
            files[relative] = _read_text(full)
            total += len(files[relative])
            if total > MAX_SOURCE_BYTES:
                raise SourceError(f"source {path} is larger than {MAX_SOURCE_BYTES} bytes; split the component")
    if not files:
        raise SourceError(f"source directory {path} contains no files to read")
    return files


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SourceError(f"{path} is not UTF-8 text; component sources must be text files") from None


def _parse_files(files: Dict[str, str], render_input: RenderInput) -> List[Dict[str, Any]]:
    del render_input  # plain manifests: no parameters, never templated
    objects: List[Dict[str, Any]] = []
    for path in sorted(files):
        if path.endswith(MANIFEST_SUFFIXES):
            objects.extend(parse_manifests(files[path], f"file {path}"))
    return objects


def _read_kustomize(path: str, read_input: ReadInput) -> Dict[str, str]:
    if not os.path.isdir(path) or not has_kustomization(path):
        raise SourceError(f"source {path} has no kustomization.yaml; source_kind kustomize needs one")
    return {KUSTOMIZE_OUTPUT: build_in_place(os.path.abspath(path), read_input.run_command)}


def _read_chart(path: str, read_input: ReadInput) -> Dict[str, str]:
    """``helm template`` of the chart as release placement name/namespace (C10) with the spec as values (C2)."""
    source = helm.helm_source(path, read_input.helm)
    render = helm.render_chart(source, read_input.name, read_input.namespace, read_input.spec, read_input.run_command)
    data = render.to_dict()
    data["crds_delete_policy"] = source.crds_delete_policy
    return {HELM_RENDER: json.dumps(data, sort_keys=True)}


def _chart(files: Dict[str, str], render_input: RenderInput) -> Tuple[helm.ChartRender, str]:
    """The render sent by ``_read_chart``, checked against the placement it must have been rendered for (C10)."""
    if HELM_RENDER not in files:
        raise RenderError(
            f"source_kind helm needs the rendered chart ({HELM_RENDER}) that the action plugin makes on the "
            "controller; give the chart's path as source"
        )
    try:
        data = json.loads(files[HELM_RENDER])
        render = helm.ChartRender.from_dict(data)
    except (ValueError, KeyError, TypeError):
        raise RenderError(f"{HELM_RENDER} is not a rendered chart; give the chart's path as source") from None
    placement = (render_input.namespace, render_input.name)
    if (render.release_namespace, render.release_name) != placement:
        raise RenderError(
            f"the chart was rendered as release {render.release_namespace}/{render.release_name}, but the "
            f"component's placement is {placement[0]}/{placement[1]}; render it with the placement"
        )
    return render, str(data.get("crds_delete_policy", helm.DEFAULT_CRDS_DELETE_POLICY))


def _chart_objects(files: Dict[str, str], render_input: RenderInput) -> Objects:
    """The apply set: CRDs first, install hooks at revision 1, upgrade hooks from revision 2 (helm_waves)."""
    render, crds_delete_policy = _chart(files, render_input)
    return helm_waves.apply_set(render, render_input.annotation_prefix, render_input.revision, crds_delete_policy)


def _chart_delete_hooks(files: Dict[str, str], render_input: RenderInput) -> Dict[str, Objects]:
    """The ``pre-delete`` and ``post-delete`` sets that have hooks."""
    render, _policy = _chart(files, render_input)
    phases = {
        phase: helm_waves.delete_phase_set(render, phase, render_input.annotation_prefix) for phase in DELETE_PHASES
    }
    return {phase: objects for phase, objects in phases.items() if objects}


def _looks_templated(path: str) -> bool:
    if os.path.isfile(path):
        return path.endswith(".j2")
    for _root, _dirs, names in os.walk(path):
        if CONFIG_FILE in names or any(name.endswith(".j2") for name in names):
            return True
    return False


def _render_templates(files: Dict[str, str], render_input: RenderInput) -> List[Dict[str, Any]]:
    render_input.files = files
    return render_files(render_input)


# Auto-detection tries the kinds in this order; ``manifests`` takes what is left.
SOURCE_KINDS: Dict[str, SourceKind] = {
    helm.SOURCE_KIND: SourceKind(helm.SOURCE_KIND, helm.is_chart, _read_chart, _chart_objects, _chart_delete_hooks),
    "kustomize": SourceKind(
        "kustomize", lambda path: os.path.isdir(path) and has_kustomization(path), _read_kustomize, _parse_files
    ),
    "manifests": SourceKind(
        "manifests",
        lambda path: True,
        lambda path, read_input: _read_files(path, lambda name: name.endswith(MANIFEST_SUFFIXES)),
        _parse_files,
    ),
    "templates": SourceKind(
        "templates",
        lambda path: False,
        lambda path, read_input: _read_files(path, lambda name: True),
        _render_templates,
    ),
}
KIND_CHOICES = [AUTO, *sorted(SOURCE_KINDS)]


def resolve_kind(path: str, kind: str = AUTO) -> str:
    """The kind of the source at ``path``: ``kind`` itself, or the detected one for ``auto`` (templating is never
    detected: it is opt-in per source)."""
    if not os.path.exists(path):
        raise SourceError(f"source {path} does not exist; give a directory or a manifest file")
    if kind != AUTO:
        if kind not in SOURCE_KINDS:
            raise SourceError(f"unknown source_kind {kind!r}; use one of {', '.join(KIND_CHOICES)}")
        return kind
    for name, candidate in SOURCE_KINDS.items():
        if candidate.detect(path):
            if name == "manifests" and _looks_templated(path):
                raise SourceError(
                    f"source {path} has Jinja2 templates (*.j2 or {CONFIG_FILE}); templating is opt-in: set "
                    "source_kind: templates to render them, or source_kind: manifests to apply the files as they are"
                )
            return name
    raise SourceError(f"cannot tell the kind of source {path}; set source_kind")  # pragma: no cover


def read_source(path: str, kind: str = AUTO, read_input: Optional[ReadInput] = None) -> Dict[str, Any]:
    """Read (or build, or render) a source where its files are: ``{"kind": resolved kind, "files": {relative path:
    text}}``. ``read_input.run_command`` runs kustomize and helm (the action plugin's on the controller)."""
    resolved = resolve_kind(path, kind)
    files = SOURCE_KINDS[resolved].read(path, read_input or ReadInput())
    return {"kind": resolved, "files": files}


def _kind(kind: str) -> SourceKind:
    if kind not in SOURCE_KINDS:
        raise SourceError(f"unknown source_kind {kind!r}; use one of {', '.join(KIND_CHOICES)}")
    return SOURCE_KINDS[kind]


def render_source(kind: str, files: Dict[str, str], render_input: RenderInput) -> Objects:
    """The desired objects of a source read by ``read_source`` (C2: the spec is passed read-only)."""
    return _kind(kind).render(dict(files), render_input)


def render_delete_hooks(kind: str, files: Dict[str, str], render_input: RenderInput) -> Dict[str, Objects]:
    """The source's delete-phase sets, ``{"pre-delete": [...], "post-delete": [...]}`` (only the phases it has)."""
    return _kind(kind).delete_hooks(dict(files), render_input)
