"""Playbook-level tests of issue 25: health rules for custom resources and the conflict policy, each proved by the
apiserver's state (the component's record, the live objects and their managed fields)."""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List

import pytest

from tests.integration.component.component_harness import Ansible, component
from tests.integration.component.custom_kinds import CERTIFICATE_RULE, PROMETHEUS_RULE, set_conditions

pytestmark = pytest.mark.cluster


def record_state(kubectl, namespace: str, name: str) -> Dict[str, Any]:
    """The component's status and inventory as its record in the cluster holds them."""
    record = kubectl.json("get", "configmap", f"cloud.nubes.component.{name}", "-n", namespace)
    status = json.loads(record["data"]["status"])
    status["inventory"] = json.loads(record["data"].get("inventory") or "[]")
    return status


@pytest.mark.parametrize(
    ("rule", "kind", "resource", "ready", "failed"),
    [
        (
            CERTIFICATE_RULE,
            "Certificate",
            "certificates.cert-manager.io/site",
            [{"type": "Ready", "status": "True", "reason": "Ready", "message": "Certificate is up to date"}],
            [{"type": "Issuing", "status": "False", "reason": "Failed", "message": "issuer letsencrypt not found"}],
        ),
        (
            PROMETHEUS_RULE,
            "Prometheus",
            "prometheuses.monitoring.coreos.com/site",
            [{"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "True"}],
            [{"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "False", "message": "bad rule"}],
        ),
    ],
)
def test_health_rule_makes_a_custom_resource_ready_or_failed(
    ansible: Ansible, kubectl, kube_namespace: str, custom_kinds: None, rule, kind, resource, ready, failed
) -> None:
    """Issue 25: with a health rule a Certificate (Ready=True) or a Prometheus (Available=True) is ready only as its
    status says (kstatus calls an object without conditions Current at once), and its failed check fails the task
    at once, naming the object and the status' message; the record in the cluster says Processing, Ready, Error."""
    group = rule["group"]
    definitions = [{"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": "site"}, "spec": {"x": "1"}}]
    task = component(kube_namespace, "site", definitions=definitions, health_rules=[rule], timeout=4)
    first = ansible.run([task])[0]
    assert first["failed"] is True and "Timeout" in first["msg"]
    assert kubectl("get", resource, "-n", kube_namespace).returncode == 0  # written, not ready
    assert record_state(kubectl, kube_namespace, "site")["state"] == "Error"
    assert record_state(kubectl, kube_namespace, "site")["inventory"][0]["phase"] != "Ready"

    set_conditions(kubectl, kube_namespace, resource, ready)
    second = ansible.run([task])[0]
    assert second.get("failed") is not True, second.get("msg")
    assert record_state(kubectl, kube_namespace, "site")["state"] == "Ready"

    set_conditions(kubectl, kube_namespace, resource, failed)
    started = time.monotonic()
    third = ansible.run([dict(task, **{"nubes.cloud.component": dict(task["nubes.cloud.component"], timeout=120)})])[0]
    assert third["failed"] is True
    assert time.monotonic() - started < 60  # at once, not after the 120 s timeout
    assert f"{kind} {kube_namespace}/site is failed by the health rule" in third["msg"]
    assert failed[-1]["message"] in third["msg"]
    assert record_state(kubectl, kube_namespace, "site")["state"] == "Error"


def test_a_health_rule_that_does_not_parse_fails_before_any_write(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """Issue 25: a rule with a dotted path instead of a JSON pointer fails the task before any write."""
    definitions = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "untouched"}}]
    bad = [{"group": "", "kind": "ConfigMap", "ready": {"field": "data.ready", "value": "yes"}}]
    result = ansible.run([component(kube_namespace, "bad-rule", definitions=definitions, health_rules=bad)])[0]
    assert result["failed"] is True
    assert "health_rules[0].ready.field" in result["msg"] and "JSON pointer" in result["msg"]
    assert kubectl("get", "configmap", "untouched", "-n", kube_namespace, check=False).returncode != 0
    records = kubectl.json("get", "configmaps", "-n", kube_namespace, "-l", "component.nubes.cloud/component")
    assert records["items"] == []


def owners_of(kubectl, namespace: str, name: str, key: str) -> List[str]:
    """The field managers that own ``data.<key>`` of a ConfigMap."""
    live = kubectl.json("get", "configmap", name, "-n", namespace, "--show-managed-fields")
    return [
        entry["manager"]
        for entry in live["metadata"]["managedFields"]
        if f"f:{key}" in (entry.get("fieldsV1") or {}).get("f:data", {})
    ]


def test_conflict_policy_reclaims_listed_managers_and_names_the_others(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """C15, issue 25: a field that `kubectl patch` (a reclaimed manager, default prefix kubectl) changed is taken
    back; a field another manager holds fails the task naming that manager and reclaim_field_managers, and nothing
    is written; listing the manager resolves it."""

    def task(value: str, **options: Any) -> Dict[str, Any]:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "conf"}, "data": {"a": value, "b": "x"}}
        return component(kube_namespace, "conf", definitions=[cm], **options)

    assert ansible.run([task("1")])[0].get("failed") is not True
    patch = json.dumps({"data": {"a": "by-kubectl"}})
    kubectl("patch", "configmap", "conf", "-n", kube_namespace, "--type=merge", "-p", patch)
    assert "kubectl-patch" in owners_of(kubectl, kube_namespace, "conf", "a")

    reclaimed = ansible.run([task("2")])[0]
    assert reclaimed.get("failed") is not True, reclaimed.get("msg")
    live = kubectl.json("get", "configmap", "conf", "-n", kube_namespace)
    assert live["data"]["a"] == "2"
    assert owners_of(kubectl, kube_namespace, "conf", "a") == ["component.nubes.cloud"]

    patch = json.dumps({"data": {"a": "by-ops"}})
    kubectl("patch", "configmap", "conf", "-n", kube_namespace, "--type=merge", "-p", patch, "--field-manager=ops-bot")
    refused = ansible.run([task("3")])[0]
    assert refused["failed"] is True
    assert "field manager 'ops-bot' holds .data.a" in refused["msg"]
    assert "reclaim_field_managers" in refused["msg"]
    assert kubectl.json("get", "configmap", "conf", "-n", kube_namespace)["data"]["a"] == "by-ops"

    resolved = ansible.run([task("3", reclaim_field_managers=["kubectl", "ops-"])])[0]
    assert resolved.get("failed") is not True, resolved.get("msg")
    assert kubectl.json("get", "configmap", "conf", "-n", kube_namespace)["data"]["a"] == "3"
    assert owners_of(kubectl, kube_namespace, "conf", "a") == ["component.nubes.cloud"]
