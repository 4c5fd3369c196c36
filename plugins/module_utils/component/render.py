# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The templates generator: a directory of Jinja2 templates (C2, C4, C10), opt-in per source (``source_kind:
templates``); with a ``kustomization.yaml`` among them, the rendered files are built with kustomize.

Templates run in ``jinja2.sandbox.ImmutableSandboxedEnvironment``: spec values are data and cannot execute code.
``values`` = the defaults of ``.component-config.yaml`` deep-merged with the component's ``spec`` (C2: the spec
is passed read-only). Errors name the file and the line.
"""

from __future__ import annotations

import base64
import copy
import fnmatch
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.component.commands import CommandRunner
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError
from ansible_collections.nubes.cloud.plugins.module_utils.component.kustomize import KUSTOMIZATION_FILES, build_files
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import (
    load as load_yaml,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import (
    parse_manifests,
    yaml_position,
    yaml_problem,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.constants import DEFAULT_PREFIX

try:
    import yaml

    HAS_YAML = True
except ImportError:  # pragma: no cover - reported by the module
    HAS_YAML = False


CONFIG_FILE = ".component-config.yaml"
CONFIG_KEYS = ("values", "template_suffix", "ignore")
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

Lookup = Callable[[str, str, str, str], Optional[Dict[str, Any]]]
ListLookup = Callable[[str, str, str, str], List[Dict[str, Any]]]


@dataclass
class RenderInput:
    """What a generator gets (C4, C10): placement namespace and name, the spec, the component identity, and the
    engine's annotation prefix (a Helm chart's hooks become ``<prefix>/apply-order`` and so on)."""

    files: Mapping[str, str]
    spec: Mapping[str, Any]
    namespace: str
    name: str
    component_namespace: str
    component_name: str
    revision: int = 1
    lookup: Optional[Lookup] = None
    lookup_list: Optional[ListLookup] = None
    kustomize_command: Optional[Sequence[str]] = None
    run_command: Optional[CommandRunner] = None
    annotation_prefix: str = DEFAULT_PREFIX


@dataclass
class TemplateConfig:
    """``.component-config.yaml``: default ``values``, ``template_suffix`` ("" = every file), ``ignore`` globs."""

    values: Dict[str, Any] = field(default_factory=dict)
    template_suffix: str = ""
    ignore: List[str] = field(default_factory=list)


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Dict[str, Any]:
    """Merge ``override`` into a copy of ``base``; nested mappings merge, anything else replaces."""
    result: Dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def load_config(files: Mapping[str, str]) -> TemplateConfig:
    """Parse ``.component-config.yaml`` when present."""
    text = files.get(CONFIG_FILE)
    if text is None:
        return TemplateConfig()
    try:
        data = load_yaml(text) or {}
    except yaml.YAMLError as exc:
        raise RenderError(f"{CONFIG_FILE}{yaml_position(exc)}: invalid YAML: {yaml_problem(exc)}") from None
    if not isinstance(data, dict):
        raise RenderError(f"{CONFIG_FILE}: must be a mapping with keys {', '.join(CONFIG_KEYS)}")
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise RenderError(f"{CONFIG_FILE}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(CONFIG_KEYS)}")
    values = data.get("values") or {}
    ignore = data.get("ignore") or []
    suffix = data.get("template_suffix") or ""
    if not isinstance(values, dict):
        raise RenderError(f"{CONFIG_FILE}: values must be a mapping")
    if not isinstance(ignore, list) or not all(isinstance(i, str) for i in ignore):
        raise RenderError(f"{CONFIG_FILE}: ignore must be a list of glob patterns")
    if not isinstance(suffix, str):
        raise RenderError(f"{CONFIG_FILE}: template_suffix must be a string such as .j2")
    return TemplateConfig(values=values, template_suffix=suffix, ignore=list(ignore))


def _ignored(path: str, patterns: Sequence[str]) -> bool:
    base = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(base, p) for p in patterns)


# --- template helpers ------------------------------------------------------------------------------------------


def _to_yaml(value: Any, indent: int = 2) -> str:
    return str(yaml.safe_dump(_plain(value), default_flow_style=False, sort_keys=False, indent=indent)).rstrip("\n")


def _to_json(value: Any) -> str:
    return json.dumps(_plain(value), sort_keys=True)


def _b64encode(value: Any) -> str:
    return base64.b64encode(str(value).encode("utf-8")).decode("ascii")


def _jinja() -> Any:
    """jinja2 with its sandbox, imported on first use: only template sources pay for it (tens of milliseconds of a
    module run that applies plain manifests)."""
    try:
        import jinja2  # pylint: disable=import-outside-toplevel
        import jinja2.sandbox  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise RenderError("the Python package jinja2 is required on the host running the module") from None
    return jinja2


def _b64decode(value: Any) -> str:
    return base64.b64decode(str(value)).decode("utf-8")


def _sha256(value: Any) -> str:
    return hashlib.sha256(str(value).encode("utf-8")).hexdigest()


class _RequiredValueMissing(Exception):
    pass


def _required(value: Any, message: str = "a required value is missing") -> Any:
    if value is None or isinstance(value, _jinja().Undefined) or value == "":
        raise _RequiredValueMissing(message)
    return value


def _plain(value: Any) -> Any:
    """Sandboxed values are plain already; drop Jinja's Undefined markers for dumping."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _environment(render_input: RenderInput, sources: Mapping[str, str]) -> Any:
    jinja2 = _jinja()

    def load(name: str) -> Tuple[str, str, Callable[[], bool]]:
        if name not in sources:
            raise jinja2.TemplateNotFound(name)
        return sources[name], name, lambda: True

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        loader=jinja2.FunctionLoader(load),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        {
            "to_yaml": _to_yaml,
            "to_json": _to_json,
            "b64encode": _b64encode,
            "b64decode": _b64decode,
            "sha256": _sha256,
            "required": _required,
        }
    )

    def lookup(api_version: str, kind: str, name: str, namespace: str = "") -> Optional[Dict[str, Any]]:
        if render_input.lookup is None:
            raise RenderError("lookup() needs the target cluster, which is not available here")
        return render_input.lookup(api_version, kind, name, namespace)

    def lookup_list(api_version: str, kind: str, namespace: str = "", label_selector: str = "") -> List[Any]:
        if render_input.lookup_list is None:
            raise RenderError("lookup_list() needs the target cluster, which is not available here")
        return render_input.lookup_list(api_version, kind, namespace, label_selector)

    env.globals.update({"lookup": lookup, "lookup_list": lookup_list})
    return env


def _template_line(exc: BaseException, name: str) -> Optional[int]:
    """The line of template ``name`` where a runtime error happened (Jinja rewrites tracebacks to template lines)."""
    line: Optional[int] = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == name:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def render_template(env: Any, name: str, context: Mapping[str, Any]) -> str:
    """Render one file; errors carry ``file:line``."""
    jinja2 = _jinja()
    try:
        return str(env.get_template(name).render(**context))
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(f"template {name}, line {exc.lineno}: syntax error: {exc.message}") from None
    except RenderError as exc:
        line = _template_line(exc, name)
        raise RenderError(f"template {name}{_line_text(line)}: {exc}") from None
    except _RequiredValueMissing as exc:
        raise RenderError(f"template {name}{_line_text(_template_line(exc, name))}: {exc}") from None
    except jinja2.sandbox.SecurityError as exc:
        raise RenderError(
            f"template {name}{_line_text(_template_line(exc, name))}: not allowed in the sandbox: {exc}"
        ) from None
    except jinja2.UndefinedError as exc:
        raise RenderError(
            f"template {name}{_line_text(_template_line(exc, name))}: {exc.message}; define it in the spec or in "
            f"the values of {CONFIG_FILE}"
        ) from None
    except Exception as exc:  # pylint: disable=broad-except  # any template runtime error is the user's to fix
        raise RenderError(
            f"template {name}{_line_text(_template_line(exc, name))}: {type(exc).__name__}: {exc}"
        ) from None


def _line_text(line: Optional[int]) -> str:
    return f", line {line}" if line else ""


def _dropped_template(outputs: Mapping[str, str]) -> Optional[str]:
    """A ``*.yaml.j2``-style file among the rendered outputs: it keeps its name (component-operator-runtime's rule
    when no suffix is configured), so it is no manifest and its objects would be dropped without a word."""
    templates = (path for path in sorted(outputs) if path.endswith(".j2"))
    return next((path for path in templates if path[: -len(".j2")].endswith(MANIFEST_SUFFIXES)), None)


def render_files(render_input: RenderInput) -> List[Dict[str, Any]]:
    """Render a directory of templates (every file a template unless a suffix is configured) into objects."""
    if not HAS_YAML:
        raise RenderError("the Python package PyYAML is required on the host running the module")
    files = dict(render_input.files)
    config = load_config(files)
    values = deep_merge(config.values, render_input.spec or {})
    sources = {path: text for path, text in files.items() if path != CONFIG_FILE and not _ignored(path, config.ignore)}
    env = _environment(render_input, sources)
    context = {
        "values": values,
        "spec": copy.deepcopy(dict(render_input.spec or {})),
        "name": render_input.name,
        "namespace": render_input.namespace,
        "component": {"name": render_input.component_name, "namespace": render_input.component_namespace},
        "revision": render_input.revision,
    }
    outputs: Dict[str, str] = {}
    suffix = config.template_suffix
    for path in sorted(sources):
        if suffix and not path.endswith(suffix):
            outputs[path] = sources[path]  # not a template: copied as it is
            continue
        output_name = path[: -len(suffix)] if suffix else path
        outputs[output_name] = render_template(env, path, context)
    if any(path.rsplit("/", 1)[-1] in KUSTOMIZATION_FILES and "/" not in path for path in outputs):
        return build_files(outputs, render_input.run_command, render_input.kustomize_command)
    dropped = _dropped_template(outputs) if not suffix else None
    if dropped:
        raise RenderError(
            f"template {dropped}: without a template_suffix every file is a template and keeps its name, so "
            f"{dropped} is no manifest and its objects would be dropped; set `template_suffix: .j2` in {CONFIG_FILE} "
            "(the suffix is then stripped), or rename the file"
        )
    objects: List[Dict[str, Any]] = []
    for path in sorted(outputs):
        if path.endswith(MANIFEST_SUFFIXES):
            objects.extend(parse_manifests(outputs[path], f"file {path}"))
    return objects
