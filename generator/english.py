"""English documentation of the catalogue (issue 27): ``config/english.yml``, curated text per API param code, output
code, service and sub-resource, read by render for every option and output description and the module
descriptions. The catalogue's labels and manuals are Russian; they stay in the specs (P1) and on the MAN pages.

A text is looked up for one service: its own entry (``services.<name>.params.<code>``) first, then the shared
one (``params.<code>``). A missing text is an error naming the code and the file to add it to, raised for every
missing text at once before anything is rendered, so no generated option or output description lacks English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import GeneratorError

ENGLISH_PATH = "config/english.yml"
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_SECTIONS = ("params", "outputs", "services")
_SERVICE_KEYS = ("description", "params", "outputs", "subresources")


def _text(value: Any, where: str) -> list[str]:
    """A text: one paragraph or a list of paragraphs, each non-empty English (no Cyrillic)."""
    paragraphs = [value] if isinstance(value, str) else value
    if not isinstance(paragraphs, list) or not paragraphs or not all(isinstance(p, str) for p in paragraphs):
        raise GeneratorError(f"{where}: expected a text or a list of texts")
    cleaned = [" ".join(p.split()) for p in paragraphs]
    for paragraph in cleaned:
        if not paragraph:
            raise GeneratorError(f"{where}: empty text")
        if _CYRILLIC.search(paragraph):
            raise GeneratorError(f"{where}: the text must be English, found {paragraph!r}")
    return cleaned


def _texts(value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise GeneratorError(f"{where}: expected a mapping of codes to texts")
    return {code: _text(text, f"{where}.{code}") for code, text in value.items()}


@dataclass(frozen=True)
class ServiceTexts:
    """The English texts one service's modules use."""

    service: str
    description: list[str]
    params: dict[str, list[str]]  # code path -> paragraphs, the service's own merged over the shared ones
    outputs: dict[str, list[str]]
    subresources: dict[str, list[str]]

    def param(self, path: str) -> list[str]:
        """The text of a param by code path (``tlsSettings.type`` for a sub-param)."""
        return self.params[path]

    def output(self, code: str) -> str:
        return " ".join(self.outputs[code])

    def subresource(self, name: str) -> list[str]:
        return self.subresources[name]


@dataclass(frozen=True)
class English:
    """The parsed ``config/english.yml``."""

    params: dict[str, list[str]]
    outputs: dict[str, list[str]]
    services: dict[str, dict[str, Any]]

    def service_texts(self, specs: list[dict[str, Any]]) -> dict[str, ServiceTexts]:
        """The texts of every service by name. Every param, output and sub-resource of every spec must have one
        (C18: each option of a generated module is documented); all missing ones are named in one error."""
        found: dict[str, ServiceTexts] = {}
        missing: list[str] = []
        for spec in specs:
            name = spec["name"]
            own = self.services.get(name, {})
            params = {**self.params, **own.get("params", {})}
            outputs = {**self.outputs, **own.get("outputs", {})}
            lacking = missing_texts(spec, own, params, outputs)
            missing.extend(f"{name}: {item}" for item in lacking)
            if not lacking:
                found[name] = ServiceTexts(name, own["description"], params, outputs, own.get("subresources", {}))
        if missing:
            raise GeneratorError(
                f"{ENGLISH_PATH} has no English text for {len(missing)} item(s); write one for each (see the"
                " comment at the top of the file):\n  " + "\n  ".join(missing)
            )
        return found


def _param_paths(params: list[dict[str, Any]], prefix: str = "") -> list[str]:
    paths = []
    for param in params:
        path = prefix + param["code"]
        paths.append(path)
        paths.extend(_param_paths(param["sub_params"], path + "."))
    return paths


def missing_texts(
    spec: dict[str, Any], own: dict[str, Any], params: dict[str, Any], outputs: dict[str, Any]
) -> list[str]:
    """What the spec needs and the file lacks, each with the key to add."""
    name = spec["name"]
    missing = []
    if "description" not in own:
        missing.append(f"the service: add services.{name}.description")
    all_params = list(spec["params"]) + [p for sub in spec["subresources"] for p in sub["params"]]
    for path in sorted(set(_param_paths(all_params))):
        if path not in params:
            missing.append(f"param {path!r}: add params.{path} (or services.{name}.params.{path})")
    for out in spec["outputs"]:
        if out["code"] not in outputs:
            code = out["code"]
            missing.append(f"output {code!r}: add outputs.{code} (or services.{name}.outputs.{code})")
    for sub in spec["subresources"]:
        if sub["name"] not in own.get("subresources", {}):
            missing.append(f"sub-resource {sub['name']!r}: add services.{name}.subresources.{sub['name']}")
    return missing


def parse_english(data: Any, source: str = ENGLISH_PATH) -> English:
    """Validate the document: ``params``/``outputs`` map codes to texts; ``services`` map module names to
    ``description`` and optional ``params``, ``outputs`` and ``subresources``."""
    if not isinstance(data, dict):
        raise GeneratorError(f"{source}: expected a mapping with {', '.join(_SECTIONS)}")
    unknown = sorted(set(data) - set(_SECTIONS))
    if unknown:
        raise GeneratorError(f"{source}: unknown section {unknown[0]!r} (known: {', '.join(_SECTIONS)})")
    services: dict[str, dict[str, Any]] = {}
    raw_services = data.get("services") or {}
    if not isinstance(raw_services, dict):
        raise GeneratorError(f"{source}: 'services' must map module names to their texts")
    for name, entry in raw_services.items():
        where = f"{source}: services.{name}"
        if not isinstance(entry, dict):
            raise GeneratorError(f"{where}: expected a mapping with {', '.join(_SERVICE_KEYS)}")
        extra = sorted(set(entry) - set(_SERVICE_KEYS))
        if extra:
            raise GeneratorError(f"{where}: unknown key {extra[0]!r} (known: {', '.join(_SERVICE_KEYS)})")
        parsed: dict[str, Any] = {
            key: _texts(entry.get(key), f"{where}.{key}") for key in ("params", "outputs", "subresources")
        }
        if "description" in entry:
            parsed["description"] = _text(entry["description"], f"{where}.description")
        services[name] = parsed
    return English(
        _texts(data.get("params"), f"{source}: params"), _texts(data.get("outputs"), f"{source}: outputs"), services
    )


def load_english(path: Path) -> English:
    """Read and parse ``config/english.yml``."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GeneratorError(f"cannot read the English texts {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise GeneratorError(f"{path}: invalid YAML: {exc}") from exc
    return parse_english(data, str(path))
