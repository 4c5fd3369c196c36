"""Spec params -> Ansible option specs and their documentation (they are built together so they match)."""

from __future__ import annotations

import json
import re
from typing import Any

from generator.english import ServiceTexts

# validate-modules' no-log-needed heuristic: such names need an explicit ``no_log`` decision.
_LOOKS_SECRET = re.compile(r"(?:pass(?!ive)|secret|token|key)", re.IGNORECASE)

ANSIBLE_TYPES = {
    "string": "str",
    "integer": "int",
    "boolean": "bool",
    "array": "list",
    "map-fixed": "dict",
    "json": "raw",
}


def typed_value(param: dict[str, Any], text: str | None) -> Any:
    """An API string value converted to the option's Python type (for choices and examples)."""
    if text is None:
        return None
    kind = param["type"]
    try:
        if kind == "integer":
            return int(text)
        if kind == "boolean":
            return text.strip().lower() == "true"
        if kind in ("array", "map-fixed", "json"):
            return json.loads(text)
    except ValueError:
        return text
    return text


def _choices(param: dict[str, Any]) -> list[Any] | None:
    if not param["choices"] or param["type"] == "boolean":
        return None
    return [typed_value(param, c) for c in param["choices"]]


# issue 23: what a create sends for a free-text option left out whose API default is a placeholder (P35's zero values)
EMPTY_VALUES = {"string": '""', "json": "{}"}


def _must_give(param: dict[str, Any]) -> bool:
    return bool(param["required"]) and param["default"] is None


def option_spec(param: dict[str, Any], nested: bool = False) -> dict[str, Any]:
    """The ARGUMENT_SPEC entry of a param: type, elements/options, choices, no_log; no default (P40: nested params
    with defaults are plain optional options, never computed values) and, at the top level, not required
    (contracts.md: the core applies API defaults and create-required checks, P35/P36/P38).
    A sub-option the API requires without a default is required whenever its parent dict is given."""
    spec: dict[str, Any] = {"type": ANSIBLE_TYPES[param["type"]]}
    if param["type"] == "array":
        spec["elements"] = "dict" if param["sub_params"] else "str"
    if param["sub_params"] and param["type"] in ("array", "map-fixed"):
        spec["options"] = {sub["option"]: option_spec(sub, nested=True) for sub in param["sub_params"]}
    choices = _choices(param)
    if choices is not None:
        spec["choices"] = choices
    if nested and _must_give(param):
        spec["required"] = True
    if param["secret"]:
        spec["no_log"] = True
    elif _LOOKS_SECRET.search(param["option"]):
        spec["no_log"] = False
    return spec


def _code(value: str) -> str:
    """``C(value)`` markup, or a plain quoted value when it would break the markup."""
    return f"C({value})" if ")" not in value and "\n" not in value else json.dumps(value, ensure_ascii=False)


def option_doc(
    param: dict[str, Any],
    registry: dict[int, str],
    texts: ServiceTexts,
    what: str = "instance",
    parent: str | None = None,
) -> dict[str, Any]:
    """The DOCUMENTATION entry of a param: its English text (config/english.yml, issue 27; C18), then generated
    notes. ``parent``: the code path of the parent param of a sub-param."""
    path = param["code"] if parent is None else f"{parent}.{param['code']}"
    nested = parent is not None
    lines: list[str] = list(texts.param(path))
    lines.append(f"API parameter {_code(param['code'])} ({param['type']}).")
    if _must_give(param):
        lines.append(
            "Required whenever its parent option is given." if nested else f"Required when the {what} is created."
        )
    if param["default"] is not None:
        lines.append(f"When not set, the API default {_code(param['default'])} is used on create.")
    if param.get("placeholder") is not None:  # issue 23: the rule of generator/placeholders.py
        lines.append(f"The API proposes {_code(param['placeholder'])}, a placeholder the collection does not apply.")
        if not _must_give(param):
            empty = EMPTY_VALUES.get(param["type"], '""')
            lines.append(f"When not set, the create sends the empty value {_code(empty)}.")
    if param["ref_service_id"] is not None:
        target = registry.get(param["ref_service_id"])
        module = f"M(nubes.cloud.{target})" if target else f"service {param['ref_service_id']}"
        lines.append(f"The UUID or the display name of an instance of {module}; a name is resolved to its UUID.")
    if param["immutable"] and param["operations"]:
        lines.append(f"Set on create only (the API cannot modify it); compared when adopting an existing {what}.")
    if param["secret"]:
        lines.append("Secret: never returned or stored in the state.")
    doc: dict[str, Any] = {"description": lines, "type": ANSIBLE_TYPES[param["type"]]}
    if param["type"] == "array":
        doc["elements"] = "dict" if param["sub_params"] else "str"
    choices = _choices(param)
    if choices is not None:
        doc["choices"] = choices
    if param["sub_params"] and param["type"] in ("array", "map-fixed"):
        doc["suboptions"] = {sub["option"]: option_doc(sub, registry, texts, what, path) for sub in param["sub_params"]}
    if nested and _must_give(param):
        doc["required"] = True
    return doc
