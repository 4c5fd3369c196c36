"""Smoke tests of the test cluster: the API semantics the component engine relies on really work.

They run against the local control plane (tests/cluster/up) or, with NUBES_TEST_EXTERNAL_CLUSTER=1,
against your own cluster; the tests that use the local cluster's users and tokens need the local one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cluster.fixtures import Kubectl, LocalCluster, unique_name, uses_external_cluster
from tests.cluster.launcher.layout import read_versions

pytestmark = pytest.mark.cluster

WAIT = "--timeout=120s"  # bounded waits for controllers; a slow shared machine still finishes in seconds


def deployment(name: str, namespace: str, replicas: int) -> str:
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "web", "image": "registry.invalid/web:1"}]},
                },
            },
        }
    )


def test_kubectl_version_reports_the_server(kubectl: Kubectl) -> None:
    """kubectl reaches the apiserver; the local cluster reports the pinned release."""
    server = kubectl.json("version")["serverVersion"]
    assert str(server["gitVersion"]).startswith("v1.")
    if not uses_external_cluster():
        assert server["gitVersion"] == read_versions()["K8S_VERSION"]


def test_server_side_applied_deployment_becomes_available(kubectl: Kubectl, kube_namespace: str) -> None:
    """SSA records the field manager; controller-manager, scheduler and kwok make the Deployment Available."""
    kubectl.apply(deployment("web", kube_namespace, 2), field_manager="nubes-smoke")
    kubectl("wait", "-n", kube_namespace, "--for=condition=Available", "deployment/web", WAIT)
    obj = kubectl.json("get", "-n", kube_namespace, "deployment", "web", "--show-managed-fields")
    assert obj["status"]["availableReplicas"] == 2
    managers = obj["metadata"]["managedFields"]
    assert {"manager": "nubes-smoke", "operation": "Apply"} in [
        {"manager": m["manager"], "operation": m["operation"]} for m in managers
    ]
    pods = kubectl.json("get", "-n", kube_namespace, "pods", "-l", "app=web")["items"]
    assert len(pods) == 2
    assert all(pod["status"]["phase"] == "Running" and pod["spec"].get("nodeName") for pod in pods)


def test_crd_becomes_established_and_accepts_an_instance(kubectl: Kubectl, kube_namespace: str) -> None:
    """A CRD gets Established, serves instances and enforces its OpenAPI schema."""
    group = f"{unique_name('s')}.smoke.nubes.test"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                            },
                        }
                    },
                }
            ],
        },
    }
    kubectl.apply(json.dumps(crd))
    try:
        kubectl("wait", "--for=condition=Established", f"crd/widgets.{group}", WAIT)
        widget = {
            "apiVersion": f"{group}/v1",
            "kind": "Widget",
            "metadata": {"name": "w1", "namespace": kube_namespace},
        }
        kubectl.apply(json.dumps({**widget, "spec": {"size": 3}}))
        got = kubectl.json("get", "-n", kube_namespace, f"widgets.{group}", "w1")
        assert got["spec"] == {"size": 3}
        bad = kubectl(
            "apply", "--server-side", "-f", "-", stdin=json.dumps({**widget, "spec": {"size": "x"}}), check=False
        )
        assert bad.returncode != 0
        assert "spec.size" in bad.stderr
    finally:
        kubectl("delete", "crd", f"widgets.{group}", "--wait=false", "--ignore-not-found", check=False)


def test_namespace_deletion_completes(kubectl: Kubectl) -> None:
    """The namespace controller empties and removes a deleted namespace."""
    name = unique_name("del")
    kubectl("create", "namespace", name)
    kubectl("create", "configmap", "-n", name, "content", "--from-literal=a=b")
    kubectl.apply(deployment("web", name, 1))
    kubectl("delete", "namespace", name, "--wait=true", WAIT)
    gone = kubectl("get", "namespace", name, check=False)
    assert gone.returncode != 0
    assert "NotFound" in gone.stderr


def test_owned_object_is_garbage_collected_with_its_owner(kubectl: Kubectl, kube_namespace: str) -> None:
    """An object whose ownerReference names a deleted owner is removed by the garbage collector."""
    kubectl("create", "configmap", "-n", kube_namespace, "owner", "--from-literal=a=b")
    uid = kubectl.json("get", "-n", kube_namespace, "configmap", "owner")["metadata"]["uid"]
    owned = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "owned",
            "namespace": kube_namespace,
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid}],
        },
        "data": {"c": "d"},
    }
    kubectl.apply(json.dumps(owned))
    kubectl("delete", "-n", kube_namespace, "configmap", "owner")
    kubectl("wait", "-n", kube_namespace, "--for=delete", "configmap/owned", WAIT)
    assert kubectl("get", "-n", kube_namespace, "configmap", "owned", check=False).returncode != 0


def test_impersonation_is_allowed_and_denied_by_rbac(
    kubectl: Kubectl, kube_namespace: str, cluster_users: dict[str, Path], local_cluster: LocalCluster
) -> None:
    """Infrastructure for C12: a cert user may impersonate only whom RBAC lets it, with the target's rights."""
    alice = cluster_users["alice"]
    who = kubectl.json("auth", "whoami", kubeconfig=alice)["status"]["userInfo"]
    assert who["username"] == "alice"
    assert "nubes:developers" in who["groups"]

    denied = kubectl("get", "configmaps", "-n", kube_namespace, "--as=bob", kubeconfig=alice, check=False)
    assert denied.returncode != 0
    assert "cannot impersonate" in denied.stderr

    role = unique_name("impersonate-bob")
    kubectl("create", "clusterrole", role, "--verb=impersonate", "--resource=users", "--resource-name=bob")
    try:
        kubectl("create", "clusterrolebinding", role, f"--clusterrole={role}", "--user=alice")
        kubectl("create", "role", "read-cm", "-n", kube_namespace, "--verb=get,list", "--resource=configmaps")
        kubectl("create", "rolebinding", "bob-read-cm", "-n", kube_namespace, "--role=read-cm", "--user=bob")

        as_bob = kubectl.json("auth", "whoami", "--as=bob", kubeconfig=alice)["status"]["userInfo"]
        assert as_bob["username"] == "bob"
        kubectl("get", "configmaps", "-n", kube_namespace, "--as=bob", kubeconfig=alice)

        not_carol = kubectl("get", "configmaps", "-n", kube_namespace, "--as=carol", kubeconfig=alice, check=False)
        assert not_carol.returncode != 0
        assert "cannot impersonate" in not_carol.stderr

        no_secrets = kubectl("get", "secrets", "-n", kube_namespace, "--as=bob", kubeconfig=alice, check=False)
        assert no_secrets.returncode != 0
        assert 'User "bob" cannot list resource "secrets"' in no_secrets.stderr
    finally:
        kubectl("delete", "clusterrolebinding,clusterrole", role, "--ignore-not-found", check=False)


def test_static_bearer_tokens_authenticate(
    kubectl: Kubectl, local_cluster: LocalCluster, cluster_tokens: dict[str, str]
) -> None:
    """Tokens of --token-auth-file authenticate; the limited one has no rights, the admin one has all."""
    assert set(cluster_tokens) == {"admin", "limited", "issued"}
    limited = local_cluster.token_kubeconfig("limited")
    who = kubectl.json("auth", "whoami", kubeconfig=limited)["status"]["userInfo"]
    assert who["username"] == "token-limited"
    forbidden = kubectl("get", "namespaces", kubeconfig=limited, check=False)
    assert forbidden.returncode != 0
    assert "forbidden" in forbidden.stderr.lower()

    admin = local_cluster.token_kubeconfig("admin")
    kubectl("get", "namespaces", kubeconfig=admin)

    # a bearer token given on the command line, as a token endpoint's client would send it
    issued = kubectl(
        "auth", "whoami", "-o", "json", f"--token={cluster_tokens['issued']}", f"--server={local_cluster.server}",
        f"--certificate-authority={local_cluster.ca_file}", kubeconfig="/dev/null",
    )  # fmt: skip
    assert json.loads(issued.stdout)["status"]["userInfo"]["username"] == "issued-token-user"
