"""The placeholder rule (issue 23; generator/placeholders.py), run on the real specs: one rule finds every placeholder
default of every service, and the list it finds is the one docs/using-modules.md documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from generator.placeholders import is_placeholder, is_sample_text

REPO = Path(__file__).resolve().parents[3]
DOCS = REPO / "docs" / "using-modules.md"
ROW = re.compile(r"^\| `([a-z0-9_]+)` \| `([a-z0-9_]+)` \| `(.+)` \|$")


def specs() -> Iterator[dict[str, Any]]:
    for path in sorted((REPO / "specs").glob("*.yml")):
        yield yaml.safe_load(path.read_text(encoding="utf-8"))


def every_param(spec: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(module, param) for the instance params, the sub-resources' params, the actions' params and all sub-params."""
    groups = [(spec["name"], spec["params"])]
    groups += [(f"{spec['name']}_{sub['name']}", sub["params"]) for sub in spec["subresources"]]
    groups += [(spec["name"], op.get("params", [])) for op in spec["operations"]]
    for module, params in groups:
        stack = list(params)
        while stack:
            param = stack.pop()
            stack.extend(param["sub_params"])
            yield module, param


def documented() -> list[tuple[str, str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    block = text.split("<!-- PLACEHOLDER LIST -->", 1)[1].split("<!-- END PLACEHOLDER LIST -->", 1)[0]
    return [m.groups() for m in (ROW.match(line.strip()) for line in block.splitlines()) if m]  # type: ignore[misc]


def test_the_rule_finds_the_documented_list_on_every_spec() -> None:
    """Issue 23, P35: the placeholders the generator flagged in the specs (`placeholder`, with `default: null`) are
    exactly the documented list: domain, emails, git_path, json_env, and vm's vm_name and user_login."""
    found = sorted(
        (module, param["option"], param["placeholder"])
        for spec in specs()
        for module, param in every_param(spec)
        if param.get("placeholder") is not None
    )
    assert found == sorted(documented())
    assert {option for _module, option, _value in found} == {
        "domain",
        "emails",
        "git_path",
        "json_env",
        "user_login",
        "vm_name",
    }


def test_every_spec_param_follows_the_one_rule() -> None:
    """Issue 23, P35: the flag is the rule, never a hand list: a param is flagged iff the rule says its API default
    is a placeholder, and a flagged one has no default (never applied)."""
    checked = 0
    for spec in specs():
        for module, param in every_param(spec):
            api_default = param.get("placeholder") if param.get("placeholder") is not None else param["default"]
            expected = is_placeholder(param["type"], api_default, param["choices"], param["ref_service_id"])
            assert (param.get("placeholder") is not None) == expected, (module, param["code"], api_default)
            if expected:
                assert param["default"] is None, (module, param["code"])
            checked += api_default is not None
    assert checked > 100  # every default of every service went through the rule


@pytest.mark.parametrize(
    "text",
    ["web01", "testuser1", "myuser", '{ "param": "value" }', "https://github.com/xahys/testnode.git",
     "https://github.com/Foxyhhd/Baldurs-Gate-test.git", "https://example.org/app.git", "sample-app"],
)  # fmt: skip
def test_sample_text(text: str) -> None:
    """Issue 23: the catalogue's placeholders (and their kind) are sample text."""
    assert is_sample_text(text)


@pytest.mark.parametrize(
    "text",
    ["500", "-1", "5432", "9.4.0", "0 0 * * *", "{}", '{ "log_connections": "off", "log_disconnections": "off" }',
     '["22"]', "no-needed", "vcd", "standard", "UTF8", "HOT", "readwrite", "latest"],
)  # fmt: skip
def test_settings_are_not_sample_text(text: str) -> None:
    """Issue 23: the settings among the catalogue's defaults are not sample text (`latest` has `test` inside a word,
    not at its start)."""
    assert not is_sample_text(text)


def test_only_free_text_params_can_hold_a_placeholder() -> None:
    """Issue 23: a default with choices, a reference, or of a non-text type is never a placeholder."""
    assert is_placeholder("json", '{ "param": "value" }', None, None)
    assert not is_placeholder("string", "web01", ["web01", "web02"], None)
    assert not is_placeholder("string", "test", None, 12)
    assert not is_placeholder("array", '["test"]', None, None)
    assert not is_placeholder("string", None, None, None)
