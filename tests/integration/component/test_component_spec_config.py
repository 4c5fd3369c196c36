"""Playbook-level tests of C9: optional configuration on the spec (``spec_configuration: true``); the component's
option wins.

Every test runs real ``ansible-playbook`` against the local kube-apiserver (tests/cluster).
"""

from __future__ import annotations

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster


def test_spec_suspend_is_used_unless_the_task_sets_suspend(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C9, C13: spec ``suspend: true`` suspends the component (Pending/Suspended, nothing applied); the same spec
    with the option ``suspend: false`` given in the task is applied, because the component's setting wins."""
    source = ansible.source("web")
    spec = {"suspend": True, "replicas": 2}
    run = ansible.run(
        [
            component(
                kube_namespace, "web", source=source, source_kind="templates", spec=spec, spec_configuration=True
            ),
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                spec=spec,
                spec_configuration=True,
                suspend=False,
            ),
        ]
    )
    suspended, applied = run[0], run[1]
    assert not suspended.get("failed"), suspended.get("msg")
    assert suspended["changed"] is False
    assert suspended["state"] == "Pending"
    ready = suspended["status"]["conditions"][0]
    assert (ready["status"], ready["reason"]) == ("Unknown", "Suspended")
    assert suspended["objects"]["created"] == []
    assert not applied.get("failed"), applied.get("msg")
    assert applied["changed"] is True
    assert applied["state"] == "Ready"
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 2
    gone = ansible.run([component(kube_namespace, "web", state="absent")])[0]
    assert not gone.get("failed"), gone.get("msg")


def test_spec_keys_are_ignored_without_spec_configuration(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C9: without ``spec_configuration`` (default false) ``suspend`` in the spec is only a parameter: the
    component is applied."""
    source = ansible.source("web")
    result = ansible.run(
        [component(kube_namespace, "web", source=source, source_kind="templates", spec={"suspend": True})]
    )[0]
    assert not result.get("failed"), result.get("msg")
    assert result["state"] == "Ready"
    kubectl("get", "deployment", "web", "-n", kube_namespace)


def test_spec_namespace_and_name_place_the_objects(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C9, C10: spec ``namespace`` and ``name`` (PlacementSpec) place the objects; the record stays in the
    component's namespace."""
    target = f"{kube_namespace}-spec"
    source = ansible.source("web")
    try:
        result = ansible.run(
            [
                component(
                    kube_namespace,
                    "web",
                    source=source,
                    source_kind="templates",
                    spec={"namespace": target, "name": "shop"},
                    spec_configuration=True,
                )
            ]
        )[0]
        assert not result.get("failed"), result.get("msg")
        assert result["state"] == "Ready"
        assert result["component"]["deployment_namespace"] == target
        assert result["component"]["deployment_name"] == "shop"
        assert kubectl.json("get", "deployment", "shop", "-n", target)["metadata"]["namespace"] == target
        assert kubectl("get", "deployment", "web", "-n", kube_namespace, check=False).returncode != 0
        kubectl("get", "configmap", "cloud.nubes.component.web", "-n", kube_namespace)
        gone = ansible.run([component(kube_namespace, "web", state="absent")])[0]
        assert not gone.get("failed"), gone.get("msg")
    finally:
        kubectl("delete", "namespace", target, "--wait=false", "--ignore-not-found", check=False)


def test_invalid_spec_configuration_fails_naming_the_key(ansible: Ansible, kube_namespace: str) -> None:
    """C9: an unusable value of a recognised spec key fails the task with the key and the allowed values."""
    source = ansible.source("web")
    result = ansible.run(
        [
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                spec={"updatePolicy": "Merge", "timeout": "10m"},
                spec_configuration=True,
            )
        ]
    )[0]
    assert result["failed"] is True
    assert result["msg"].startswith("spec.updatePolicy: invalid value 'Merge'")
    assert "Recreate, Replace, SsaMerge, SsaOverride" in result["msg"]


def test_spec_service_account_name_is_impersonated(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C9, C12: spec ``serviceAccountName`` (ImpersonationSpec) makes the run act as
    ``system:serviceaccount:<component namespace>:<name>``; an account without rights is refused by the API server,
    which names that user."""
    source = ansible.source("web")
    result = ansible.run(
        [
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                spec={"serviceAccountName": "nobody"},
                spec_configuration=True,
            )
        ]
    )[0]
    assert result["failed"] is True
    assert f'User "system:serviceaccount:{kube_namespace}:nobody" cannot' in result["msg"]
    assert kubectl("get", "deployment", "web", "-n", kube_namespace, check=False).returncode != 0
