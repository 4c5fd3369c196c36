"""Unit tests of the component generators (no cluster): templates, config, sandbox, manifests, kustomize runner."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import RenderError
from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import (
    inline_definitions,
    parse_manifests,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.render import RenderInput, deep_merge, render_files


def _render(files: Dict[str, str], spec: Dict[str, Any] | None = None, **kwargs: Any) -> List[Dict[str, Any]]:
    return render_files(
        RenderInput(
            files=files,
            spec=spec or {},
            namespace=kwargs.pop("namespace", "deploy-ns"),
            name=kwargs.pop("name", "deploy-name"),
            component_namespace="comp-ns",
            component_name="comp",
            **kwargs,
        )
    )


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n"


def test_deep_merge_keeps_defaults_and_overrides() -> None:
    """C2: values = defaults deep-merged with the spec; the spec is not modified."""
    spec = {"a": {"b": 2}, "list": [3]}
    merged = deep_merge({"a": {"b": 1, "c": 1}, "list": [1, 2], "d": 4}, spec)
    assert merged == {"a": {"b": 2, "c": 1}, "list": [3], "d": 4}
    merged["a"]["b"] = 99
    assert spec == {"a": {"b": 2}, "list": [3]}


def test_every_file_is_a_template_and_only_manifests_become_objects() -> None:
    """C2, C4, C10: every file is rendered with values, placement name/namespace and component identity; only
    .yaml/.yml/.json files give objects."""
    files = {
        ".component-config.yaml": "values:\n  size: 1\n",
        "a.yaml": CM + "data:\n  size: '{{ values.size }}'\n  ns: {{ namespace }}\n  comp: {{ component.name }}\n",
        "NOTES.txt": "{{ values.size }} is not an object",
    }
    objects = _render(files, {"size": 3})
    assert objects == [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "deploy-name"},
            "data": {"size": "3", "ns": "deploy-ns", "comp": "comp"},
        }
    ]


def test_a_j2_manifest_without_a_suffix_is_an_error() -> None:
    """C2: without a ``template_suffix`` every file is a template and keeps its name (component-operator-runtime's
    rule), so ``cm.yaml.j2`` is no manifest; rather than dropping its objects silently, rendering fails and says
    how to fix it. With the suffix configured the same file gives its objects."""
    files = {"cm.yaml.j2": CM, "plain.yaml": CM.replace("{{ name }}", "plain")}
    with pytest.raises(RenderError, match=r"template cm.yaml.j2: .*set `template_suffix: .j2`"):
        _render(files)
    names = sorted(
        o["metadata"]["name"] for o in _render({**files, ".component-config.yaml": "template_suffix: .j2\n"})
    )
    assert names == ["deploy-name", "plain"]


def test_template_suffix_and_ignore() -> None:
    """Only files with the suffix are templates (suffix stripped); other files are copied; ignored files vanish."""
    files = {
        ".component-config.yaml": "template_suffix: .j2\nignore: ['skip/*']\n",
        "t.yaml.j2": CM,
        "plain.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ literal }}'\n",
        "skip/x.yaml": "not: [valid",
    }
    names = sorted(o["metadata"]["name"] for o in _render(files))
    assert names == ["deploy-name", "{{ literal }}"]


def test_filters() -> None:
    """Helper filters to_yaml, to_json, b64encode, required."""
    files = {
        "a.yaml": CM + "data:\n  j: '{{ values.m | to_json }}'\n  b: {{ 'x' | b64encode }}\n"
        "  r: {{ values.r | required('r is needed') }}\n  y: |\n    {{ values.m | to_yaml | indent(4) }}\n"
    }
    data = _render(files, {"m": {"k": 1}, "r": "ok"})[0]["data"]
    assert data == {"j": '{"k": 1}', "b": "eA==", "r": "ok", "y": "k: 1\n"}
    with pytest.raises(RenderError, match=r"template a.yaml, line 8: r is needed"):
        _render(files, {"m": {"k": 1}})


def test_undefined_value_names_file_and_line() -> None:
    """Render errors carry the file and line."""
    files = {"ok.yaml": CM, "bad.yaml": CM + "data:\n  x: {{ values.missing }}\n"}
    with pytest.raises(RenderError, match=r"template bad.yaml, line 6: .*missing"):
        _render(files)


def test_syntax_error_names_file_and_line() -> None:
    """Template syntax errors carry the file and line."""
    with pytest.raises(RenderError, match=r"template s.yaml, line 2: syntax error"):
        _render({"s.yaml": "a: 1\nb: {{ oops(\n"})


def test_sandbox_blocks_python_internals() -> None:
    """C2: spec values cannot execute code: the sandbox refuses access to internals and mutation."""
    with pytest.raises(RenderError, match=r"sandbox|unsafe|not allowed|has no attribute"):
        _render({"e.yaml": "x: '{{ values.__class__.__mro__ }}'\n"})
    with pytest.raises(RenderError):
        _render({"e.yaml": "x: '{{ values.l.append(1) }}'\n"}, {"l": []})


def test_lookup_uses_the_given_callback() -> None:
    """Templates can look up live objects through the module's callback."""
    seen: List[Tuple[str, str, str, str]] = []

    def lookup(api_version: str, kind: str, name: str, namespace: str) -> Dict[str, Any]:
        seen.append((api_version, kind, name, namespace))
        return {"data": {"v": "live"}}

    files = {"a.yaml": CM + "data:\n  v: {{ lookup('v1', 'ConfigMap', 'src', 'ns1').data.v }}\n"}
    assert _render(files, lookup=lookup)[0]["data"] == {"v": "live"}
    assert seen == [("v1", "ConfigMap", "src", "ns1")]


def test_objects_without_kind_or_name_are_rejected() -> None:
    """Objects without apiVersion/kind/name fail with the file and document number."""
    with pytest.raises(RenderError, match=r"file a.yaml, document 2 \(name x\): object without kind"):
        _render({"a.yaml": CM + "---\napiVersion: v1\nmetadata:\n  name: x\n"})
    with pytest.raises(RenderError, match=r"without metadata\.name"):
        inline_definitions([{"apiVersion": "v1", "kind": "ConfigMap"}])


def test_invalid_yaml_names_line() -> None:
    """YAML errors carry the line."""
    with pytest.raises(RenderError, match=r"f.yaml, line 2: invalid YAML"):
        parse_manifests("a: 1\n  b: 2\n", "f.yaml")


def test_list_kind_is_expanded_and_empty_documents_skipped() -> None:
    """kind: List items become objects; empty documents (e.g. from an if) are skipped."""
    text = "---\n---\napiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
    assert [o["metadata"]["name"] for o in parse_manifests(text, "x")] == ["a"]


def test_inline_definitions_forms() -> None:
    """Inline definitions: list, single mapping or YAML text."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    assert inline_definitions([obj]) == [obj]
    assert inline_definitions(obj) == [obj]
    assert inline_definitions("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n") == [obj]


def test_kustomize_runs_through_the_runner() -> None:
    """A kustomization.yaml makes the rendered files a kustomize build, run by the module's command runner."""
    calls: List[List[str]] = []

    def runner(argv: List[str], environ_update: Optional[Mapping[str, str]] = None) -> Tuple[int, str, str]:
        calls.append(argv)
        return 0, CM.replace("{{ name }}", "built"), ""

    files = {"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": CM}
    objects = _render(files, run_command=runner, kustomize_command=["kustomize", "build"])
    assert objects[0]["metadata"]["name"] == "built"
    assert calls[0][:2] == ["kustomize", "build"]

    def failing(argv: List[str], environ_update: Optional[Mapping[str, str]] = None) -> Tuple[int, str, str]:
        return 1, "", f"Error: accumulating resources in {argv[-1]}"

    with pytest.raises(RenderError, match="kustomize build of <rendered templates> failed: Error: accumulating"):
        _render(files, run_command=failing, kustomize_command=["kustomize", "build"])


def test_unknown_config_key_is_rejected() -> None:
    """.component-config.yaml accepts only values, template_suffix and ignore."""
    with pytest.raises(RenderError, match="unknown key"):
        _render({".component-config.yaml": "valeus: {}\n", "a.yaml": CM})
