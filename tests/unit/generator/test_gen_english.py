"""Issue 27: every generated option, output and module description is English, from config/english.yml; the
catalogue's Russian texts stay in the specs and on the MAN pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from generator import pipeline
from generator.english import parse_english
from generator.errors import GeneratorError
from generator.render import README_PATH, render_all
from generator.workspace import Workspace
from tests.unit.generator.catalogue import ENGLISH, GATEWAY, TOKEN, FakeDeckApi

REPO = Path(__file__).resolve().parents[3]
CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def option_docs(options: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(dotted option name, its doc) for every option and sub-option."""
    for name, doc in options.items():
        yield prefix + name, doc
        yield from option_docs(doc.get("suboptions") or {}, f"{prefix}{name}.")


def sidecars(files: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The generated ansible-doc sidecars by module name."""
    return {
        Path(path).stem: yaml.safe_load(text)
        for path, text in files.items()
        if path.startswith("plugins/modules/") and path.endswith(".yml") and "GENERATED" in text[:200]
    }


def russian_left(sidecar: dict[str, Any], display_name: str) -> list[str]:
    """Lines of DOCUMENTATION, EXAMPLES and RETURN with Cyrillic once the catalogue's service name is taken out
    (issue 16 keeps that name beside the English one in the first description line)."""
    text = yaml.safe_dump(sidecar, allow_unicode=True, width=10_000).replace(display_name, "")
    return [line for line in text.splitlines() if CYRILLIC.search(line)]


@pytest.fixture
def fetched(workspace: Workspace, api: FakeDeckApi) -> Workspace:
    pipeline.fetch(workspace, GATEWAY, TOKEN, api.transport())
    return workspace


def rendered_files(workspace: Workspace) -> dict[str, str]:
    return render_all(pipeline.load_specs(workspace), **pipeline.render_inputs(workspace))


def test_options_outputs_and_descriptions_take_the_english_texts(fetched: Workspace) -> None:
    """Issue 27: each option's description starts with its English text (a sub-option's by `<parent>.<code>`, a
    service's own text over the shared one), outputs and the module descriptions are English, and no Russian
    label or manual is left in the docs."""
    files = rendered_files(fetched)
    docs = sidecars(files)
    pg = docs["postgres"]["DOCUMENTATION"]
    cpu = pg["options"]["resource_cpu"]["description"]
    assert cpu[:2] == ["CPU limit in millicores.", "API parameter C(resourceCPU) (integer)."]
    assert pg["description"][1] == "A managed PostgreSQL cluster."
    assert docs["postgres_user"]["DOCUMENTATION"]["description"][1] == "A user."
    dummy = docs["dummy"]["DOCUMENTATION"]["options"]
    assert dummy["resource_realm"]["description"][0] == "Always V(dummy)."  # the service's own text
    assert dummy["map_fixed"]["suboptions"]["field_c"]["description"][0] == "A true/false field."
    outputs = docs["postgres"]["RETURN"]["outputs"]["description"]
    assert "C(internalConnect.master) (string): Internal address of the primary." in outputs
    secret = "C(adminPass) (string): Password of the administrator. Secret: returned only with O(return_secrets=true)."
    assert secret in outputs
    specs = {spec["name"]: spec for spec in pipeline.load_specs(fetched)}
    for module, sidecar in docs.items():
        service = next(name for name in sorted(specs, key=len, reverse=True) if module.startswith(name))
        assert russian_left(sidecar, specs[service]["service_display_name"]) == [], module
    assert "Квота CPU." in files["docs/man/postgres.md"]  # the API's manual stays on the MAN page


def test_a_missing_text_is_an_error_naming_each_code_and_the_file(fetched: Workspace) -> None:
    """Issue 27: a param, sub-param, output, service or sub-resource without English text stops the render before
    anything is written; the error names every one, with the key to add to config/english.yml."""
    english = yaml.safe_load((fetched.root / "config" / "english.yml").read_text(encoding="utf-8"))
    del english["params"]["resourceDisk"], english["params"]["mapFixed.fieldB"], english["outputs"]["adminPass"]
    del english["services"]["postgres"]["subresources"], english["services"]["flask"]
    (fetched.root / "config" / "english.yml").write_text(yaml.safe_dump(english), encoding="utf-8")
    with pytest.raises(GeneratorError) as raised:
        pipeline.render(fetched)
    message = str(raised.value)
    assert message.startswith("config/english.yml has no English text for 5 item(s)")
    for expected in (
        "postgres: param 'resourceDisk': add params.resourceDisk (or services.postgres.params.resourceDisk)",
        "dummy: param 'mapFixed.fieldB': add params.mapFixed.fieldB",
        "postgres: output 'adminPass': add outputs.adminPass",
        "postgres: sub-resource 'user': add services.postgres.subresources.user",
        "flask: the service: add services.flask.description",
    ):
        assert expected in message
    assert not (fetched.root / "plugins").exists()


def test_a_changed_text_is_drift_until_rendered(fetched: Workspace) -> None:
    """Issue 27, P47: config/english.yml is generator input like the specs: a changed text makes `check` report the
    module docs and resource pages that show it, until render writes them."""
    pipeline.render(fetched)
    assert pipeline.check(fetched).clean
    path = fetched.root / "config" / "english.yml"
    english = yaml.safe_load(path.read_text(encoding="utf-8"))
    english["params"]["displayName"] = "Name of the S3 user as the object storage shows it."
    path.write_text(yaml.safe_dump(english), encoding="utf-8")
    assert pipeline.check(fetched).changed == ["docs/modules/s3.md", "plugins/modules/s3.yml"]
    pipeline.render(fetched)
    assert pipeline.check(fetched).clean
    assert "Name of the S3 user as the object storage shows it." in (fetched.root / "plugins/modules/s3.yml").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"params": {"resourceCPU": "Лимит CPU."}}, "params.resourceCPU: the text must be English"),
        ({"params": {"resourceCPU": ""}}, "params.resourceCPU: empty text"),
        ({"services": {"s3": {"description": "S3.", "label": "x"}}}, "services.s3: unknown key 'label'"),
        ({"labels": {}}, "unknown section 'labels'"),
    ],
)
def test_the_english_file_is_validated(change: dict[str, Any], error: str) -> None:
    """Issue 27: the file holds English texts only, in the documented shape."""
    data = {**ENGLISH, **{key: {**ENGLISH.get(key, {}), **value} for key, value in change.items()}}
    with pytest.raises(GeneratorError, match=re.escape(error)):
        parse_english(data)


def test_every_generated_module_of_the_collection_is_documented_in_english() -> None:
    """Issue 27, C18: every option (sub-options too), output and description of every generated module of this
    collection, rendered from the real specs and config/english.yml, is English: its option descriptions start
    with the curated text (never with the API parameter note), and no Russian is left but the catalogue's name of
    a service beside its English name."""
    workspace = Workspace(REPO)
    specs = pipeline.load_specs(workspace)
    files = render_all(specs, workspace.read(README_PATH), **pipeline.render_inputs(workspace))
    docs = sidecars(files)
    names = {spec["name"]: spec["service_display_name"] for spec in specs}
    assert len(docs) == sum(2 + len(spec["subresources"]) for spec in specs)
    for module, sidecar in docs.items():
        service = next(name for name in sorted(names, key=len, reverse=True) if module.startswith(name))
        assert russian_left(sidecar, names[service]) == [], module
        for option, doc in option_docs(sidecar["DOCUMENTATION"]["options"]):
            assert doc["description"] and not doc["description"][0].startswith("API parameter"), (module, option)
    pg = docs["postgres"]["DOCUMENTATION"]["options"]["resource_memory"]["description"]
    assert pg[0] == "Memory of each instance, in megabytes."
