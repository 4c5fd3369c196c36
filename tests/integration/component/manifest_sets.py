"""Real-shaped manifest sets, generated (never copied from a project): the shapes of two well-known operators'
published install bundles, built from the kinds their documentation lists.

- set ``delivery`` (about 60 objects): a GitOps-style delivery operator: three CRDs (one over 256 KiB), RBAC, a
  controller, a repo server and a server Deployment, a validating webhook, ConfigMaps and Secrets, a
  ``ConfigMapList`` of settings, alerting rules of its own CRD with ``{{ $labels.instance }}`` text.
- set ``monitoring`` (about 130 objects): a monitoring-stack operator: six CRDs (one over 256 KiB), wide RBAC, an
  operator and exporters, a webhook, a ``ConfigMapList`` of dashboards, many alerting rules.

Each set is a kustomize tree: ``base/`` holds the objects, ``overlay/`` references ``../base`` (labels and a
patch), as the published bundles do (``kubectl apply -k overlay``). Every CRD schema carries a plain ``=`` (an enum
value and a property name), which Go's YAML parser reads as the string "=" and PyYAML's safe loader rejects.

Variants: ``initial``; ``update`` (a changed ConfigMap, Deployment and rule); ``prune`` (objects removed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import yaml

SHAPES: Dict[str, Dict[str, int]] = {
    # objects: crds + sa + clusterroles*2 + roles*2 + cms + secrets + services + deployments + webhook + pdb
    #          + netpols + list + rules + instances
    "delivery": {
        "crds": 3,
        "service_accounts": 4,
        "cluster_roles": 3,
        "roles": 3,
        "config_maps": 12,
        "secrets": 3,
        "services": 4,
        "deployments": 3,
        "network_policies": 6,
        "list_items": 4,
        "rules": 4,
        "instances": 2,
    },
    "monitoring": {
        "crds": 6,
        "service_accounts": 8,
        "cluster_roles": 8,
        "roles": 8,
        "config_maps": 16,
        "secrets": 6,
        "services": 9,
        "deployments": 6,
        "network_policies": 6,
        "list_items": 12,
        "rules": 20,
        "instances": 4,
    },
}
HUGE_CRD_BYTES = 300 * 1024
WEBHOOK_LABEL = "sets.nubes.test/validated"


def _meta(name: str, namespace: str = "", **labels: str) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name, "labels": {"app.kubernetes.io/name": name, **labels}}
    if namespace:
        meta["namespace"] = namespace
    return meta


def _schema(huge: bool) -> Dict[str, Any]:
    """An OpenAPI schema; the huge one documents hundreds of fields (as generated CRDs of big operators do)."""
    matcher = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "operator": {"type": "string", "enum": ["=", "!=", "=~", "!~"]},
            "=": {"type": "string", "description": "shorthand for an equality match"},
        },
    }
    spec: Dict[str, Any] = {
        "type": "object",
        "properties": {
            "size": {"type": "integer"},
            "expr": {"type": "string"},
            "description": {"type": "string"},
            "matchers": {"type": "array", "items": matcher},
        },
    }
    if huge:
        text = "This field configures one aspect of the reconciliation; see the operator's documentation. " * 3
        number = 0
        while len(json.dumps(spec)) < HUGE_CRD_BYTES:
            spec["properties"][f"option{number}"] = {
                "type": "object",
                "description": text,
                "properties": {
                    "enabled": {"type": "boolean", "description": text},
                    "value": {"type": "string", "description": text},
                    "limits": {
                        "type": "object",
                        "properties": {"cpu": {"type": "string"}, "memory": {"type": "string"}},
                    },
                },
            }
            number += 1
    return {
        "type": "object",
        "properties": {"spec": spec, "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }


def _crd(group: str, kind: str, huge: bool) -> Dict[str, Any]:
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}", "labels": {"app.kubernetes.io/part-of": group}},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": _schema(huge)},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def _deployment(name: str, namespace: str, replicas: int, env: str) -> Dict[str, Any]:
    labels = {"app.kubernetes.io/name": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(name, namespace),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": "default",
                    "containers": [
                        {
                            "name": "main",
                            "image": f"registry.example.invalid/{name}:v1.0.0",
                            "args": ["--log-level=info", f"--namespace={namespace}"],
                            "env": [{"name": "MODE", "value": env}],
                            "ports": [{"containerPort": 8080, "name": "http"}],
                            "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}},
                        }
                    ],
                },
            },
        },
    }


def _rule(group: str, name: str, namespace: str, severity: str) -> Dict[str, Any]:
    return {
        "apiVersion": f"{group}/v1",
        "kind": "AlertRule",
        "metadata": _meta(name, namespace),
        "spec": {
            "expr": f'up{{job="{name}"}} == 0',
            "description": "{{ $labels.instance }} of job {{ $labels.job }} is down (" + severity + ")",
            "matchers": [{"name": "severity", "operator": "="}],
        },
    }


def objects(shape: str, namespace: str, group: str, variant: str = "initial") -> List[Dict[str, Any]]:
    """The base objects of a set (documents; the ConfigMapList is one document)."""
    counts = SHAPES[shape]
    prune = variant == "prune"
    update = variant == "update"
    docs: List[Dict[str, Any]] = []
    kinds = ["Widget", "AlertRule", "Project", "Probe", "Receiver", "Silence"][: counts["crds"]]
    for index, kind in enumerate(kinds):
        docs.append(_crd(group, kind, huge=index == 0))
    for n in range(counts["service_accounts"]):
        docs.append({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(f"{shape}-sa-{n}", namespace)})
    rbac = "rbac.authorization.k8s.io/v1"
    for n in range(counts["cluster_roles"]):
        name = f"{group}-reader-{n}"
        rules = [{"apiGroups": [group], "resources": ["*"], "verbs": ["get", "list", "watch"]}]
        docs.append({"apiVersion": rbac, "kind": "ClusterRole", "metadata": _meta(name), "rules": rules})
        subject = {"kind": "ServiceAccount", "name": f"{shape}-sa-{n % counts['service_accounts']}"}
        docs.append(
            {
                "apiVersion": rbac,
                "kind": "ClusterRoleBinding",
                "metadata": _meta(name),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                "subjects": [dict(subject, namespace=namespace)],
            }
        )
    for n in range(counts["roles"] - (1 if prune else 0)):
        name = f"{shape}-role-{n}"
        rules = [{"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["get", "list", "watch"]}]
        docs.append({"apiVersion": rbac, "kind": "Role", "metadata": _meta(name, namespace), "rules": rules})
        docs.append(
            {
                "apiVersion": rbac,
                "kind": "RoleBinding",
                "metadata": _meta(name, namespace),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                "subjects": [{"kind": "ServiceAccount", "name": f"{shape}-sa-0", "namespace": namespace}],
            }
        )
    for n in range(counts["config_maps"] - (2 if prune else 0)):
        data = {"setting": f"value-{n}", "template": "{{ $labels.instance }}: {{ $value }}"}
        if update and n == 0:
            data["setting"] = "changed"
        docs.append(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta(f"{shape}-cm-{n}", namespace), "data": data}
        )
    for n in range(counts["secrets"]):
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": _meta(f"{shape}-secret-{n}", namespace),
                "type": "Opaque",
                "stringData": {"token": f"generated-token-{n}"},
            }
        )
    for n in range(counts["services"]):
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": _meta(f"{shape}-svc-{n}", namespace),
                "spec": {
                    "selector": {"app.kubernetes.io/name": f"{shape}-deploy-{n % counts['deployments']}"},
                    "ports": [{"name": "http", "port": 80, "targetPort": 8080}],
                },
            }
        )
    # the webhook's Service selects no pod: the apiserver never connects anywhere, the call fails at once and
    # failurePolicy Ignore lets the write through
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(f"{shape}-webhook", namespace),
            "spec": {
                "selector": {"app.kubernetes.io/name": f"{shape}-no-pods"},
                "ports": [{"port": 443, "targetPort": 9443}],
            },
        }
    )
    for n in range(counts["deployments"]):
        docs.append(_deployment(f"{shape}-deploy-{n}", namespace, 1, "updated" if update and n == 0 else "normal"))
    docs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": _meta(f"{shape}-deploy-0", namespace),
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": f"{shape}-deploy-0"}}},
        }
    )
    for n in range(counts["network_policies"]):
        docs.append(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": _meta(f"{shape}-netpol-{n}", namespace),
                "spec": {
                    "podSelector": {
                        "matchLabels": {"app.kubernetes.io/name": f"{shape}-deploy-{n % counts['deployments']}"}
                    },
                    "policyTypes": ["Ingress"],
                    "ingress": [{"ports": [{"port": 8080, "protocol": "TCP"}]}],
                },
            }
        )
    docs.append(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": _meta(f"{group}-validator"),
            "webhooks": [
                {
                    "name": f"validate.{group}",
                    "admissionReviewVersions": ["v1"],
                    "sideEffects": "None",
                    "failurePolicy": "Ignore",
                    "timeoutSeconds": 1,
                    "objectSelector": {"matchLabels": {WEBHOOK_LABEL: group}},
                    "clientConfig": {
                        "service": {
                            "name": f"{shape}-webhook",
                            "namespace": namespace,
                            "path": "/validate",
                            "port": 443,
                        }
                    },
                    "rules": [
                        {
                            "apiGroups": [group],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE", "UPDATE"],
                            "resources": ["widgets"],
                        }
                    ],
                }
            ],
        }
    )
    # a typed list of dashboards (kustomize wants apiVersion and kind on the items too)
    docs.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMapList",
            "items": [
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": _meta(f"{shape}-dashboard-{n}", namespace, **{"dashboards.sets.nubes.test/load": "1"}),
                    "data": {f"dashboard-{n}.json": json.dumps({"title": f"Dashboard {n}", "panels": [{"id": n}]})},
                }
                for n in range(counts["list_items"])
            ],
        }
    )
    for n in range(counts["rules"] - (1 if prune else 0)):
        rule = _rule(group, f"{shape}-rule-{n}", namespace, "critical" if n % 2 else "warning")
        if update and n == 0:
            rule["spec"]["expr"] = 'up{job="changed"} == 0'
        docs.append(rule)
    for n in range(counts["instances"]):
        labels = {WEBHOOK_LABEL: group}
        docs.append(
            {
                "apiVersion": f"{group}/v1",
                "kind": "Widget",
                "metadata": _meta(f"{shape}-widget-{n}", namespace, **labels),
                "spec": {"size": n + 1, "matchers": [{"name": "tier", "operator": "!="}]},
            }
        )
    return docs


def count_objects(docs: List[Dict[str, Any]]) -> int:
    """Objects after list expansion."""
    return sum(len(d["items"]) if d["kind"].endswith("List") else 1 for d in docs)


def _yaml(docs: List[Dict[str, Any]]) -> str:
    return plain_equals(yaml.safe_dump_all(docs, sort_keys=False, width=1000))


def plain_equals(text: str) -> str:
    """Write ``=`` plain, as bundles do: Go YAML reads it as the string "="; PyYAML's safe loader rejects it
    (tag:yaml.org,2002:value)."""
    return text.replace("- '='\n", "- =\n").replace("'=':", "=:")


def write(root: Path, shape: str, namespace: str, group: str, variant: str = "initial") -> Path:
    """Write ``root/<shape>/base`` and ``root/<shape>/overlay`` (``resources: [../base]``); return the overlay."""
    docs = objects(shape, namespace, group, variant)
    base = root / shape / "base"
    overlay = root / shape / "overlay"
    base.mkdir(parents=True, exist_ok=True)
    overlay.mkdir(parents=True, exist_ok=True)
    groups = {
        "crds.yaml": [d for d in docs if d["kind"] == "CustomResourceDefinition"],
        "rbac.yaml": [d for d in docs if d["apiVersion"].startswith("rbac.") or d["kind"] == "ServiceAccount"],
        "workloads.yaml": [
            d for d in docs if d["kind"] in ("Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy")
        ],
        "config.yaml": [d for d in docs if d["kind"] in ("ConfigMap", "Secret")],
        "dashboards.yaml": [d for d in docs if d["kind"] == "ConfigMapList"],
        "webhook.yaml": [d for d in docs if d["kind"] == "ValidatingWebhookConfiguration"],
        "rules.yaml": [d for d in docs if d["kind"] in ("AlertRule", "Widget")],
    }
    for name, members in groups.items():
        (base / name).write_text(_yaml(members), encoding="utf-8")
    (base / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": list(groups)}
        ),
        encoding="utf-8",
    )
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ["../base"],
        "labels": [{"pairs": {"app.kubernetes.io/part-of": shape}, "includeSelectors": False}],
        "patches": [
            {
                "target": {"kind": "Deployment", "name": f"{shape}-deploy-1"},
                "patch": json.dumps([{"op": "replace", "path": "/spec/replicas", "value": 2}]),
            }
        ],
    }
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(kustomization, sort_keys=False), encoding="utf-8")
    return overlay
