"""RBAC and impersonation of the component module against the real apiserver (C12).

A user without rights gets a clear error naming the verb and the resource; impersonation never grants more
than the impersonated identity may do, and a user who may not impersonate cannot use it to escalate."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

VERBS = ("get", "list", "create", "patch", "update", "delete", "impersonate")


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def secret(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": {"k": "v"}}


def assert_names_verb_and_resource(message: str, resource: str) -> None:
    lowered = message.lower()
    assert "forbidden" in lowered or "403" in lowered, message
    assert resource in lowered, f"the error does not name {resource}: {message}"
    assert any(f'"{verb}"' in lowered or f" {verb} " in lowered for verb in VERBS), f"no verb in: {message}"


def test_user_without_rights_gets_verb_and_resource(
    ansible: Ansible, cluster_users: dict[str, Any], kubectl: Any, kube_namespace: str
) -> None:
    """C12: carol has no bindings: the task fails with the API's 403 naming the verb and the resource; nothing
    is written."""
    task = component(kube_namespace, "norights", definitions=[configmap("nr")], kubeconfig=str(cluster_users["carol"]))
    result = ansible.run([task])[0]
    assert result.get("failed"), result
    assert "carol" in result["msg"]
    assert_names_verb_and_resource(result["msg"], "configmaps")
    assert kubectl("get", "configmap", "nr", "-n", kube_namespace, check=False).returncode != 0


def test_impersonation_is_bounded_by_the_impersonated_identity(
    ansible: Ansible, kubectl: Any, kube_namespace: str
) -> None:
    """C12: the admin impersonates alice, who may manage ConfigMaps only: the Secret of the component is refused
    with a message naming secrets and the verb, although the caller itself could write Secrets."""
    kubectl.apply(
        f"""apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: configmaps-only, namespace: {kube_namespace}}}
rules:
  - {{apiGroups: [""], resources: [configmaps], verbs: [get, list, watch, create, update, patch, delete]}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: alice-configmaps, namespace: {kube_namespace}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmaps-only}}
subjects: [{{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}}]
"""
    )
    task = component(
        kube_namespace,
        "as-alice",
        definitions=[configmap("allowed"), secret("not-allowed")],
        impersonate={"user": "alice", "groups": ["nubes:developers"]},
    )
    result = ansible.run([task])[0]
    assert result.get("failed"), result
    assert_names_verb_and_resource(result["msg"], "secrets")
    assert "alice" in result["msg"]
    assert kubectl("get", "secret", "not-allowed", "-n", kube_namespace, check=False).returncode != 0


def test_user_who_may_not_impersonate_cannot_escalate(
    ansible: Ansible, cluster_users: dict[str, Any], kubectl: Any, kube_namespace: str
) -> None:
    """C12: bob (no rights) asks to impersonate the cluster admin and system:masters: refused (403 impersonate),
    nothing is written."""
    task = component(
        kube_namespace,
        "escalate",
        definitions=[configmap("esc")],
        kubeconfig=str(cluster_users["bob"]),
        impersonate={"user": "nubes-admin", "groups": ["system:masters"]},
    )
    result = ansible.run([task])[0]
    assert result.get("failed"), result
    lowered = result["msg"].lower()
    assert "impersonate" in lowered and "bob" in lowered, result["msg"]
    assert kubectl("get", "configmap", "esc", "-n", kube_namespace, check=False).returncode != 0
