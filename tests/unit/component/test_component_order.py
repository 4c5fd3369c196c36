"""Unit tests: the role's dependency order between components, depends_on (issue 25, C18)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from ansible_collections.nubes.cloud.plugins.plugin_utils.component_order import DependencyError, order_components


def item(name: str, *deps: str, namespace: str = "app") -> Dict[str, Any]:
    return {"name": name, "namespace": namespace, "depends_on": list(deps)}


def names(items: List[Dict[str, Any]]) -> List[str]:
    return [entry["name"] for entry in items]


def test_dependencies_first_list_order_otherwise() -> None:
    """C18: a component comes after its dependencies; independent ones keep the list's order."""
    items = [item("web", "api"), item("api", "db"), item("db"), item("docs")]
    ordered = order_components(items)
    assert names(ordered) == ["db", "api", "web", "docs"]
    assert ordered[0]["needed_by"] == ["app/api"] and ordered[0]["blocks"] == ["app/api", "app/web"]
    assert ordered[2]["depends_on"] == ["app/api"] and ordered[2]["blocks"] == []


def test_absent_deletes_in_reverse_order() -> None:
    """C18: with state absent the dependents go first; a failure blocks the dependencies' deletion."""
    ordered = order_components([item("web", "api"), item("api", "db"), item("db")], "absent")
    assert names(ordered) == ["web", "api", "db"]
    assert ordered[0]["blocks"] == ["app/api", "app/db"]


def test_namespace_qualified_and_same_namespace_names() -> None:
    """C18: namespace/name picks one of two same-named components; a bare name prefers the dependent's namespace."""
    items = [item("db", namespace="a"), item("db", namespace="b"), item("web", "db", "a/db", namespace="b")]
    ordered = order_components(items)
    assert ordered[-1]["depends_on"] == ["b/db", "a/db"]
    with pytest.raises(DependencyError, match="ambiguous"):
        order_components([item("db", namespace="a"), item("db", namespace="b"), item("web", "db", namespace="c")])


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([item("a", "b"), item("b", "c"), item("c", "a")], "cycle: app/a -> app/b -> app/c -> app/a"),
        ([item("a", "a")], "cycle: app/a -> app/a"),
        ([item("a", "nope")], "component app/a depends on 'nope', which is not in components (app/a)"),
        ([item("a"), item("a")], "lists app/a more than once"),
        ([{"name": "a", "namespace": "app", "depends_on": 3}], "must be a list"),
    ],
)
def test_cycles_and_unknown_names_are_errors(items: List[Dict[str, Any]], message: str) -> None:
    """C18: a cycle (shown as a path), an unknown name or a duplicate is an error naming the components."""
    with pytest.raises(DependencyError) as err:
        order_components(items)
    assert message in str(err.value)
