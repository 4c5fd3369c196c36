"""Issue 27: realistic EXAMPLES for every generated module, from the specs and config/examples.yml: real realms and
choices, references to services as earlier tasks' registered results, no placeholder values."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from generator import pipeline
from generator.errors import GeneratorError
from generator.placeholders import is_sample_text
from generator.render import README_PATH, render_all
from generator.workspace import Workspace
from tests.unit.generator.catalogue import GATEWAY, TOKEN, FakeDeckApi

REPO = Path(__file__).resolve().parents[3]
REFERENCE = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\b")


def examples_of(files: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """The parsed EXAMPLES of every generated module, by module name."""
    return {
        Path(path).stem: yaml.safe_load(yaml.safe_load(text)["EXAMPLES"])
        for path, text in files.items()
        if path.startswith("plugins/modules/") and path.endswith(".yml") and "GENERATED" in text[:200]
    }


def strings(value: Any) -> Iterator[str]:
    """Every string in a task's options, nested ones too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def module_args(task: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(module name without the collection, its options) of a task."""
    name = next(key for key in task if key.startswith(("nubes.cloud.", "ansible.builtin.")))
    return name.rsplit(".", 1)[1], task[name]


def catalogue_realms() -> dict[str, list[str]]:
    """The realms the catalogue serves per service (tests/emulator/catalogue/*.json), by svcShort."""
    realms = {}
    for path in sorted((REPO / "tests" / "emulator" / "catalogue").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        realms[data["svcShort"]] = data.get("resourceRealms", [])
    return realms


@pytest.fixture(scope="module")
def real() -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The collection's specs and the EXAMPLES rendered from them and config/examples.yml."""
    workspace = Workspace(REPO)
    specs = pipeline.load_specs(workspace)
    files = render_all(specs, workspace.read(README_PATH), **pipeline.render_inputs(workspace))
    return specs, examples_of(files)


def test_no_example_uses_a_placeholder_value(real: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """Issue 27: no value in any generated module's EXAMPLES is sample text (`example`, `my-...`, `test...`,
    `web01`: generator/placeholders.py's rule), and every module has a create or read task of its own."""
    specs, examples = real
    assert len(examples) == sum(2 + len(spec["subresources"]) for spec in specs)
    for module, tasks in examples.items():
        assert any(module_args(task)[0] == module for task in tasks), module
        for task in tasks:
            found = [text for text in strings(module_args(task)[1]) if is_sample_text(text) or text == "example"]
            assert found == [], (module, task["name"])


def test_references_are_earlier_tasks_results(real: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """Issue 27: every variable an example reads was registered by an earlier task of the same example; a
    reference to another generated service is that service's registered result (a bucket's s3_user_uid from the
    S3 task, as examples/demo.yml does), and a sub-resource names its parent by the parent task's result."""
    specs, examples = real
    by_id = {spec["service_id"]: spec for spec in specs}
    for module, tasks in examples.items():
        registered: set[str] = set()
        for task in tasks:
            for text in strings(module_args(task)[1]):
                for var in REFERENCE.findall(text):
                    assert var in registered or var in ("lookup", "pgadmin_password", "shop_db_password"), (
                        module,
                        task["name"],
                        var,
                    )
            registered.update([task["register"]] if "register" in task else [])
    bucket = examples["s3_bucket"]
    assert module_args(bucket[0]) == (
        "s3",
        {"resource_name": "shop-backups", "display_name": "shop-backups", "resource_realm": "s3.nubes.ru"},
    )
    assert bucket[0]["register"] == "shop_backups"
    assert module_args(bucket[1])[1]["s3_user_uid"] == "{{ shop_backups.instance.instance_uid }}"
    assert module_args(examples["postgres_user"][1])[1]["parent_instance_uid"] == "{{ shop_db.instance.instance_uid }}"
    for spec in specs:
        refs = [p for p in spec["params"] if p["ref_service_id"] in by_id]
        main = next(t for t in examples[spec["name"]] if module_args(t)[0] == spec["name"])
        for param in refs:
            target = by_id[param["ref_service_id"]]["name"]
            assert REFERENCE.search(module_args(main)[1][param["option"]]), (spec["name"], param["option"])
            assert any(module_args(t)[0] == target and "register" in t for t in examples[spec["name"]]), target


def test_realms_and_choices_are_real_values(real: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    """Issue 27: `resource_realm` in the examples is a realm the catalogue serves for that service, and an option
    with choices takes one of them."""
    specs, examples = real
    realms = catalogue_realms()
    by_name = {spec["name"]: spec for spec in specs}
    checked = 0
    for tasks in examples.values():
        for task in tasks:
            module, args = module_args(task)
            spec = by_name.get(module)
            if spec is None:
                continue
            if "resource_realm" in args:
                assert args["resource_realm"] in realms[spec["service_short_name"]], (module, args["resource_realm"])
                checked += 1
            for param in spec["params"]:
                if param["choices"] and param["option"] in args:
                    assert str(args[param["option"]]) in param["choices"], (module, param["option"])
    assert checked >= 15


def test_a_free_text_param_without_a_value_is_an_error(workspace: Workspace, api: FakeDeckApi) -> None:
    """Issue 27: a create-required free-text param with no example value (no choices, no API default) stops the
    render, naming the param, the service and the key to add to config/examples.yml."""
    pipeline.fetch(workspace, GATEWAY, TOKEN, api.transport())
    path = workspace.root / "config" / "examples.yml"
    values = yaml.safe_load(path.read_text(encoding="utf-8"))
    del values["services"]["s3_bucket"]["params"]["bucketName"]
    path.write_text(yaml.safe_dump(values), encoding="utf-8")
    with pytest.raises(GeneratorError) as raised:
        pipeline.render(workspace)
    assert str(raised.value) == (
        "config/examples.yml has no example value for param 'bucketName' of service 's3_bucket' "
        "(specs/s3_bucket.yml): add services.s3_bucket.params.bucketName (or params.bucketName when the value fits "
        "every service)"
    )
