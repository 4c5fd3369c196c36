# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Dependencies between the components of the nubes.cloud.component role (issue 25, C18): ``depends_on``.

``order_components`` puts the role's ``components`` in dependency order (the list's order among independent ones),
reversed for ``state: absent``, and tells each item which components wait for it. A cycle or a name that is not in
the list is a ``DependencyError`` raised on the controller before any component task runs.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Set


class DependencyError(ValueError):
    """``depends_on`` names an unknown component, is ambiguous, or the dependencies form a cycle."""


def _key(item: Mapping[str, Any]) -> str:
    return f"{item.get('namespace')}/{item.get('name')}"


def _resolve(item: Mapping[str, Any], ref: Any, items: Sequence[Mapping[str, Any]]) -> str:
    """A ``depends_on`` entry (``name``, or ``namespace/name`` when names repeat) -> the key of an item."""
    if not isinstance(ref, str) or not ref:
        raise DependencyError(f"component {_key(item)}: depends_on entries are component names, got {ref!r}")
    keys = [_key(other) for other in items]
    if "/" in ref:
        if ref in keys:
            return ref
        found: List[str] = []
    else:
        found = [_key(o) for o in items if o.get("name") == ref]
        if len(found) > 1:  # the same name in several namespaces: the dependent's own namespace first
            found = [k for k in found if k == f"{item.get('namespace')}/{ref}"] or found
        if len(found) == 1:
            return found[0]
    if len(found) > 1:
        raise DependencyError(
            f"component {_key(item)}: depends_on {ref!r} is ambiguous ({', '.join(found)}); write namespace/name"
        )
    raise DependencyError(
        f"component {_key(item)} depends on {ref!r}, which is not in components ({', '.join(keys)}); "
        "fix the name or add the component to the list"
    )


def _cycle(graph: Mapping[str, Sequence[str]], nodes: Sequence[str]) -> List[str]:
    """One cycle among ``nodes`` (each has a dependency left among them), as a path that ends where it starts."""
    path: List[str] = [nodes[0]]
    seen: Dict[str, int] = {nodes[0]: 0}
    while True:
        nxt = next(dep for dep in graph[path[-1]] if dep in nodes)
        if nxt in seen:
            return [*path[seen[nxt] :], nxt]
        seen[nxt] = len(path)
        path.append(nxt)


def _closure(start: str, edges: Mapping[str, Sequence[str]]) -> List[str]:
    """Every key reachable from ``start`` over ``edges`` (not ``start`` itself), sorted."""
    found: Set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        key = todo.pop()
        if key not in found:
            found.add(key)
            todo.extend(edges.get(key, ()))
    return sorted(found)


def order_components(items: Sequence[Mapping[str, Any]], state: str = "present") -> List[Dict[str, Any]]:
    """The items in dependency order (reversed for ``state`` absent), each a copy with ``depends_on`` resolved to
    ``namespace/name`` keys, ``needed_by`` (the components that depend on it directly) and ``blocks`` (every
    component that cannot run if this one fails: its dependents when applying, its dependencies when deleting)."""
    keys = [_key(item) for item in items]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise DependencyError(f"components lists {', '.join(duplicates)} more than once; list each component once")
    graph: Dict[str, List[str]] = {}
    for item in items:
        refs = item.get("depends_on") or []
        if isinstance(refs, str):
            refs = [refs]
        if not isinstance(refs, list):
            raise DependencyError(f"component {_key(item)}: depends_on must be a list of component names")
        graph[_key(item)] = list(dict.fromkeys(_resolve(item, ref, items) for ref in refs))
    dependents: Dict[str, List[str]] = {key: [] for key in keys}
    for key, deps in graph.items():
        for dep in deps:
            dependents[dep].append(key)
    ordered: List[str] = []
    remaining = list(keys)
    while remaining:  # Kahn's algorithm, stable: the first ready item in the list's order goes first
        ready = next((k for k in remaining if all(d in ordered for d in graph[k])), None)
        if ready is None:
            cycle = _cycle(graph, remaining)
            raise DependencyError(
                f"components depend on each other in a cycle: {' -> '.join(cycle)}; remove one of these depends_on"
            )
        ordered.append(ready)
        remaining.remove(ready)
    absent = state == "absent"
    by_key = {_key(item): item for item in items}
    result: List[Dict[str, Any]] = []
    for key in reversed(ordered) if absent else ordered:
        entry = dict(by_key[key])
        entry["depends_on"] = graph[key]
        entry["needed_by"] = dependents[key]
        entry["blocks"] = _closure(key, graph if absent else dependents)
        result.append(entry)
    return result
