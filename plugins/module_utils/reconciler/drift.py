# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Live drift: does a live object still hold what the task declares? (issue 25, replaces C17's record-only check)

Pure functions, no API calls. ``differs`` is the cheap first look on every apply step: every field the task declares
must be in the live object with the same value (the server adds defaults and other managers' fields, which never
count). Where it finds a difference, the caller confirms it with a server-side apply dry run (``comparable`` of the
dry-run answer against the live object), so defaulting and value normalisation (``500m`` vs ``0.5``) are never
reported as drift.

Ignore rules (per component and per object by annotation) name JSON pointers (RFC 6901) and field managers: their
fields are left out of the comparison and pinned to the live value on a write, so they are never reverted.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError

MODE_ENABLED = "enabled"  # detect and correct on every run (default)
MODE_WARN = "warn"  # detect and report, write nothing
MODE_DISABLED = "disabled"  # component-operator-runtime: digest plus reapply interval only
MODES = (MODE_ENABLED, MODE_WARN, MODE_DISABLED)

Token = Union[str, int]
Path = Tuple[Token, ...]
_SERVER_METADATA = ("managedFields", "resourceVersion", "generation")


@dataclass
class IgnoreRule:
    """Fields never reverted: JSON pointers and field managers, for the objects ``target`` selects (all if empty)."""

    paths: List[str] = field(default_factory=list)
    managers: List[str] = field(default_factory=list)
    target: Dict[str, str] = field(default_factory=dict)  # group, kind, namespace, name

    def selects(self, group: str, kind: str, namespace: str, name: str) -> bool:
        """Does the rule apply to this object?"""
        have = {"group": group, "kind": kind, "namespace": namespace, "name": name}
        return all(not value or have[key] == value for key, value in self.target.items())


def parse_pointer(pointer: str) -> Tuple[str, ...]:
    """RFC 6901 tokens of a JSON pointer (``/metadata/labels/app.kubernetes.io~1name``)."""
    if not pointer.startswith("/"):
        raise ValidationError(f"invalid ignore path {pointer!r}: a JSON pointer starts with '/', e.g. /spec/replicas")
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/"))


def split_list(value: str) -> List[str]:
    """A comma-separated annotation value as a list (blanks dropped)."""
    return [part.strip() for part in value.split(",") if part.strip()]


def parse_rules(raw: Sequence[Mapping[str, Any]]) -> List[IgnoreRule]:
    """Validated rules from the module option ``drift_detection.ignore``; a bad pointer is an error before writes."""
    rules: List[IgnoreRule] = []
    for entry in raw:
        paths = [str(p) for p in entry.get("paths") or []]
        for pointer in paths:
            parse_pointer(pointer)
        target = {k: str(v) for k, v in (entry.get("target") or {}).items() if v}
        rules.append(IgnoreRule(paths, [str(m) for m in entry.get("managers") or []], target))
    return rules


def _lookup(obj: Any, tokens: Sequence[str]) -> Tuple[bool, Any, Path]:
    """The value at the tokens (list indexes resolved), whether it is there, and the concrete path."""
    current = obj
    path: List[Token] = []
    for token in tokens:
        if isinstance(current, Mapping) and token in current:
            current = current[token]
            path.append(token)
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
            path.append(int(token))
        else:
            return False, None, tuple(path)
    return True, current, tuple(path)


def _match_key(item: Any, key: Mapping[str, Any]) -> bool:
    return isinstance(item, Mapping) and all(item.get(k) == v for k, v in key.items())


def _field_paths(fields: Mapping[str, Any], live: Any, prefix: Path, out: List[Path]) -> None:
    """Concrete paths of the leaves of a ``fieldsV1`` trie, resolved against the live object."""
    for key, sub in fields.items():
        if key == ".":
            out.append(prefix)
            continue
        kind, _sep, rest = key.partition(":")
        child: Any = None
        step: Optional[Token] = None
        if kind == "f" and isinstance(live, Mapping) and rest in live:
            step, child = rest, live[rest]
        elif kind == "k" and isinstance(live, list):
            wanted = json.loads(rest)
            step = next((i for i, item in enumerate(live) if _match_key(item, wanted)), None)
        elif kind == "v" and isinstance(live, list):
            value = json.loads(rest)
            step = next((i for i, item in enumerate(live) if item == value), None)
        elif kind == "i" and isinstance(live, list) and rest.isdigit() and int(rest) < len(live):
            step = int(rest)
        if step is None:
            continue
        if isinstance(step, int):
            child = live[step]
        if isinstance(sub, Mapping) and sub:
            _field_paths(sub, child, (*prefix, step), out)
        else:
            out.append((*prefix, step))


def ignored_paths(
    live: Mapping[str, Any], pointers: Sequence[str], managers: Sequence[str], live_only: bool = False
) -> List[Path]:
    """Concrete paths (in the live object) that the pointers name and that the managers own."""
    paths: List[Path] = []
    for pointer in pointers:
        found, _value, path = _lookup(live, parse_pointer(pointer))
        if found or not live_only:
            paths.append(path if found else tuple(parse_pointer(pointer)))
    wanted = set(managers)
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if entry.get("manager") in wanted:
            _field_paths(entry.get("fieldsV1") or {}, live, (), paths)
    return paths


def _has(parent: Any, token: Token) -> bool:
    """Is there a child at the token (a key of a dict, an index of a list)?"""
    if isinstance(parent, Mapping):
        return token in parent
    return isinstance(parent, list) and isinstance(token, int) and token < len(parent)


def _remove(obj: Any, path: Path) -> None:
    if not path:
        return
    parent: Any = obj
    for token in path[:-1]:
        if not _has(parent, token):
            return
        parent = parent[token]
    last = path[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
        parent[last] = None  # keep the other indexes stable


def _without(obj: Mapping[str, Any], paths: Sequence[Path]) -> Dict[str, Any]:
    if not paths:
        return dict(obj)  # nothing removed: no deep copy (the callers only read, or replace top-level keys)
    data: Dict[str, Any] = copy.deepcopy(dict(obj))
    for path in paths:
        _remove(data, path)
    return data


def comparable(obj: Mapping[str, Any], paths: Sequence[Path]) -> Dict[str, Any]:
    """An object as compared with another: no server bookkeeping, no status, no ignored fields."""
    data = copy.deepcopy(_without(obj, paths))
    data.pop("status", None)
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        for key in _SERVER_METADATA:
            metadata.pop(key, None)
    return data


def _contained(declared: Any, live: Any) -> bool:
    if isinstance(declared, Mapping):
        return isinstance(live, Mapping) and all(
            value is None or (key in live and _contained(value, live[key])) for key, value in declared.items()
        )
    if isinstance(declared, list):
        return (
            isinstance(live, list)
            and len(declared) == len(live)
            and all(d is None or _contained(d, v) for d, v in zip(declared, live))
        )
    return bool(declared == live)


def _as_stored(declared: Dict[str, Any]) -> Dict[str, Any]:
    """A Secret's ``stringData`` as the server stores it: base64 in ``data`` (it never shows ``stringData``)."""
    if declared.get("kind") != "Secret" or declared.get("apiVersion") != "v1" or "stringData" not in declared:
        return declared
    stored = dict(declared)
    data = dict(stored.get("data") or {})
    for key, value in (stored.pop("stringData") or {}).items():
        data[key] = base64.b64encode(str(value).encode("utf-8")).decode("ascii")
    stored["data"] = data
    return stored


def differs(body: Mapping[str, Any], live: Mapping[str, Any], paths: Sequence[Path]) -> bool:
    """First look: does the live object lack a declared field, or hold another value? (False negatives are
    impossible: a declared value the server would change is either equal in live or flagged here.)"""
    declared = _as_stored(_without(body, paths))
    return not _contained(declared, _without(live, paths))


def pin(body: Dict[str, Any], live: Mapping[str, Any], paths: Sequence[Path]) -> Dict[str, Any]:
    """The body to write with ignored fields kept as they are live (copied, or left out where live lacks them)."""
    if not paths:
        return body
    pinned: Dict[str, Any] = copy.deepcopy(body)
    for path in paths:
        found, value, _concrete = _lookup(live, [str(t) for t in path])
        if not path:
            continue
        if found:
            target: Any = pinned
            for token in path[:-1]:
                if isinstance(target, dict):
                    target = target.setdefault(token, {})
                elif isinstance(target, list) and isinstance(token, int) and token < len(target):
                    target = target[token]
                else:
                    target = None
                    break
            if isinstance(target, dict) or _has(target, path[-1]):
                target[path[-1]] = copy.deepcopy(value)
        elif isinstance(path[-1], str):
            _remove(pinned, path)  # live lacks it: leave it out (a list element is never removed by index)
    return pinned
