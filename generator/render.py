"""render: specs -> module files, docs and meta/runtime.yml, all in memory (P3, P4, P31, P43-P45)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import yaml

from generator.english import English, ServiceTexts
from generator.errors import GeneratorError
from generator.examples import ExampleContext, ExampleValues
from generator.modules import TEST_SERVICE_NOTE, ModuleModel, service_label, service_modules
from generator.pyliteral import literal

MARKER = "GENERATED"
# Passed to the template as a variable: a literal shebang would make the template a "script" for sanity.
SHEBANG = "#!/usr/bin/python"
TEMPLATES = Path(__file__).parent / "templates"
MODULES_DIR = "plugins/modules"
ACTION_DIR = "plugins/action"  # issue 26: an action plugin per module, all the shared in-process one
SERVICES_DIR = "plugins/module_utils/services"  # one SERVICE literal per service, imported by its modules
SERVICES_INDEX_PATH = f"{SERVICES_DIR}/all_services.py"  # every SERVICE, imported statically (issue 27)
DOCS_MODULES_DIR = "docs/modules"
DOCS_MAN_DIR = "docs/man"
INDEX_PATH = "docs/modules/index.md"
RUNTIME_PATH = "meta/runtime.yml"
README_PATH = "README.md"
README_BEGIN = "<!-- BEGIN GENERATED MODULE LIST -->"
README_END = "<!-- END GENERATED MODULE LIST -->"
_TEXT_KEYS = frozenset({"service_man", "label", "man"})
_DOCS_ONLY_KEYS = frozenset({"service_title", "test_service"})  # top-level spec keys only the docs use
# Hand-written modules that take the common options (doc fragment nubes.cloud.common): members of the `nubes` action
# group like the generated ones, so module_defaults for group/nubes.cloud.nubes reach them too.
GROUP_MEMBERS_BY_HAND = ("estate_export", "operation_info")


def spec_path(name: str) -> str:
    """Repo-relative path of a service's spec."""
    return f"specs/{name}.yml"


class _DocDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # indented sequences, as in ansible-doc sources


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    if "{{" in value:  # a Jinja expression of EXAMPLES, quoted as playbooks quote them
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_DocDumper.add_representer(str, _represent_str)


def doc_yaml(data: Any) -> str:
    """YAML for the sidecar docs, wrapped to stay under the line limits."""
    text: str = yaml.dump(data, Dumper=_DocDumper, sort_keys=False, allow_unicode=True, width=100, indent=2)
    return text


def service_literal(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec for the core (SERVICE): everything except the human texts (service_man, label, man) and the
    docs-only keys (service_title, test_service)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in _TEXT_KEYS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    result: dict[str, Any] = strip({k: v for k, v in spec.items() if k not in _DOCS_ONLY_KEYS})
    return result


# ---- Markdown helpers -------------------------------------------------------------------------------------------

_MARKUP = re.compile(r"\b(RV|[CIMOVBU])\(([^)]*)\)")


def md_markup(text: str) -> str:
    """Ansible doc markup (C(), O(), V(), RV(), M(), I(), B(), U()) -> Markdown."""

    def convert(match: re.Match[str]) -> str:
        kind, inner = match.group(1), match.group(2)
        if kind == "I":
            return f"*{inner}*"
        if kind == "B":
            return f"**{inner}**"
        if kind == "U":
            return f"<{inner}>"
        if kind == "M":
            return f"[{inner}]({inner.rsplit('.', 1)[-1]}.md)"
        return f"`{inner}`"

    return _MARKUP.sub(convert, text)


def cell(text: Any) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text if text is not None else "").split()).replace("|", "\\|")


def default_cell(value: Any) -> str:
    """A default in a table: code-formatted, or a dash for none."""
    if value is None:
        return "—"
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f"`{text}`".replace("|", "\\|")


def param_notes(param: dict[str, Any], registry: dict[int, str]) -> str:
    """Short notes of a param for its table row."""
    notes = []
    if param["choices"]:
        notes.append("choices: " + ", ".join(f"`{c}`" for c in param["choices"]))
    if param["ref_service_id"] is not None:
        target = registry.get(param["ref_service_id"])
        notes.append(
            f"reference to [{target}]({target}.md)" if target else f"reference to service {param['ref_service_id']}"
        )
    if param.get("placeholder") is not None:
        notes.append(f"API placeholder `{param['placeholder']}` not applied")
    if param["immutable"] and param["operations"]:
        notes.append("create-only (key param for adopt)")
    if param["secret"]:
        notes.append("secret")
    return "; ".join(notes)


def param_description(param: dict[str, Any], texts: ServiceTexts, path: str) -> str:
    """A param's table cell on its resource page: the English text (issue 27), then the API's label as it is."""
    text = md_markup(" ".join(texts.param(path)))
    label = param["label"].strip()
    return cell(f"{text} (API label: {label})" if label else text)


def man_block(param: dict[str, Any], level: int) -> str:
    """The MAN block of one param (P44): heading, label, man text, then its sub-params one level deeper."""
    head = "#" * level
    lines = [f"{head} `{param['option']}` (API `{param['code']}`, {param['type']})"]
    if param["label"].strip():
        lines.append(f"**{param['label'].strip()}**")
    lines.append("")
    lines.append(param["man"].strip() or "No manual text.")
    for sub in param["sub_params"]:
        lines.append("")
        lines.append(man_block(sub, min(level + 1, 6)).rstrip("\n"))
    return "\n".join(lines) + "\n"


def demote_headings(markdown: str, levels: int = 2) -> str:
    """Nest the API's Markdown manual under the page's headings (text unchanged, code fences untouched)."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"^#{1,6} ", line):
            line = "#" * levels + line
        out.append(line)
    return "\n".join(out)


def operation_use(op: dict[str, Any], spec: dict[str, Any]) -> str:
    """How the collection uses an API operation (the operations summary, P43)."""
    kind, name = op["kind"], op["name"]
    if kind == "excluded":
        return f"excluded: {op['reason']}"
    if kind == "action":
        return f"`{name}` when `git_revision` changes"
    if kind == "subresource":
        return f"module `{spec['name']}_{op['subresource']}`"
    return {
        "create": "`state: present` on a new instance",
        "modify": "`state: present` when params differ",
        "delete": "`state: deleted` (`state: absent` suspends or forgets, P29)"
        if spec["lifecycle"]["suspendable"]
        else "`state: absent` or `state: deleted`",
        "suspend": "`state: absent` with `suspend_on_destroy: true`",
        "resume": "`state: present` with `adopt_existing_on_create: true` on a suspended instance",
    }[name]


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Jinja2 environment over generator/templates with the Markdown filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        md_markup=md_markup,
        cell=cell,
        default_cell=default_cell,
        param_notes=param_notes,
        param_description=param_description,
        man_block=man_block,
        operation_use=operation_use,
        demote_headings=demote_headings,
        service_label=lambda spec, mark_test=True: (
            service_label(spec) + (" — test service" if mark_test and spec["test_service"] else "")
        ),
    )
    return env


def _run_args(model: ModuleModel) -> str:
    if model.kind == "subresource":
        return f'kind="subresource", sub="{model.sub}"'
    return f'kind="{model.kind}"'


def render_service_data(spec: dict[str, Any]) -> str:
    """The service's SERVICE literal (P31: data only), in module_utils so its modules share one copy."""
    return (
        environment()
        .get_template("service_data.py.j2")
        .render(
            marker=MARKER,
            source=spec_path(spec["name"]),
            service_name=spec["name"],
            service=literal(service_literal(spec)),
        )
    )


def render_services_index(specs: list[dict[str, Any]]) -> str:
    """`SERVICES`: every service's SERVICE literal by a static import, in name order."""
    names = sorted(spec["name"] for spec in specs)
    package = "ansible_collections.nubes.cloud.plugins.module_utils.services"
    lines = [
        "# Copyright: (c) nubes.cloud contributors",
        "# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)",
        "#",
        f"# {MARKER} by `python -m generator render` from specs/*.yml -- DO NOT EDIT.",
        "# Change the API data or the generator (generator/), then run `python -m generator all` (P3, P31).",
        '"""Every service\'s SERVICE literal, imported by name, so that a module that reads all services (the estate',
        'export) carries them in its payload: Ansible bundles only the module_utils a module imports statically."""',
        "",
        "from __future__ import annotations",
        "",
        *(f"from {package}.{name} import SERVICE as {name}" for name in names),
        "",
        "SERVICES = (",
        *(f"    {name}," for name in names),
        ")",
    ]
    return "\n".join(lines) + "\n"


def render_module(model: ModuleModel) -> str:
    """A module file: ARGUMENT_SPEC, the import of its service's SERVICE literal and a 3-line main calling the core
    (P31).

    Its docs live in the sidecar ``<name>.yml`` (render_module_docs): the API's Russian texts stay readable
    there, and Python linters never see them."""
    return (
        environment()
        .get_template("module.py.j2")
        .render(
            shebang=SHEBANG,
            marker=MARKER,
            source=spec_path(model.spec["name"]),
            name=model.name,
            service_name=model.spec["name"],
            argument_spec=literal(model.argument_spec),
            run_args=_run_args(model),
        )
    )


def render_action(model: ModuleModel) -> str:
    """The module's action plugin: a class with no logic of its own (ansible-core finds an action plugin by the
    module's name), the shared NubesModuleAction (plugins/plugin_utils/in_process.py, issue 26): the module runs in
    the controller's process when the target is the controller, else as a module with its secret outputs sealed
    (issue 24)."""
    return (
        environment()
        .get_template("action.py.j2")
        .render(marker=MARKER, source=spec_path(model.spec["name"]), name=model.name)
    )


def render_module_docs(model: ModuleModel) -> str:
    """The module's sidecar docs file: DOCUMENTATION, EXAMPLES (text) and RETURN (validate-modules, ansible-doc)."""
    docs = {
        "DOCUMENTATION": model.documentation,
        "EXAMPLES": doc_yaml(model.examples),
        "RETURN": model.returns,
    }
    return (
        environment()
        .get_template("module_docs.yml.j2")
        .render(marker=MARKER, source=spec_path(model.spec["name"]), name=model.name, docs=doc_yaml(docs).rstrip("\n"))
    )


def _kind_words(model: ModuleModel) -> str:
    return {
        "instance": "instance resource",
        "subresource": f"sub-resource `{model.sub}` of the instance",
        "info": "read-only (info)",
    }[model.kind]


def render_resource_page(model: ModuleModel, registry: dict[int, str]) -> str:
    """P43: the resource page of one module."""
    spec = model.spec
    sub = next((s for s in spec["subresources"] if s["name"] == model.sub), None)
    param_options = {p["option"] for p in model.params}
    lifecycle_docs = [(n, d) for n, d in model.documentation["options"].items() if n not in param_options]
    if model.kind == "subresource" and sub is not None:
        ops = [op for op in spec["operations"] if op.get("subresource") == model.sub]
    elif model.kind == "info":
        ops = []
    else:
        ops = [op for op in spec["operations"] if op["kind"] != "subresource"]
    return (
        environment()
        .get_template("resource_page.md.j2")
        .render(
            marker=MARKER,
            source=spec_path(spec["name"]),
            m=model,
            spec=spec,
            sub=sub,
            registry=registry,
            kind_words=_kind_words(model),
            lifecycle_docs=lifecycle_docs,
            operations=ops,
        )
    )


def render_man_page(spec: dict[str, Any], models: list[ModuleModel]) -> str:
    """P44: the MAN page of one service."""
    return (
        environment()
        .get_template("man_page.md.j2")
        .render(marker=MARKER, source=spec_path(spec["name"]), spec=spec, models=models, test_note=TEST_SERVICE_NOTE)
    )


def check_module_names(specs: list[dict[str, Any]], all_models: list[list[ModuleModel]]) -> None:
    """Fail fast when two services would generate the same module (P47)."""
    owners: dict[str, str] = {}
    for spec, models in zip(specs, all_models):
        for model in models:
            if model.name in GROUP_MEMBERS_BY_HAND:
                raise GeneratorError(
                    f"service {spec['name']} would generate {model.name!r}, the name of a hand-written module: "
                    "rename the service in config/services_list.txt"
                )
            if model.name in owners:
                raise GeneratorError(
                    f"module name {model.name!r} is generated twice (services {owners[model.name]} and "
                    f"{spec['name']}): rename one service in config/services_list.txt"
                )
            owners[model.name] = spec["name"]


def render_readme(readme: str, services: list[tuple[dict[str, Any], list[ModuleModel]]]) -> str:
    """README.md with only the text between the module-list markers replaced (contracts.md, foundation)."""
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    if begin < 0 or end < begin:
        return readme
    body = environment().get_template("readme_modules.md.j2").render(services=services)
    return readme[: begin + len(README_BEGIN)] + "\n" + body + readme[end:]


def render_all(
    specs: list[dict[str, Any]],
    readme: str | None = None,
    *,
    requires_ansible: str,
    english: English,
    examples: ExampleValues,
) -> dict[str, str]:
    """Every generated file (repo-relative path -> text) from the specs; deterministic (P47).

    ``readme`` is the current README.md: when given and it has the markers, its module list is rendered too.
    ``requires_ansible`` goes into meta/runtime.yml (the oldest ansible-core of config/ansible_core_versions.txt).
    ``english`` (config/english.yml) documents every option, output and service; ``examples``
    (config/examples.yml) gives the EXAMPLES their values (issue 27)."""
    registry = {spec["service_id"]: spec["name"] for spec in specs}
    texts = english.service_texts(specs)
    context = ExampleContext(examples, {spec["service_id"]: spec for spec in specs})
    all_models = [service_modules(spec, registry, texts[spec["name"]], context) for spec in specs]
    check_module_names(specs, all_models)
    files: dict[str, str] = {}
    for spec, models in zip(specs, all_models):
        for model in models:
            files[f"{MODULES_DIR}/{model.name}.py"] = render_module(model)
            files[f"{MODULES_DIR}/{model.name}.yml"] = render_module_docs(model)
            files[f"{ACTION_DIR}/{model.name}.py"] = render_action(model)
            files[f"{DOCS_MODULES_DIR}/{model.name}.md"] = render_resource_page(model, registry)
        files[f"{DOCS_MAN_DIR}/{spec['name']}.md"] = render_man_page(spec, models)
        files[f"{SERVICES_DIR}/{spec['name']}.py"] = render_service_data(spec)
    files[SERVICES_INDEX_PATH] = render_services_index(specs)
    env = environment()
    files[INDEX_PATH] = env.get_template("index.md.j2").render(marker=MARKER, services=list(zip(specs, all_models)))
    module_names = sorted([m.name for models in all_models for m in models] + list(GROUP_MEMBERS_BY_HAND))
    files[RUNTIME_PATH] = env.get_template("runtime.yml.j2").render(
        marker=MARKER, modules=module_names, requires_ansible=requires_ansible
    )
    if readme is not None and README_BEGIN in readme:
        files[README_PATH] = render_readme(readme, list(zip(specs, all_models)))
    return dict(sorted(files.items()))
