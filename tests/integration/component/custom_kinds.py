"""Custom kinds of the issue 25 tests: minimal CRDs with the group, kind and status shape of cert-manager's
Certificate and prometheus-operator's Prometheus (the repo's test sources hold neither), and their health rules."""

from __future__ import annotations

import json
from typing import Any, Dict, List

CRDS = [
    ("cert-manager.io", "Certificate", "certificates"),
    ("monitoring.coreos.com", "Prometheus", "prometheuses"),
]
CERTIFICATE_RULE = {
    "group": "cert-manager.io",
    "kind": "Certificate",
    "ready": {"condition": "Ready", "status": "True"},
    "failed": {"condition": "Issuing", "status": "False", "reason": "Failed"},
}
PROMETHEUS_RULE = {
    "group": "monitoring.coreos.com",
    "kind": "Prometheus",
    "ready": {"condition": "Available", "status": "True"},
    "failed": {"condition": "Reconciled", "status": "False"},
}


def crd(group: str, kind: str, plural: str) -> Dict[str, Any]:
    """A namespaced CRD with a status subresource and free-form spec and status."""
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def install_crds(kubectl: Any) -> None:
    """Apply the CRDs (cluster-scoped, idempotent) and wait until they are established."""
    for group, kind, plural in CRDS:
        kubectl.apply(json.dumps(crd(group, kind, plural)))
        kubectl("wait", "--for=condition=Established", f"crd/{plural}.{group}", "--timeout=60s")


def set_conditions(kubectl: Any, namespace: str, resource: str, conditions: List[Dict[str, str]]) -> None:
    """Write a custom resource's status subresource, as its controller would."""
    body = json.dumps({"status": {"conditions": conditions}})
    kubectl("patch", resource, "-n", namespace, "--subresource=status", "--type=merge", "-p", body)
