"""The JSON Schema of specs/<name>.yml: every generated spec validates; broken ones are rejected (P11, P47)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator import pipeline
from generator.errors import GeneratorError
from generator.spec_io import SCHEMA_PATH, load_spec, validate_spec
from generator.workspace import Workspace
from tests.unit.generator.catalogue import GATEWAY, TOKEN, FakeDeckApi

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def specs(workspace: Workspace, api: FakeDeckApi) -> dict[str, dict[str, Any]]:
    pipeline.fetch(workspace, GATEWAY, TOKEN, api.transport())
    return {p.stem: load_spec(p) for p in sorted((workspace.root / "specs").glob("*.yml"))}


def test_schema_is_a_valid_json_schema() -> None:
    """The schema itself is valid draft 2020-12."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    "field",
    ["name", "service_id", "service_display_name", "service_short_name", "lifecycle", "outputs", "operations",
     "service_man"],
)  # fmt: skip
def test_required_top_level_fields(specs: dict[str, dict[str, Any]], field: str) -> None:
    """P11: a spec without one of the seed's required top-level fields is rejected."""
    broken = copy.deepcopy(specs["postgres"])
    del broken[field]
    with pytest.raises(GeneratorError, match=f"'{field}' is a required property"):
        validate_spec(broken, "postgres")


def mutate(spec: dict[str, Any], how: str) -> None:
    if how == "excluded without reason":
        next(o for o in spec["operations"] if o["kind"] == "excluded").pop("reason")
    elif how == "restart as action":
        next(o for o in spec["operations"] if o["name"] == "restart").update(kind="action")
    elif how == "unknown type":
        spec["params"][0]["type"] = "float"
    elif how == "camelCase option":
        spec["params"][0]["option"] = "resourceCPU"
    elif how == "suspend_on_destroy without suspend":
        spec["lifecycle"]["suspendable"] = False
    elif how == "duplicate option":
        spec["params"][1]["option"] = spec["params"][0]["option"]
    elif how == "unknown key":
        spec["params"][0]["computed"] = True


@pytest.mark.parametrize(
    "how",
    ["excluded without reason", "restart as action", "unknown type", "camelCase option",
     "suspend_on_destroy without suspend", "duplicate option", "unknown key"],
)  # fmt: skip
def test_broken_specs_are_rejected(specs: dict[str, dict[str, Any]], how: str) -> None:
    """P15/P47: the schema enforces the rules (exclusion reasons, only redeploy as action, snake_case...)."""
    broken = copy.deepcopy(specs["postgres"])
    mutate(broken, how)
    with pytest.raises(GeneratorError, match="postgres"):
        validate_spec(broken, "postgres")


def test_repo_specs_validate() -> None:
    """Every committed specs/*.yml of the collection matches the schema."""
    paths = sorted((REPO / "specs").glob("*.yml"))
    for path in paths:
        load_spec(path)
