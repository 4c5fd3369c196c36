"""Unit tests of the Kubernetes state backend's calls (P42, issue 24): what a 403 tells the user to grant, read from
the apiserver's Status. The retries and the read-back run against the real apiserver in tests/integration/state."""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import api_error
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_objects import forbidden_text


def test_forbidden_names_the_user_verb_resource_and_group_from_the_status() -> None:
    """P42: the apiserver's 403 Status (message and details) gives who, which verb, which resource and its group."""
    status = {
        "kind": "Status",
        "reason": "Forbidden",
        "message": 'leases.coordination.k8s.io "nubes-lock-1" is forbidden: User "system:serviceaccount:awx:job" '
        'cannot delete resource "leases" in API group "coordination.k8s.io" in the namespace "awx"',
        "details": {"name": "nubes-lock-1", "group": "coordination.k8s.io", "kind": "leases"},
        "code": 403,
    }
    error = api_error("DELETE", "/apis/coordination.k8s.io/v1/namespaces/awx/leases/nubes-lock-1", 403, status)
    assert forbidden_text(error, "awx") == (
        'the identity (User "system:serviceaccount:awx:job") cannot delete leases in namespace awx: grant verb delete '
        "on resource leases (API group coordination.k8s.io) in namespace awx"
    )


def test_forbidden_without_the_usual_message_falls_back_to_the_call() -> None:
    """P42: a 403 whose message has another form (a webhook authorizer's) still names a verb (from the HTTP method)
    and the resource (from the Status details)."""
    error = api_error(
        "PUT", "/api/v1/namespaces/ns/secrets/s", 403, {"message": "denied", "details": {"kind": "secrets"}}
    )
    assert forbidden_text(error, "ns") == (
        "the identity cannot update secrets in namespace ns: grant verb update on resource secrets in namespace ns"
    )
