# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Policy values and per-object annotations: parsing, normalisation and defaults (reference 3.1, 4, 7.4).

C15: component-level policies ("" = default) are overridden per object by annotations; values are
normalised to kebab-case first, so ``IfUnowned``, ``ifUnowned`` and ``if-unowned`` are the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import parse_pointer, split_list
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError

_ADOPTION = {"never": c.ADOPTION_NEVER, "if-unowned": c.ADOPTION_IF_UNOWNED, "always": c.ADOPTION_ALWAYS}
_RECONCILE = {
    "on-object-change": c.RECONCILE_ON_OBJECT_CHANGE,
    "on-object-or-component-change": c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE,
    "once": c.RECONCILE_ONCE,
}
_UPDATE = {
    "recreate": c.UPDATE_RECREATE,
    "replace": c.UPDATE_REPLACE,
    "ssa-merge": c.UPDATE_SSA_MERGE,
    "ssa-override": c.UPDATE_SSA_OVERRIDE,
}
_DELETE = {
    "delete": c.DELETE_DELETE,
    "orphan": c.DELETE_ORPHAN,
    "orphan-on-apply": c.DELETE_ORPHAN_ON_APPLY,
    "orphan-on-delete": c.DELETE_ORPHAN_ON_DELETE,
}
_MISSING_NAMESPACES = {"create": c.MISSING_NAMESPACES_CREATE, "do-not-create": c.MISSING_NAMESPACES_DO_NOT_CREATE}

_KEBAB_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def to_kebab(value: str) -> str:
    """``IfUnowned`` / ``ifUnowned`` / ``if_unowned`` / ``if-unowned`` -> ``if-unowned``."""
    return _KEBAB_BOUNDARY.sub("-", value.strip()).replace("_", "-").lower()


def _lookup(kind: str, table: Mapping[str, str], value: str, allow_default: bool) -> Optional[str]:
    key = to_kebab(value)
    if key == "" or (allow_default and key == "default"):
        return None
    if key not in table:
        raise ValidationError(f"invalid {kind} {value!r}; use one of: {', '.join(table)}")
    return table[key]


def adoption_policy(value: str) -> Optional[str]:
    """Normalise an adoption policy; "" means "use the default" (returns None)."""
    return _lookup("adoption policy", _ADOPTION, value, False)


def reconcile_policy(value: str) -> Optional[str]:
    """Normalise a reconcile policy; "" means the default."""
    return _lookup("reconcile policy", _RECONCILE, value, False)


def update_policy(value: str) -> Optional[str]:
    """Normalise an update policy; "" and the deprecated ``default`` mean the default."""
    return _lookup("update policy", _UPDATE, value, True)


def delete_policy(value: str) -> Optional[str]:
    """Normalise a delete policy; "" and the deprecated ``default`` mean the default."""
    return _lookup("delete policy", _DELETE, value, True)


def missing_namespaces_policy(value: str) -> Optional[str]:
    """Normalise a missing-namespaces policy; "" means the default."""
    return _lookup("missing namespaces policy", _MISSING_NAMESPACES, value, False)


def parse_duration(value: str) -> float:
    """Parse a Go duration string (``90s``, ``1h30m``, ``1.5h``) into seconds."""
    text = value.strip()
    if text in ("0", ""):
        if text == "":
            raise ValidationError("empty duration; use a Go duration such as 30m or 1h")
        return 0.0
    sign = 1.0
    if text[0] in "+-":
        sign = -1.0 if text[0] == "-" else 1.0
        text = text[1:]
    pos = 0
    total = 0.0
    while pos < len(text):
        match = _DURATION_PART.match(text, pos)
        if not match:
            raise ValidationError(f"invalid duration {value!r}; use a Go duration such as 30m, 1h or 1h30m")
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        pos = match.end()
    return sign * total


def parse_order(name: str, value: str) -> int:
    """Parse an apply/purge/delete order annotation: an integer in [-32768, 32767]."""
    try:
        number = int(value.strip())
    except ValueError:
        raise ValidationError(f"invalid {name} {value!r}; use an integer in [{c.ORDER_MIN}, {c.ORDER_MAX}]") from None
    if not c.ORDER_MIN <= number <= c.ORDER_MAX:
        raise ValidationError(f"{name} {number} out of range; use an integer in [{c.ORDER_MIN}, {c.ORDER_MAX}]")
    return number


@dataclass
class Defaults:
    """Component-level policy defaults (C15); values in any accepted spelling, "" meaning built-in default."""

    adoption_policy: str = c.ADOPTION_IF_UNOWNED
    update_policy: str = c.UPDATE_SSA_OVERRIDE
    delete_policy: str = c.DELETE_DELETE
    missing_namespaces_policy: str = c.MISSING_NAMESPACES_CREATE
    reapply_interval: float = c.DEFAULT_REAPPLY_INTERVAL_SECONDS

    def normalised(self) -> Defaults:
        """Return a copy with canonical values, "" replaced by the built-in defaults."""
        return Defaults(
            adoption_policy=adoption_policy(self.adoption_policy) or c.ADOPTION_IF_UNOWNED,
            update_policy=update_policy(self.update_policy) or c.UPDATE_SSA_OVERRIDE,
            delete_policy=delete_policy(self.delete_policy) or c.DELETE_DELETE,
            missing_namespaces_policy=missing_namespaces_policy(self.missing_namespaces_policy)
            or c.MISSING_NAMESPACES_CREATE,
            reapply_interval=self.reapply_interval if self.reapply_interval > 0 else c.DEFAULT_REAPPLY_INTERVAL_SECONDS,
        )


@dataclass
class StatusHints:
    """Parsed ``status-hint`` annotation (reference 6.1)."""

    has_observed_generation: bool = False
    has_ready_condition: bool = False
    conditions: List[str] = field(default_factory=list)


@dataclass
class ObjectPolicies:
    """Effective policies and orders of one desired object."""

    adoption_policy: str
    reconcile_policy: str
    update_policy: str
    delete_policy: str
    apply_order: int = 0
    purge_order: int = c.PURGE_ORDER_UNSET
    delete_order: int = 0
    reapply_interval: float = c.DEFAULT_REAPPLY_INTERVAL_SECONDS
    status_hints: StatusHints = field(default_factory=StatusHints)
    drift_ignore_paths: List[str] = field(default_factory=list)
    drift_ignore_managers: List[str] = field(default_factory=list)


def parse_status_hints(value: str) -> StatusHints:
    """Parse ``has-observed-generation,has-ready-condition,conditions=A;B``; unknown hints are errors."""
    hints = StatusHints()
    for raw in value.split(","):
        part = raw.strip()
        if not part:
            continue
        name, _sep, argument = part.partition("=")
        key = to_kebab(name)
        if key == "has-observed-generation" and not argument:
            hints.has_observed_generation = True
        elif key == "has-ready-condition" and not argument:
            hints.has_ready_condition = True
        elif key == "conditions" and argument:
            hints.conditions.extend(cond.strip() for cond in argument.split(";") if cond.strip())
        else:
            raise ValidationError(
                f"invalid status hint {part!r}; use has-observed-generation, has-ready-condition or conditions=A;B"
            )
    return hints


def object_policies(annotations: Mapping[str, str], prefix: str, defaults: Defaults) -> ObjectPolicies:
    """Effective policies of an object: its ``<prefix>/*`` annotations over the component defaults (C15)."""

    def ann(suffix: str) -> str:
        return annotations.get(f"{prefix}/{suffix}", "")

    result = ObjectPolicies(
        adoption_policy=adoption_policy(ann(c.ANN_ADOPTION_POLICY)) or defaults.adoption_policy,
        reconcile_policy=reconcile_policy(ann(c.ANN_RECONCILE_POLICY)) or c.RECONCILE_ON_OBJECT_CHANGE,
        update_policy=update_policy(ann(c.ANN_UPDATE_POLICY)) or defaults.update_policy,
        delete_policy=delete_policy(ann(c.ANN_DELETE_POLICY)) or defaults.delete_policy,
        reapply_interval=defaults.reapply_interval,
    )
    for suffix, attr in ((c.ANN_APPLY_ORDER, "apply_order"), (c.ANN_PURGE_ORDER, "purge_order")):
        if ann(suffix):
            setattr(result, attr, parse_order(suffix, ann(suffix)))
    if ann(c.ANN_DELETE_ORDER):
        result.delete_order = parse_order(c.ANN_DELETE_ORDER, ann(c.ANN_DELETE_ORDER))
    if ann(c.ANN_REAPPLY_INTERVAL):
        result.reapply_interval = parse_duration(ann(c.ANN_REAPPLY_INTERVAL))
    if ann(c.ANN_STATUS_HINT):
        result.status_hints = parse_status_hints(ann(c.ANN_STATUS_HINT))
    # issue 25: per-object drift ignore rules; a pointer that does not parse fails before any write
    result.drift_ignore_paths = split_list(ann(c.ANN_DRIFT_IGNORE_PATHS))
    for pointer in result.drift_ignore_paths:
        parse_pointer(pointer)
    result.drift_ignore_managers = split_list(ann(c.ANN_DRIFT_IGNORE_MANAGERS))
    return result


def check_annotation_names(annotations: Mapping[str, str], prefix: str) -> Tuple[str, ...]:
    """Return the unknown ``<prefix>/*`` annotation keys (typos such as ``apply-ordre``)."""
    known = {f"{prefix}/{suffix}" for suffix in c.KNOWN_ANNOTATION_SUFFIXES}
    return tuple(sorted(k for k in annotations if k.startswith(prefix + "/") and k not in known))


def orphans_on_apply(delete_policy_value: str) -> bool:
    """Redundant objects with these (last known) delete policies are orphaned, not deleted (reference 3.3 step 14)."""
    return delete_policy_value in (c.DELETE_ORPHAN, c.DELETE_ORPHAN_ON_APPLY)


def orphans_on_delete(delete_policy_value: str) -> bool:
    """On component deletion these (last known) delete policies orphan the object (reference 3.4)."""
    return delete_policy_value in (c.DELETE_ORPHAN, c.DELETE_ORPHAN_ON_DELETE)


def canonical_policy_dict(defaults: Defaults) -> Dict[str, str]:
    """Defaults as a plain dict, for reports."""
    return {
        "adoptionPolicy": defaults.adoption_policy,
        "updatePolicy": defaults.update_policy,
        "deletePolicy": defaults.delete_policy,
        "missingNamespacesPolicy": defaults.missing_namespaces_policy,
    }
