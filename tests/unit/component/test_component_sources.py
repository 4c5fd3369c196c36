"""Unit tests of source kinds and manifest loading (no cluster): templating is opt-in per source, lists are
expanded as kubectl does, a plain '=' is a string as in Go YAML, kustomize builds where the source is, a Helm chart
is rendered where it is and becomes the apply set of the component's revision (the helm tests use the real helm)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Mapping, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component import manifests
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError, SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderInput
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import (
    ReadInput,
    read_source,
    render_delete_hooks,
    render_source,
    resolve_kind,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command

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


SHOP = Path(__file__).resolve().parents[2] / "charts" / "shop"


def _placed(namespace: str = "team-a", name: str = "shop", **fields: Any) -> RenderInput:
    return RenderInput(
        files={}, spec={}, namespace=namespace, name=name, component_namespace="team-a", component_name="shop", **fields
    )


def test_auto_detects_a_chart_before_anything_else(tmp_path: Path) -> None:
    """auto: a directory with Chart.yaml (even with a kustomization.yaml) or a .tgz file is a Helm chart."""
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n", encoding="utf-8")
    (tmp_path / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    (tmp_path / "c-0.1.0.tgz").write_bytes(b"")
    assert resolve_kind(str(tmp_path)) == "helm"
    assert resolve_kind(str(tmp_path / "c-0.1.0.tgz")) == "helm"


def test_helm_source_is_read_on_the_controller_and_rendered_per_revision(helm_binary: str) -> None:
    """C2, C10: the chart is rendered as the placement's release with the spec as values and travels as one file;
    the module makes the apply set for the revision (install hooks at 1, upgrade hooks from 2) with the task's
    annotation prefix (C15), and the delete-phase sets."""
    read_input = ReadInput(
        run_command=run_command,
        spec={"greeting": "moin"},
        namespace="team-a",
        name="shop",
        helm={"helm_binary": helm_binary},
    )
    read = read_source(str(SHOP), read_input=read_input)
    assert (read["kind"], list(read["files"])) == ("helm", ["helm-render.json"])
    install = render_source("helm", read["files"], _placed(revision=1, annotation_prefix="apps.example.com"))
    names = {o["metadata"]["name"]: o["metadata"].get("annotations") or {} for o in install}
    assert names["shop-pre-config"]["apps.example.com/apply-order"] == "-99"
    assert "shop-farewell" not in names and "shop-goodbye" not in names
    upgrade = {
        o["metadata"]["name"]: o["metadata"]["annotations"]
        for o in render_source("helm", read["files"], _placed(revision=2))
        if o["metadata"].get("annotations")
    }
    policy = "component.nubes.cloud/reconcile-policy"
    assert (names["shop-migrate"]["apps.example.com/reconcile-policy"], upgrade["shop-migrate"][policy]) == (
        "once",
        "on-object-or-component-change",  # pre-install,pre-upgrade: runs again on every change from revision 2
    )
    settings = next(o for o in install if o["metadata"]["name"] == "shop-settings")
    assert settings["data"]["greeting"] == "moin"
    hooks = render_delete_hooks("helm", read["files"], _placed())
    assert {phase: [o["metadata"]["name"] for o in objs] for phase, objs in hooks.items()} == {
        "pre-delete": ["shop-farewell"],
        "post-delete": ["shop-goodbye"],
    }
    assert render_delete_hooks("manifests", {}, _placed()) == {}


def test_helm_render_must_match_the_placement(helm_binary: str) -> None:
    """C10: a chart rendered as another release than the component's placement is refused (not applied)."""
    read_input = ReadInput(run_command=run_command, namespace="team-a", name="shop", helm={"helm_binary": helm_binary})
    files = read_source(str(SHOP), "helm", read_input)["files"]
    with pytest.raises(
        RenderError, match="rendered as release team-a/shop, but the component's placement is team-b/shop"
    ):
        render_source("helm", files, _placed(namespace="team-b"))


def test_helm_source_without_its_render() -> None:
    """source_kind helm with file contents that are not a rendered chart: a clear error."""
    with pytest.raises(RenderError, match="needs the rendered chart"):
        render_source("helm", {"a.yaml": RULE}, _placed())
    with pytest.raises(RenderError, match="is not a rendered chart"):
        render_source("helm", {"helm-render.json": "[]"}, _placed())
