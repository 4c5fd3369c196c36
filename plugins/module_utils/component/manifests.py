# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes manifests from YAML or JSON text, as kubectl reads them.

- The libyaml C loader (``yaml.CSafeLoader``) when PyYAML has it: large manifest sets (CRDs of hundreds of KiB)
  parse several times faster.
- YAML that Go's parser accepts and PyYAML's safe loader rejects: a plain ``=`` scalar (PyYAML resolves it to the
  YAML 1.1 ``tag:yaml.org,2002:value`` and has no constructor for it) is the string ``"="``, as in Go.
- Any ``*List`` document with ``items`` (``kind: List``, ``ConfigMapList``, ...) is expanded into its items, as
  kubectl does; items of a typed list may leave out apiVersion and kind (taken from the list).
"""

from __future__ import annotations

from typing import Any, Dict, List

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError

try:
    import yaml

    HAS_YAML = True
    _BASE_LOADER: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
except ImportError:  # pragma: no cover - reported when a manifest is parsed
    HAS_YAML = False
    _BASE_LOADER = object

VALUE_TAG = "tag:yaml.org,2002:value"


class ManifestLoader(_BASE_LOADER):
    """Safe loader (C-accelerated where available) that reads ``=`` as the string it is in Go YAML."""


if HAS_YAML:
    ManifestLoader.add_constructor(VALUE_TAG, yaml.SafeLoader.construct_yaml_str)


def load_all(text: str) -> List[Any]:
    """All documents of a YAML (or JSON) text; yaml.YAMLError on invalid YAML."""
    return list(yaml.load_all(text, Loader=ManifestLoader))  # a SafeLoader subclass


def load(text: str) -> Any:
    """The single document of a YAML (or JSON) text."""
    return yaml.load(text, Loader=ManifestLoader)  # a SafeLoader subclass


def yaml_position(exc: Any) -> str:
    """``, line N`` of a YAML error, when known."""
    mark = getattr(exc, "problem_mark", None)
    return f", line {mark.line + 1}" if mark is not None else ""


def yaml_problem(exc: Any) -> str:
    """What a YAML error says."""
    return str(getattr(exc, "problem", None) or exc)


def is_list(document: Any) -> bool:
    """A list document: kind ``List`` or ``<Kind>List`` with an ``items`` list (kubectl expands them)."""
    return (
        isinstance(document, dict)
        and str(document.get("kind") or "").endswith("List")
        and isinstance(document.get("items"), list)
    )


def list_items(document: Dict[str, Any]) -> List[Any]:
    """The items of a list document; items of a typed list (``ConfigMapList``) get the list's apiVersion and kind."""
    kind = str(document.get("kind"))
    item_kind = kind[: -len("List")] if kind != "List" else ""
    items: List[Any] = []
    for item in document["items"]:
        if isinstance(item, dict) and item_kind:
            item = dict(item)
            item.setdefault("apiVersion", document.get("apiVersion"))
            item.setdefault("kind", item_kind)
        items.append(item)
    return items


def parse_manifests(text: str, origin: str) -> List[Dict[str, Any]]:
    """Objects of a multi-document YAML (or JSON) text; list documents are expanded; empty documents skipped."""
    if not HAS_YAML:
        raise RenderError("the Python package PyYAML is required on the host running the module")
    try:
        documents = load_all(text)
    except yaml.YAMLError as exc:
        raise RenderError(f"{origin}{yaml_position(exc)}: invalid YAML: {yaml_problem(exc)}") from None
    objects: List[Dict[str, Any]] = []
    for number, document in enumerate(documents, start=1):
        if document is None:
            continue
        candidates = list_items(document) if is_list(document) else [document]
        for candidate in candidates:
            objects.append(check_object(candidate, f"{origin}, document {number}"))
    return objects


def check_object(candidate: Any, origin: str) -> Dict[str, Any]:
    """A desired object must be a mapping with apiVersion, kind and metadata.name."""
    if not isinstance(candidate, dict):
        raise RenderError(f"{origin}: not a mapping; every document must be a Kubernetes object")
    missing = [key for key in ("apiVersion", "kind") if not candidate.get(key)]
    name = (candidate.get("metadata") or {}).get("name") if isinstance(candidate.get("metadata"), dict) else None
    if missing:
        raise RenderError(
            f"{origin} (name {name or '?'}): object without {' and '.join(missing)}; every object needs apiVersion, "
            "kind and metadata.name"
        )
    if not name:
        raise RenderError(f"{origin} ({candidate['kind']}): object without metadata.name")
    return candidate


def inline_definitions(definitions: Any) -> List[Dict[str, Any]]:
    """Objects given inline (never templated): a list of mappings, one mapping, or a (multi-document) YAML string."""
    if isinstance(definitions, str):
        return parse_manifests(definitions, "definitions")
    if isinstance(definitions, dict):
        definitions = list_items(definitions) if is_list(definitions) else [definitions]
    if not isinstance(definitions, list):
        raise RenderError("definitions must be a list of objects, one object, or a YAML string")
    objects: List[Dict[str, Any]] = []
    for number, obj in enumerate(definitions, start=1):
        for candidate in list_items(obj) if is_list(obj) else [obj]:
            objects.append(check_object(candidate, f"definitions item {number}"))
    return objects
