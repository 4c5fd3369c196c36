"""Unit tests of source kinds and manifest loading (no cluster): templating is opt-in per source, lists are
expanded as kubectl does, a plain '=' is a string as in Go YAML, kustomize builds where the source is."""

from __future__ import annotations

from pathlib import Path
from typing import List, Mapping, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component import manifests
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderInput
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import (
    ReadInput,
    read_source,
    render_source,
    resolve_kind,
)

RULE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rules\ndata:\n  alert: '{{ $labels.instance }} down'\n"


def _input() -> RenderInput:
    return RenderInput(files={}, spec={"x": 1}, namespace="ns", name="n", component_namespace="ns", component_name="n")


def test_auto_detects_kustomize_and_manifests_but_never_templates(tmp_path: Path) -> None:
    """auto: a kustomization.yaml -> kustomize, else manifests; *.j2 or .component-config.yaml -> an error that
    asks for source_kind (templating is opt-in)."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "rules.yaml").write_text(RULE, encoding="utf-8")
    (tmp_path / "kust").mkdir()
    (tmp_path / "kust" / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    (tmp_path / "tmpl").mkdir()
    (tmp_path / "tmpl" / ".component-config.yaml").write_text("values: {}\n", encoding="utf-8")
    assert resolve_kind(str(tmp_path / "plain")) == "manifests"
    assert resolve_kind(str(tmp_path / "kust")) == "kustomize"
    assert resolve_kind(str(tmp_path / "tmpl"), "templates") == "templates"
    with pytest.raises(SourceError, match="templating is opt-in: set source_kind: templates"):
        resolve_kind(str(tmp_path / "tmpl"))


def test_plain_manifests_are_not_templated(tmp_path: Path) -> None:
    """Prometheus-style text stays as it is in a manifests source; the same file as a template is a Jinja2 error."""
    (tmp_path / "rules.yaml").write_text(RULE, encoding="utf-8")
    read = read_source(str(tmp_path))
    objects = render_source(read["kind"], read["files"], _input())
    assert objects[0]["data"]["alert"] == "{{ $labels.instance }} down"
    with pytest.raises(Exception, match="syntax error"):
        render_source("templates", read["files"], _input())


def test_kustomize_is_built_in_place(tmp_path: Path) -> None:
    """The kustomize build gets the source's own path (so ../base resolves); its output is never templated."""
    (tmp_path / "kustomization.yaml").write_text("resources: [../base]\n", encoding="utf-8")
    calls: List[List[str]] = []

    def run(argv: List[str], environ_update: Optional[Mapping[str, str]] = None) -> Tuple[int, str, str]:
        calls.append(argv)
        return 0, RULE, ""

    read = read_source(str(tmp_path), "kustomize", ReadInput(run_command=run))
    assert calls[0][-1] == str(tmp_path)
    assert render_source(read["kind"], read["files"], _input())[0]["data"]["alert"] == "{{ $labels.instance }} down"


def test_lists_are_expanded_like_kubectl() -> None:
    """kind List and typed lists (items without apiVersion/kind take them from the list)."""
    text = (
        "apiVersion: v1\nkind: ConfigMapList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n---\n"
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: c}}\n"
    )
    objects = manifests.parse_manifests(text, "file x")
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ConfigMap", "a"),
        ("ConfigMap", "b"),
        ("Secret", "c"),
    ]
    assert objects[0]["apiVersion"] == "v1"


def test_plain_equals_is_a_string_as_in_go() -> None:
    """A plain '=' (enum value or key) is the string '=' (PyYAML alone: 'could not determine a constructor')."""
    loaded = manifests.load("enum: [=, '!=']\n=: shorthand\n")
    assert loaded == {"enum": ["=", "!="], "=": "shorthand"}


def test_the_libyaml_loader_is_used_where_pyyaml_has_it() -> None:
    """Large bundles parse with the C loader (yaml.CSafeLoader) when PyYAML was built with libyaml."""
    import yaml

    assert issubclass(manifests.ManifestLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
