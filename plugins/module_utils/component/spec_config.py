# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""C9: optional configuration set on the component (the module's options) or on its spec; the component wins.

With ``spec_configuration: true`` the keys of component-operator-runtime's embeddable spec structs are read from the
top level of ``spec`` (reference 1.1): PlacementSpec ``namespace``, ``name``; SuspensionSpec ``suspend``;
TimeoutSpec ``timeout``; ReapplySpec ``reapplyInterval``; PolicySpec ``adoptionPolicy``, ``updatePolicy``,
``deletePolicy``, ``missingNamespacesPolicy``; TypeSpec ``additionalManagedTypes``; ImpersonationSpec
``serviceAccountName``; and, beyond component-operator-runtime (issue 25), ``healthRules``,
``reclaimFieldManagers`` and ``driftDetection`` (``mode``, ``ignore``, as Flux's HelmRelease ``driftDetection``).
Each is used only where the task did not set the matching option. The spec itself is not changed: the templates
still see these keys (C2).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import SpecConfigurationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import MODE_ENABLED, MODES
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.managed_fields import RECLAIMED_MANAGER_PREFIXES
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import parse_duration, to_kebab

DEFAULT_TIMEOUT_SECONDS = 600
DEFAULT_REAPPLY_INTERVAL_SECONDS = 3600
POLICY_DEFAULTS = {
    "adoption": "if-unowned",
    "update": "ssa-override",
    "delete": "delete",
    "missing_namespaces": "create",
}
# policies option key -> (spec key, the CRD's enum values); the module's kebab-case value is to_kebab(enum value)
POLICY_SPEC_KEYS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "adoption": ("adoptionPolicy", ("Never", "IfUnowned", "Always")),
    "update": ("updatePolicy", ("Recreate", "Replace", "SsaMerge", "SsaOverride")),
    "delete": ("deletePolicy", ("Delete", "Orphan", "OrphanOnApply", "OrphanOnDelete")),
    "missing_namespaces": ("missingNamespacesPolicy", ("DoNotCreate", "Create")),
}
SPEC_KEYS = (
    "namespace",
    "name",
    "suspend",
    "timeout",
    "reapplyInterval",
    "adoptionPolicy",
    "updatePolicy",
    "deletePolicy",
    "missingNamespacesPolicy",
    "additionalManagedTypes",
    "serviceAccountName",
    "healthRules",
    "reclaimFieldManagers",
    "driftDetection",
)
DRIFT_RULE_KEYS = ("paths", "managers", "target")
DRIFT_TARGET_KEYS = ("group", "kind", "namespace", "name")
DRIFT_EXPECTED = (
    "{mode: enabled|warn|disabled, ignore: [{paths: [/json/pointer], managers: [name], target: {group, kind, "
    "namespace, name}}]}"
)
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


def _zero_is_default(seconds: Any) -> Any:
    """C14: a timeout or interval of 0 means the default (None = not given)."""
    return None if seconds == 0 else seconds


def _invalid(key: str, value: Any, expected: str) -> SpecConfigurationError:
    return SpecConfigurationError(
        f"spec.{key}: invalid value {value!r}; expected {expected}. With spec_configuration=true the spec keys "
        f"{', '.join(SPEC_KEYS)} are read as the component's configuration (C9): fix the value, or set "
        "spec_configuration=false if the spec uses this key for something else"
    )


def _string(spec: Mapping[str, Any], key: str) -> Optional[str]:
    """The key's string value; None when missing, null or "" (the operator's "use the default")."""
    value = spec.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _invalid(key, value, "a string")
    return value or None


def _duration(spec: Mapping[str, Any], key: str) -> Optional[float]:
    """A Go duration string in seconds; None when missing or 0 (the operator's "use the default")."""
    text = _string(spec, key)
    if text is None:
        return None
    try:
        seconds = parse_duration(text)
    except ValidationError:
        raise _invalid(key, text, "a Go duration such as 30s, 10m or 1h30m (0 = the default)") from None
    if seconds < 0:
        raise _invalid(key, text, "a positive Go duration such as 30s, 10m or 1h30m (0 = the default)")
    return seconds or None


def _policy(spec: Mapping[str, Any], key: str, allowed: Tuple[str, ...]) -> Optional[str]:
    """A PolicySpec enum value (``IfUnowned``; ``if-unowned`` is accepted too) as the module's kebab-case value."""
    text = _string(spec, key)
    if text is None:
        return None
    kebab = to_kebab(text)
    if kebab not in {to_kebab(name) for name in allowed}:
        raise _invalid(key, text, "one of " + ", ".join(allowed) + ' ("" = the default)')
    return kebab


def _suspend(spec: Mapping[str, Any]) -> Optional[bool]:
    value = spec.get("suspend")
    if value is None or isinstance(value, bool):
        return value
    raise _invalid("suspend", value, "true or false")


def _managed_types(spec: Mapping[str, Any]) -> Optional[List[Dict[str, str]]]:
    """TypeSpec ``additionalManagedTypes``: a list of ``{group, kind}`` (``version`` optional, default ``*``)."""
    value = spec.get("additionalManagedTypes")
    if value is None:
        return None
    expected = 'a list of {group, kind} (group "" is the core group; "*" and "*.suffix" are wildcards)'
    if not isinstance(value, list):
        raise _invalid("additionalManagedTypes", value, expected)
    types: List[Dict[str, str]] = []
    for entry in value:
        if not isinstance(entry, dict) or not set(entry) <= {"group", "version", "kind"}:
            raise _invalid("additionalManagedTypes", entry, expected)
        group, kind, version = entry.get("group", ""), entry.get("kind"), entry.get("version", "*")
        if not isinstance(group, str) or not isinstance(kind, str) or not kind or not isinstance(version, str):
            raise _invalid("additionalManagedTypes", entry, expected)
        types.append({"group": group, "version": version or "*", "kind": kind})
    return types


def _health_rules(spec: Mapping[str, Any]) -> Optional[List[Any]]:
    """Issue 25: ``healthRules``, a list of rules (checked by ``health_rules.parse_health_rules``)."""
    value = spec.get("healthRules")
    if value is None:
        return None
    if not isinstance(value, list):
        raise _invalid("healthRules", value, "a list of {group, kind, ready, failed} rules")
    return value


def _managers(spec: Mapping[str, Any]) -> Optional[List[str]]:
    """Issue 25: ``reclaimFieldManagers``, a list of field-manager name prefixes."""
    value = spec.get("reclaimFieldManagers")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _invalid("reclaimFieldManagers", value, "a list of field-manager names or prefixes such as kubectl")
    return list(value)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _drift_rule(rule: Any) -> Dict[str, Any]:
    """One ``driftDetection.ignore`` rule, validated; the keys the module's option has, filled in."""
    if not isinstance(rule, dict) or not set(rule) <= set(DRIFT_RULE_KEYS):
        raise _invalid("driftDetection.ignore", rule, "a rule {paths, managers, target}")
    paths, managers, target = rule.get("paths") or [], rule.get("managers") or [], rule.get("target") or {}
    if not _strings(paths) or not all(p.startswith("/") for p in paths):
        raise _invalid("driftDetection.ignore", rule, "paths as a list of JSON pointers such as /spec/replicas")
    if not _strings(managers):
        raise _invalid("driftDetection.ignore", rule, "managers as a list of field-manager names")
    good_target = isinstance(target, dict) and all(
        k in DRIFT_TARGET_KEYS and isinstance(v, str) for k, v in target.items()
    )
    if not good_target:
        raise _invalid("driftDetection.ignore", rule, "target as {group, kind, namespace, name} strings")
    return {"paths": list(paths), "managers": list(managers), "target": dict(target)}


def _drift_detection(spec: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """Issue 25, C9: ``driftDetection`` ``{mode, ignore}``; only the keys that are set (mode "" = the default)."""
    value = spec.get("driftDetection")
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= {"mode", "ignore"}:
        raise _invalid("driftDetection", value, DRIFT_EXPECTED)
    found: Dict[str, Any] = {}
    mode = value.get("mode")
    if mode not in (None, "") and mode not in MODES:
        raise _invalid("driftDetection.mode", mode, f'one of {", ".join(MODES)} ("" = the default)')
    if mode:
        found["mode"] = mode
    ignore = value.get("ignore")
    if ignore is not None and not isinstance(ignore, list):
        raise _invalid("driftDetection.ignore", ignore, "a list of rules {paths, managers, target}")
    if ignore is not None:
        found["ignore"] = [_drift_rule(rule) for rule in ignore]
    return found


def _checked(key: str, value: Optional[str], pattern: re.Pattern[str], expected: str) -> Optional[str]:
    if value is not None and not pattern.match(value):
        raise _invalid(key, value, expected)
    return value


def read_spec_configuration(spec: Mapping[str, Any], component_namespace: str) -> Dict[str, Any]:
    """The recognised keys of ``spec``, validated, as module option values (only the keys that are set)."""
    found: Dict[str, Any] = {}
    namespace = _checked("namespace", _string(spec, "namespace"), DNS_LABEL, "a namespace name (a DNS label)")
    name = _string(spec, "name")
    if namespace is not None:
        found["placement.namespace"] = namespace
    if name is not None:
        found["placement.name"] = name
    readers: Dict[str, Callable[[], Any]] = {
        "suspend": lambda: _suspend(spec),
        "timeout": lambda: _duration(spec, "timeout"),
        "reapply_interval": lambda: _duration(spec, "reapplyInterval"),
        "additional_managed_types": lambda: _managed_types(spec),
        "health_rules": lambda: _health_rules(spec),
        "reclaim_field_managers": lambda: _managers(spec),
        "drift_detection": lambda: _drift_detection(spec),
    }
    for option, read in readers.items():
        value = read()
        if value is not None:
            found[option] = value
    for option, (key, allowed) in POLICY_SPEC_KEYS.items():
        policy = _policy(spec, key, allowed)
        if policy is not None:
            found["policies." + option] = policy
    account = _checked(
        "serviceAccountName", _string(spec, "serviceAccountName"), DNS_SUBDOMAIN, "a service account name"
    )
    if account is not None:  # ImpersonationSpec: the service account lives in the component's namespace
        found["impersonate.user"] = f"system:serviceaccount:{component_namespace}:{account}"
    return found


def merge_spec_configuration(task_options: Mapping[str, Any], spec: Mapping[str, Any]) -> Dict[str, Any]:
    """C9: effective configuration from the task's options (None = not given), the spec, then the defaults.

    ``task_options`` holds the module parameters ``namespace``, ``spec_configuration``, ``placement``, ``suspend``,
    ``timeout``, ``reapply_interval``, ``policies``, ``additional_managed_types``, ``health_rules``,
    ``reclaim_field_managers``, ``drift_detection`` and ``impersonate``. The result
    has the same option keys with every value filled in: ``placement`` {namespace, name} ("" = the component's),
    ``suspend``, ``timeout`` and ``reapply_interval`` (seconds), ``policies`` (all four), ``additional_managed_types``
    ``health_rules`` ([] = kstatus only), ``reclaim_field_managers`` (default ``["kubectl"]``), ``drift_detection``
    {mode, ignore} (default mode ``enabled``, no rules; each merged on its own) and ``impersonate`` {user, groups}
    (user "" = no impersonation). A setting given in the task always wins; the
    spec is read only when ``spec_configuration`` is true.
    """
    from_spec: Dict[str, Any] = {}
    if task_options.get("spec_configuration"):
        from_spec = read_spec_configuration(spec, str(task_options.get("namespace") or ""))
    placement = task_options.get("placement") or {}
    policies = task_options.get("policies") or {}
    impersonate = task_options.get("impersonate") or {}
    drift = task_options.get("drift_detection") or {}
    drift_from_spec = from_spec.get("drift_detection") or {}

    def pick(given: Any, key: str, default: Any) -> Any:
        if given is not None:
            return given
        return from_spec.get(key, default)

    user = pick(impersonate.get("user"), "impersonate.user", "")
    # groups belong to the task's user; a user taken from the spec (a service account) gets none
    groups = list(impersonate.get("groups") or []) if impersonate.get("user") is not None else []
    return {
        "placement": {
            "namespace": pick(placement.get("namespace"), "placement.namespace", ""),
            "name": pick(placement.get("name"), "placement.name", ""),
        },
        "suspend": pick(task_options.get("suspend"), "suspend", False),
        "timeout": pick(_zero_is_default(task_options.get("timeout")), "timeout", DEFAULT_TIMEOUT_SECONDS),
        "reapply_interval": pick(
            _zero_is_default(task_options.get("reapply_interval")), "reapply_interval", DEFAULT_REAPPLY_INTERVAL_SECONDS
        ),
        "policies": {
            option: pick(policies.get(option), "policies." + option, default)
            for option, default in POLICY_DEFAULTS.items()
        },
        "additional_managed_types": list(
            pick(task_options.get("additional_managed_types"), "additional_managed_types", [])
        ),
        "health_rules": list(pick(task_options.get("health_rules"), "health_rules", [])),
        "reclaim_field_managers": list(
            pick(task_options.get("reclaim_field_managers"), "reclaim_field_managers", list(RECLAIMED_MANAGER_PREFIXES))
        ),
        "drift_detection": {  # issue 25, C9: mode and ignore rules each from the task, else the spec
            "mode": drift.get("mode") if drift.get("mode") is not None else drift_from_spec.get("mode", MODE_ENABLED),
            "ignore": list(drift["ignore"] if drift.get("ignore") is not None else drift_from_spec.get("ignore", [])),
        },
        "impersonate": {"user": user, "groups": groups},
    }
