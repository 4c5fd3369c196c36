# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Health rules for custom resources (issue 25): per group/kind, what makes an object ready and what makes it failed.

kstatus (``readiness.analyze``) stays the default; a rule replaces it for the objects of its group and kind, as
Flux's CEL health checks, Argo CD's Lua health and kapp's wait rules do. A check is a condition
(``{condition: Ready, status: "True"}``, optionally ``reason``), a field given as a JSON pointer with the value
it must have (``{field: /status/phase, value: Running}``), or a field that must be present, i.e. exist and not be
empty (``{field: /status/loadBalancer/ingress, present: true}``; ``present: false``: missing or empty). A rule that
does not parse is a ``ValidationError``: callers parse the rules before any write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError, ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import StatusHints
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.readiness import Analyzer, Result, analyze

RULE_KEYS = ("group", "kind", "ready", "failed")
CHECK_FORMS = (
    '{condition: TYPE, status: "True"|"False"|"Unknown", reason: R}, {field: /json/pointer, value: V} or '
    "{field: /json/pointer, present: true|false}"
)
_MISSING = object()


class HealthFailedError(EngineError):
    """An object matched the ``failed`` check of its health rule: the run stops at once (not retried)."""


@dataclass(frozen=True)
class Check:
    """One condition check (``condition``, ``status``, ``reason``), one field check (``pointer``, ``value``) or one
    presence check (``pointer``, ``present``: True or False; None for the other forms)."""

    condition: str = ""
    status: str = "True"
    reason: str = ""
    pointer: Tuple[str, ...] = ()
    value: Any = None
    present: Optional[bool] = None

    def describe(self) -> str:
        """``condition Ready=True``, ``field /status/phase == 'Running'`` or ``field /status/x present``."""
        if self.condition:
            reason = f" (reason {self.reason})" if self.reason else ""
            return f"condition {self.condition}={self.status}{reason}"
        if self.present is not None:
            return f"field /{'/'.join(self.pointer)} {'present' if self.present else 'absent'}"
        return f"field /{'/'.join(self.pointer)} == {self.value!r}"


@dataclass(frozen=True)
class HealthRule:
    """The rule of one group and kind (group "" is the core group)."""

    group: str
    kind: str
    ready: Check
    failed: Optional[Check] = None


def _where(index: int, key: str = "") -> str:
    return f"health_rules[{index}]" + (f".{key}" if key else "")


def _pointer(text: Any, where: str) -> Tuple[str, ...]:
    if not isinstance(text, str) or not text.startswith("/") or text == "/":
        raise ValidationError(f"{where}.field: {text!r} is not a JSON pointer; write it as /status/phase")
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/"))


def _check(value: Any, where: str) -> Check:
    if not isinstance(value, Mapping):
        raise ValidationError(f"{where}: expected {CHECK_FORMS}, got {value!r}")
    keys = set(value)
    if "condition" in keys and keys <= {"condition", "status", "reason"}:
        ctype, status, reason = value["condition"], value.get("status", "True"), value.get("reason", "")
        if isinstance(status, bool):
            status = "True" if status else "False"  # YAML's unquoted True
        if not isinstance(ctype, str) or not ctype.strip():
            raise ValidationError(f"{where}.condition: expected a condition type such as Ready, got {ctype!r}")
        if status not in ("True", "False", "Unknown"):
            raise ValidationError(f'{where}.status: expected "True", "False" or "Unknown", got {status!r}')
        if not isinstance(reason, str):
            raise ValidationError(f"{where}.reason: expected a string, got {reason!r}")
        return Check(condition=ctype.strip(), status=status, reason=reason)
    if "field" in keys and keys == {"field", "value"}:
        return Check(pointer=_pointer(value["field"], where), value=value["value"])
    if "field" in keys and keys == {"field", "present"}:
        # issue 25: the presence form, e.g. a LoadBalancer Service's /status/loadBalancer/ingress (an address)
        if not isinstance(value["present"], bool):
            raise ValidationError(f"{where}.present: expected true or false, got {value['present']!r}")
        return Check(pointer=_pointer(value["field"], where), present=value["present"])
    raise ValidationError(f"{where}: expected {CHECK_FORMS}, got {dict(value)!r}")


def parse_health_rules(raw: Optional[Sequence[Any]]) -> List[HealthRule]:
    """Parse the task's ``health_rules`` list; every mistake is a ValidationError naming the rule and its key."""
    rules: List[HealthRule] = []
    seen: Dict[Tuple[str, str], int] = {}
    for index, entry in enumerate(raw or []):
        if not isinstance(entry, Mapping):
            raise ValidationError(f"{_where(index)}: expected a mapping with group, kind, ready and failed")
        unknown = sorted(set(entry) - set(RULE_KEYS))
        if unknown:
            raise ValidationError(f"{_where(index)}: unknown key(s) {', '.join(unknown)}; use {', '.join(RULE_KEYS)}")
        group, kind = entry.get("group", ""), entry.get("kind")
        if not isinstance(group, str):
            raise ValidationError(f'{_where(index, "group")}: expected an API group ("" for the core group)')
        if not isinstance(kind, str) or not kind:
            raise ValidationError(f"{_where(index, 'kind')}: expected a kind such as Certificate")
        if entry.get("ready") is None:
            raise ValidationError(f"{_where(index, 'ready')}: required, {CHECK_FORMS}")
        if (group, kind) in seen:
            raise ValidationError(
                f"{_where(index)}: a second rule for {kind}.{group}, see health_rules[{seen[(group, kind)]}]"
            )
        seen[(group, kind)] = index
        failed = entry.get("failed")
        rules.append(
            HealthRule(
                group=group,
                kind=kind,
                ready=_check(entry["ready"], _where(index, "ready")),
                failed=_check(failed, _where(index, "failed")) if failed is not None else None,
            )
        )
    return rules


def _lookup(obj: Any, pointer: Tuple[str, ...]) -> Any:
    cur = obj
    for part in pointer:
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def _same(live: Any, expected: Any) -> bool:
    if live == expected:
        return True
    scalars = (str, int, float, bool)  # "3" matches 3, "true" matches true: YAML and JSON disagree on quotes
    return isinstance(live, scalars) and isinstance(expected, scalars) and str(live).lower() == str(expected).lower()


def matches(check: Check, obj: Mapping[str, Any]) -> Tuple[bool, str]:
    """(does the object pass the check, what the object says)."""
    if check.condition:
        conditions = _lookup(obj, ("status", "conditions"))
        for cond in conditions if isinstance(conditions, list) else []:
            if isinstance(cond, Mapping) and cond.get("type") == check.condition:
                ok = cond.get("status") == check.status and (not check.reason or cond.get("reason") == check.reason)
                said = f"{check.condition}={cond.get('status')}"
                if cond.get("reason"):
                    said += f" ({cond.get('reason')})"
                if cond.get("message"):
                    said += f": {cond.get('message')}"
                return ok, said
        return False, f"no {check.condition} condition yet"
    live = _lookup(obj, check.pointer)
    shown = "missing" if live is _MISSING else repr(live)
    if check.present is not None:
        return _present(live) == check.present, f"/{'/'.join(check.pointer)} is {shown}"
    return live is not _MISSING and _same(live, check.value), f"/{'/'.join(check.pointer)} is {shown}"


def _present(live: Any) -> bool:
    """The field exists and is not empty: null, "", [] and {} count as absent (an address list not filled yet)."""
    return live is not _MISSING and live is not None and live not in ("", [], {})


def _describe(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
    return f"{obj.get('kind')} {where}{meta.get('name')}"


def _reference(obj: Mapping[str, Any]) -> str:
    """The object as the inventory names it (``Kind.group namespace/name``)."""
    group, kind = _group_of(obj), str(obj.get("kind", ""))
    meta = obj.get("metadata") or {}
    where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
    kind_group = f"{kind}.{group}" if group else kind
    return f"{kind_group} {where}{meta.get('name')}"


def evaluate(rule: HealthRule, obj: Mapping[str, Any]) -> Result:
    """The kstatus string of an object under its rule. Not yet observed (``status.observedGeneration`` behind
    ``metadata.generation``) is InProgress, so an old status never decides about a new spec."""
    meta = obj.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        return (c.STATUS_TERMINATING, "Resource scheduled for deletion")
    observed, generation = _lookup(obj, ("status", "observedGeneration")), meta.get("generation")
    if isinstance(observed, int) and isinstance(generation, int) and observed != generation:
        return (c.STATUS_IN_PROGRESS, f"Generation {generation} not yet observed (observed {observed})")
    if rule.failed is not None:
        failed, said = matches(rule.failed, obj)
        if failed:
            return (c.STATUS_FAILED, f"health rule failed ({rule.failed.describe()}): {said}")
    ready, said = matches(rule.ready, obj)
    if ready:
        return (c.STATUS_CURRENT, f"health rule ready ({rule.ready.describe()})")
    return (c.STATUS_IN_PROGRESS, f"waiting for {rule.ready.describe()}: {said}")


def _group_of(obj: Mapping[str, Any]) -> str:
    return str(obj.get("apiVersion", "")).rpartition("/")[0]


def rules_analyzer(rules: Sequence[HealthRule], fallback: Analyzer = analyze) -> Analyzer:
    """An analyzer that applies the rule of an object's group/kind, and ``fallback`` (kstatus) to the others.

    An object that matches its rule's ``failed`` check raises HealthFailedError: unlike kstatus' Failed, which
    only blocks until the timeout (reference 6.1), a failure the user declared ends the run at once, naming the
    object and what its status says."""
    by_kind = {(rule.group, rule.kind): rule for rule in rules}
    if not by_kind:
        return fallback

    def analyzer(obj: Mapping[str, Any], hints: StatusHints) -> Result:
        rule = by_kind.get((_group_of(obj), str(obj.get("kind", ""))))
        if rule is None:
            return fallback(obj, hints)
        status, message = evaluate(rule, obj)
        if status == c.STATUS_FAILED:
            raise HealthFailedError(
                f"{_describe(obj)} is failed by the health rule of {rule.kind}.{rule.group or 'core'}: {message}; "
                "fix the resource (or its controller) and re-run, or change the rule's failed check",
                objects=[_reference(obj)],
            )
        return status, message

    return analyzer
