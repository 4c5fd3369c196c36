"""Playbook-level tests of issue 25: the presence form of a health rule (the stricter LoadBalancer check) and drift
detection set in the component's spec (C9), each proved by the apiserver's state (the record, the live objects).
"""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from tests.integration.component.component_harness import Ansible, component
from tests.integration.component.test_component_health_conflicts import record_state

pytestmark = pytest.mark.cluster

LOAD_BALANCER = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "edge"},
    "spec": {"type": "LoadBalancer", "selector": {"app": "edge"}, "ports": [{"port": 80, "targetPort": 8080}]},
}
ADDRESS_RULE = {"group": "", "kind": "Service", "ready": {"field": "/status/loadBalancer/ingress", "present": True}}


def test_presence_rule_makes_a_load_balancer_wait_for_its_address(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """Issue 25: readiness follows kstatus for Services (a LoadBalancer without an address is Ready), and the
    stricter check is a health rule with the presence form: with ``{field: /status/loadBalancer/ingress, present:
    true}`` the same Service is not ready (the task times out naming the rule, the record says Error) until an
    address is in its status; then the next run is Ready."""
    ns = kube_namespace
    plain, strict = ansible.run(
        [
            component(ns, "edge", definitions=[LOAD_BALANCER]),
            component(ns, "edge", definitions=[LOAD_BALANCER], health_rules=[ADDRESS_RULE], timeout=5),
        ]
    )
    assert not plain.get("failed"), plain.get("msg")
    assert plain["state"] == "Ready"  # kstatus: a cluster IP is enough
    assert strict["failed"] is True
    assert "Timeout" in strict["msg"]
    assert "waiting for field /status/loadBalancer/ingress present" in strict["msg"], strict["msg"]
    service = kubectl.json("get", "service", "edge", "-n", ns)
    assert not (service.get("status") or {}).get("loadBalancer", {}).get("ingress")
    record = record_state(kubectl, ns, "edge")
    assert record["state"] == "Error"
    assert record["inventory"][0]["status"] == "InProgress"  # applied before, not ready by the rule

    address = {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}}
    kubectl("patch", "service", "edge", "-n", ns, "--subresource=status", "--type=merge", "-p", json.dumps(address))
    ready = ansible.run([component(ns, "edge", definitions=[LOAD_BALANCER], health_rules=[ADDRESS_RULE])])[0]
    assert not ready.get("failed"), ready.get("msg")
    assert record_state(kubectl, ns, "edge")["state"] == "Ready"
    assert record_state(kubectl, ns, "edge")["inventory"][0]["status"] == "Current"


SETTINGS = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"message": "hello"}}


def _settings(namespace: str, drift: Dict[str, Any], **options: Any) -> Dict[str, Any]:
    spec = {"driftDetection": drift}
    return component(namespace, "cfg", definitions=[SETTINGS], spec=spec, spec_configuration=True, **options)


def _message(kubectl, namespace: str) -> str:
    return str(kubectl.json("get", "configmap", "settings", "-n", namespace)["data"]["message"])


def _edit(kubectl, namespace: str) -> None:
    kubectl("patch", "configmap", "settings", "-n", namespace, "--type=merge", "-p", '{"data":{"message":"edited"}}')


def test_drift_detection_set_in_the_spec(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Issue 25, C9: with ``spec_configuration`` the spec's ``driftDetection`` sets the drift option: ``mode: warn``
    reports an edited ConfigMap and leaves it edited; the task's ``drift_detection.mode`` wins over the spec and
    corrects it; an ``ignore`` rule in the spec keeps the edited value (the task sets no mode, enabled)."""
    ns = kube_namespace
    warn = {"mode": "warn"}
    first = ansible.run([_settings(ns, warn)])[0]
    assert not first.get("failed"), first.get("msg")
    _edit(kubectl, ns)

    warned, corrected = ansible.run([_settings(ns, warn), _settings(ns, warn, drift_detection={"mode": "enabled"})])
    ref = f"ConfigMap {ns}/settings"
    assert not warned.get("failed"), warned.get("msg")
    assert (warned["changed"], warned["drift"]) == (False, [ref])
    assert any("drift_detection mode warn" in w for w in warned.get("warnings", [])), warned.get("warnings")
    assert not corrected.get("failed"), corrected.get("msg")
    assert (corrected["changed"], corrected["drift"]) == (True, [ref])
    assert _message(kubectl, ns) == "hello"  # the task's mode won over the spec's warn

    _edit(kubectl, ns)
    ignore = {"ignore": [{"paths": ["/data/message"], "target": {"kind": "ConfigMap"}}]}
    ignored = ansible.run([_settings(ns, ignore)])[0]
    assert not ignored.get("failed"), ignored.get("msg")
    assert (ignored["changed"], ignored["drift"]) == (False, [])
    assert _message(kubectl, ns) == "edited"
