"""Unit tests of C9: optional configuration on the component (module options) or on its spec; the component wins."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.spec_config import (
    SpecConfigurationError,
    merge_spec_configuration,
)

DEFAULTS: Dict[str, Any] = {
    "placement": {"namespace": "", "name": ""},
    "suspend": False,
    "timeout": 600,
    "reapply_interval": 3600,
    "policies": {
        "adoption": "if-unowned",
        "update": "ssa-override",
        "delete": "delete",
        "missing_namespaces": "create",
    },
    "additional_managed_types": [],
    "health_rules": [],
    "reclaim_field_managers": ["kubectl"],
    "drift_detection": {"mode": "enabled", "ignore": []},
    "impersonate": {"user": "", "groups": []},
}
RULE = {"group": "cert-manager.io", "kind": "Certificate", "ready": {"condition": "Ready"}}

FULL_SPEC: Dict[str, Any] = {
    "namespace": "target",
    "name": "shop",
    "suspend": True,
    "timeout": "10m",
    "reapplyInterval": "1h30m",
    "adoptionPolicy": "Always",
    "updatePolicy": "SsaMerge",
    "deletePolicy": "OrphanOnDelete",
    "missingNamespacesPolicy": "DoNotCreate",
    "additionalManagedTypes": [{"group": "example.com", "kind": "Widget"}],
    "serviceAccountName": "deployer",
    "healthRules": [RULE],
    "reclaimFieldManagers": ["kubectl", "ops-bot"],
    "driftDetection": {"mode": "warn", "ignore": [{"paths": ["/spec/replicas"], "target": {"kind": "Deployment"}}]},
    "replicas": 3,
}
SPEC_DRIFT_RULE = {"paths": ["/spec/replicas"], "managers": [], "target": {"kind": "Deployment"}}


def task(**options: Any) -> Dict[str, Any]:
    """Module parameters as AnsibleModule gives them: options not given are None."""
    params: Dict[str, Any] = {
        "namespace": "apps",
        "spec_configuration": True,
        "placement": None,
        "suspend": None,
        "timeout": None,
        "reapply_interval": None,
        "policies": None,
        "additional_managed_types": None,
        "health_rules": None,
        "reclaim_field_managers": None,
        "drift_detection": None,
        "impersonate": None,
    }
    params.update(options)
    return params


def with_defaults(**changes: Any) -> Dict[str, Any]:
    expected = {key: (dict(value) if isinstance(value, dict) else value) for key, value in DEFAULTS.items()}
    expected.update(changes)
    return expected


def test_nothing_set_gives_the_defaults() -> None:
    """C9: with no option and no recognised spec key, every setting has its documented default."""
    assert merge_spec_configuration(task(), {"replicas": 2}) == DEFAULTS


def test_spec_sets_every_recognised_key() -> None:
    """C9: with spec_configuration every recognised spec key configures the component where the task is silent."""
    assert merge_spec_configuration(task(), FULL_SPEC) == {
        "placement": {"namespace": "target", "name": "shop"},
        "suspend": True,
        "timeout": 600.0,
        "reapply_interval": 5400.0,
        "policies": {
            "adoption": "always",
            "update": "ssa-merge",
            "delete": "orphan-on-delete",
            "missing_namespaces": "do-not-create",
        },
        "additional_managed_types": [{"group": "example.com", "version": "*", "kind": "Widget"}],
        "health_rules": [RULE],  # issue 25
        "reclaim_field_managers": ["kubectl", "ops-bot"],  # issue 25
        "drift_detection": {"mode": "warn", "ignore": [SPEC_DRIFT_RULE]},  # issue 25
        "impersonate": {"user": "system:serviceaccount:apps:deployer", "groups": []},
    }


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"suspend": False}, {"suspend": False}),
        ({"timeout": 30}, {"timeout": 30}),
        ({"reapply_interval": 60}, {"reapply_interval": 60}),
        ({"placement": {"namespace": "mine", "name": None}}, {"placement": {"namespace": "mine", "name": "shop"}}),
        ({"placement": {"namespace": None, "name": "web"}}, {"placement": {"namespace": "target", "name": "web"}}),
        (
            {"policies": {"adoption": "never", "update": None, "delete": None, "missing_namespaces": None}},
            {
                "policies": {
                    "adoption": "never",
                    "update": "ssa-merge",
                    "delete": "orphan-on-delete",
                    "missing_namespaces": "do-not-create",
                }
            },
        ),
        ({"additional_managed_types": []}, {"additional_managed_types": []}),
        (
            {"impersonate": {"user": "alice", "groups": ["team"]}},
            {"impersonate": {"user": "alice", "groups": ["team"]}},
        ),
        ({"impersonate": {"user": "", "groups": []}}, {"impersonate": {"user": "", "groups": []}}),
        (
            {"drift_detection": {"mode": "enabled", "ignore": None}},
            {"drift_detection": {"mode": "enabled", "ignore": [SPEC_DRIFT_RULE]}},
        ),
        (
            {"drift_detection": {"mode": None, "ignore": []}},
            {"drift_detection": {"mode": "warn", "ignore": []}},
        ),
    ],
    ids=[
        "suspend",
        "timeout",
        "reapply_interval",
        "placement.namespace",
        "placement.name",
        "policies.adoption",
        "additional_managed_types",
        "impersonate.user",
        "impersonate-disabled",
        "drift_detection.mode",
        "drift_detection.ignore",
    ],
)
def test_option_given_in_the_task_wins_over_the_spec(options: Dict[str, Any], expected: Dict[str, Any]) -> None:
    """C9: an option the task sets explicitly (even to its default value or to empty) wins over the spec key."""
    merged = merge_spec_configuration(task(**options), FULL_SPEC)
    for key, value in expected.items():
        assert merged[key] == value, key


def test_opt_in_off_ignores_the_spec_keys() -> None:
    """C9: without spec_configuration the spec's keys are the user's own parameters and configure nothing."""
    assert merge_spec_configuration(task(spec_configuration=False), FULL_SPEC) == DEFAULTS
    assert merge_spec_configuration(task(spec_configuration=False, suspend=True), FULL_SPEC) == with_defaults(
        suspend=True
    )


def test_opt_in_off_does_not_validate_the_spec_keys() -> None:
    """C9: without spec_configuration a spec key such as name may hold anything."""
    spec = {"name": {"first": "x"}, "suspend": "maybe", "timeout": 5}
    assert merge_spec_configuration(task(spec_configuration=False), spec) == DEFAULTS


def test_spec_is_not_modified() -> None:
    """C9, C2: reading the configuration leaves the spec as it was (the templates still see the keys)."""
    spec = dict(FULL_SPEC)
    merge_spec_configuration(task(), spec)
    assert spec == FULL_SPEC


@pytest.mark.parametrize(
    ("spec", "key", "hint"),
    [
        ({"suspend": "yes"}, "spec.suspend", "true or false"),
        ({"timeout": "ten minutes"}, "spec.timeout", "Go duration"),
        ({"timeout": 600}, "spec.timeout", "a string"),
        ({"reapplyInterval": "-5m"}, "spec.reapplyInterval", "positive Go duration"),
        ({"adoptionPolicy": "Sometimes"}, "spec.adoptionPolicy", "Never, IfUnowned, Always"),
        ({"updatePolicy": "Merge"}, "spec.updatePolicy", "Recreate, Replace, SsaMerge, SsaOverride"),
        ({"deletePolicy": "Keep"}, "spec.deletePolicy", "Delete, Orphan, OrphanOnApply, OrphanOnDelete"),
        ({"missingNamespacesPolicy": "Maybe"}, "spec.missingNamespacesPolicy", "DoNotCreate, Create"),
        ({"namespace": "Not_A_Label"}, "spec.namespace", "DNS label"),
        ({"name": 7}, "spec.name", "a string"),
        ({"additionalManagedTypes": {"group": "x"}}, "spec.additionalManagedTypes", "a list of {group, kind}"),
        ({"additionalManagedTypes": [{"group": "x"}]}, "spec.additionalManagedTypes", "a list of {group, kind}"),
        ({"serviceAccountName": "Bad Name"}, "spec.serviceAccountName", "service account name"),
        ({"healthRules": RULE}, "spec.healthRules", "a list of {group, kind, ready, failed} rules"),
        ({"reclaimFieldManagers": "kubectl"}, "spec.reclaimFieldManagers", "a list of field-manager names"),
        ({"reclaimFieldManagers": [""]}, "spec.reclaimFieldManagers", "a list of field-manager names"),
        ({"driftDetection": "warn"}, "spec.driftDetection", "{mode: enabled|warn|disabled"),
        ({"driftDetection": {"mode": "correct"}}, "spec.driftDetection.mode", "one of enabled, warn, disabled"),
        ({"driftDetection": {"ignore": {"paths": []}}}, "spec.driftDetection.ignore", "a list of rules"),
        ({"driftDetection": {"ignore": [{"paths": ["spec.replicas"]}]}}, "spec.driftDetection.ignore", "JSON pointers"),
        ({"driftDetection": {"ignore": [{"fields": ["/a"]}]}}, "spec.driftDetection.ignore", "{paths, managers"),
        ({"driftDetection": {"ignore": [{"target": {"app": "x"}}]}}, "spec.driftDetection.ignore", "target as"),
    ],
)
def test_invalid_spec_value_fails_naming_key_and_allowed_values(spec: Dict[str, Any], key: str, hint: str) -> None:
    """C9: an unusable value of a recognised key fails with the key, the value's problem and what is allowed."""
    with pytest.raises(SpecConfigurationError) as error:
        merge_spec_configuration(task(), spec)
    message = str(error.value)
    assert message.startswith(key + ":")
    assert hint in message
    assert "spec_configuration=false" in message


def test_invalid_spec_value_is_not_read_when_the_option_is_given() -> None:
    """C9: validation is of the spec key; it still fails when the option is set, so typos are not hidden."""
    with pytest.raises(SpecConfigurationError, match=r"spec\.suspend"):
        merge_spec_configuration(task(suspend=False), {"suspend": "no"})


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30.0), ("10m", 600.0), ("1h30m", 5400.0), ("1.5h", 5400.0), ("90s", 90.0), ("500ms", 0.5)],
)
def test_durations_are_go_durations(text: str, seconds: float) -> None:
    """C9: timeout and reapplyInterval are Go duration strings, parsed by the engine's parser, in seconds."""
    merged = merge_spec_configuration(task(), {"timeout": text, "reapplyInterval": text})
    assert (merged["timeout"], merged["reapply_interval"]) == (seconds, seconds)


@pytest.mark.parametrize("zero", ["0", "", None])
def test_zero_or_empty_duration_means_the_default(zero: Any) -> None:
    """C9: 0 (the operator's "use the default"), "" and null leave the default in place."""
    merged = merge_spec_configuration(task(), {"timeout": zero, "reapplyInterval": zero})
    assert (merged["timeout"], merged["reapply_interval"]) == (600, 3600)


def test_policies_accept_the_kebab_form_and_empty_means_default() -> None:
    """C9: PolicySpec values are the CRD's CamelCase enums; the module's kebab-case spelling works too; "" is the
    default."""
    merged = merge_spec_configuration(
        task(), {"adoptionPolicy": "if-unowned", "updatePolicy": "Replace", "deletePolicy": ""}
    )
    assert merged["policies"] == {
        "adoption": "if-unowned",
        "update": "replace",
        "delete": "delete",
        "missing_namespaces": "create",
    }


def test_service_account_name_maps_to_its_user_in_the_component_namespace() -> None:
    """C9, C12: ImpersonationSpec serviceAccountName impersonates system:serviceaccount:<component ns>:<sa>."""
    merged = merge_spec_configuration(
        task(namespace="team-a"), {"serviceAccountName": "deployer", "namespace": "elsewhere"}
    )
    assert merged["impersonate"] == {"user": "system:serviceaccount:team-a:deployer", "groups": []}


def test_task_groups_without_user_do_not_join_the_service_account() -> None:
    """C9: groups given in the task belong to the task's user; the spec's service account gets none."""
    merged = merge_spec_configuration(task(impersonate={"user": None, "groups": ["ops"]}), {"serviceAccountName": "sa"})
    assert merged["impersonate"] == {"user": "system:serviceaccount:apps:sa", "groups": []}


def test_managed_types_default_version_and_core_group() -> None:
    """C9, C16: TypeSpec entries are {group, kind}; the version is "*" and a missing group is the core group."""
    merged = merge_spec_configuration(
        task(),
        {"additionalManagedTypes": [{"kind": "ConfigMap"}, {"group": "*.example.com", "kind": "*", "version": "v1"}]},
    )
    assert merged["additional_managed_types"] == [
        {"group": "", "version": "*", "kind": "ConfigMap"},
        {"group": "*.example.com", "version": "v1", "kind": "*"},
    ]
