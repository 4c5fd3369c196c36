"""Unit tests: health rules for custom resources, parsing and evaluation (issue 25)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.health_rules import (
    HealthFailedError,
    parse_health_rules,
    rules_analyzer,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import StatusHints

CERTIFICATE = {
    "group": "cert-manager.io",
    "kind": "Certificate",
    "ready": {"condition": "Ready", "status": "True"},
    "failed": {"condition": "Issuing", "status": "False", "reason": "Failed"},
}
PROMETHEUS = {
    "group": "monitoring.coreos.com",
    "kind": "Prometheus",
    "ready": {"condition": "Available"},
    "failed": {"condition": "Reconciled", "status": False},
}
PHASE = {"group": "example.com", "kind": "Job", "ready": {"field": "/status/phase", "value": "Done"}}


def resource(
    api_version: str, kind: str, conditions: Optional[List[Dict[str, Any]]] = None, **status: Any
) -> Dict[str, Any]:
    body: Dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "n"}}
    if conditions is not None:
        status["conditions"] = conditions
    if status:
        body["status"] = status
    return body


def test_rules_parse_both_forms_with_defaults() -> None:
    """Issue 25: a condition check (status default "True", YAML booleans accepted) and a field check parse."""
    rules = parse_health_rules([CERTIFICATE, PROMETHEUS, PHASE])
    assert rules[0].ready.condition == "Ready" and rules[0].failed is not None and rules[0].failed.reason == "Failed"
    assert rules[1].ready.status == "True" and rules[1].failed is not None and rules[1].failed.status == "False"
    assert rules[2].ready.pointer == ("status", "phase") and rules[2].ready.value == "Done" and rules[2].failed is None
    assert parse_health_rules(None) == []


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ([{"kind": "Certificate"}], "health_rules[0].ready: required"),
        ([{"group": "a", "ready": {"condition": "Ready"}}], "health_rules[0].kind"),
        ([{"kind": "K", "ready": {"condition": "Ready", "status": "yes"}}], "health_rules[0].ready.status"),
        ([{"kind": "K", "ready": {"field": "status.phase", "value": 1}}], "is not a JSON pointer"),
        ([{"kind": "K", "ready": {"field": "/status/phase"}}], "health_rules[0].ready: expected"),
        ([{"kind": "K", "ready": {"condition": "Ready", "value": 1}}], "health_rules[0].ready: expected"),
        ([{"kind": "K", "ready": "Ready=True"}], "health_rules[0].ready: expected"),
        ([{"kind": "K", "ready": {"condition": "A"}, "healthy": {}}], "unknown key(s) healthy"),
        ([CERTIFICATE, CERTIFICATE], "health_rules[1]: a second rule for Certificate.cert-manager.io"),
        (["Certificate"], "health_rules[0]: expected a mapping"),
        ([{"kind": "K", "ready": {"field": "/status/x", "present": "yes"}}], "health_rules[0].ready.present"),
        ([{"kind": "K", "ready": {"field": "status.x", "present": True}}], "is not a JSON pointer"),
        ([{"kind": "K", "ready": {"field": "/status/x", "present": True, "value": 1}}], "ready: expected"),
    ],
)
def test_a_rule_that_does_not_parse_names_the_rule_and_key(raw: List[Any], named: str) -> None:
    """Issue 25: every parse error is a ValidationError naming the rule's index and key and the accepted forms."""
    with pytest.raises(ValidationError) as err:
        parse_health_rules(raw)
    assert named in str(err.value)


def test_certificate_ready_and_failed_by_its_conditions() -> None:
    """Issue 25: a cert-manager Certificate is ready on Ready=True and failed (an error) on Issuing=False/Failed."""
    analyzer = rules_analyzer(parse_health_rules([CERTIFICATE]))
    hints = StatusHints()
    status, message = analyzer(resource("cert-manager.io/v1", "Certificate", []), hints)
    assert (status, message) == (c.STATUS_IN_PROGRESS, "waiting for condition Ready=True: no Ready condition yet")
    pending = [{"type": "Ready", "status": "False", "reason": "DoesNotExist", "message": "Issuing certificate"}]
    assert analyzer(resource("cert-manager.io/v1", "Certificate", pending), hints)[0] == c.STATUS_IN_PROGRESS
    ready = [{"type": "Ready", "status": "True", "reason": "Ready"}]
    assert analyzer(resource("cert-manager.io/v1", "Certificate", ready), hints)[0] == c.STATUS_CURRENT
    failed = [{"type": "Issuing", "status": "False", "reason": "Failed", "message": "The issuer is gone"}]
    with pytest.raises(HealthFailedError) as err:
        analyzer(resource("cert-manager.io/v1", "Certificate", failed), hints)
    assert "Certificate n/x" in str(err.value) and "The issuer is gone" in str(err.value)
    assert err.value.retriable is False


def test_prometheus_available_and_reconciled() -> None:
    """Issue 25: a Prometheus is ready on Available=True, failed on Reconciled=False; kstatus would call the
    Available=False object Current (it has no Ready condition)."""
    analyzer = rules_analyzer(parse_health_rules([PROMETHEUS]))
    waiting = resource("monitoring.coreos.com/v1", "Prometheus", [{"type": "Available", "status": "False"}])
    assert analyzer(waiting, StatusHints())[0] == c.STATUS_IN_PROGRESS
    ok = [{"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "True"}]
    assert analyzer(resource("monitoring.coreos.com/v1", "Prometheus", ok), StatusHints())[0] == c.STATUS_CURRENT
    bad = [{"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "False"}]
    with pytest.raises(HealthFailedError):
        analyzer(resource("monitoring.coreos.com/v1", "Prometheus", bad), StatusHints())


def test_field_rule_other_kinds_and_old_generations() -> None:
    """Issue 25: a field rule compares a JSON pointer's value; other kinds keep kstatus; a status of an older
    generation never decides; a deleting object is Terminating."""
    analyzer = rules_analyzer(parse_health_rules([PHASE]))
    assert analyzer(resource("example.com/v1", "Job", phase="Running"), StatusHints())[0] == c.STATUS_IN_PROGRESS
    assert analyzer(resource("example.com/v1", "Job", phase="Done"), StatusHints())[0] == c.STATUS_CURRENT
    other = resource("batch/v1", "Job", [{"type": "Complete", "status": "True"}])
    assert analyzer(other, StatusHints())[0] == c.STATUS_CURRENT  # kstatus' Job rule
    stale = resource("example.com/v1", "Job", phase="Done", observedGeneration=1)
    stale["metadata"]["generation"] = 2
    assert analyzer(stale, StatusHints())[0] == c.STATUS_IN_PROGRESS
    stale["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert analyzer(stale, StatusHints())[0] == c.STATUS_TERMINATING


LOAD_BALANCER = {"group": "", "kind": "Service", "ready": {"field": "/status/loadBalancer/ingress", "present": True}}


def test_presence_rule_needs_a_non_empty_field() -> None:
    """Issue 25: the presence form: a LoadBalancer Service is ready only once /status/loadBalancer/ingress exists and
    is not empty (kstatus calls it Current without an address); ``present: false`` wants it missing or empty."""
    rules = parse_health_rules([LOAD_BALANCER])
    assert rules[0].ready.present is True and rules[0].ready.describe() == "field /status/loadBalancer/ingress present"
    analyzer = rules_analyzer(rules)
    service = resource("v1", "Service")
    assert analyzer(service, StatusHints()) == (
        c.STATUS_IN_PROGRESS,
        "waiting for field /status/loadBalancer/ingress present: /status/loadBalancer/ingress is missing",
    )
    empties: tuple[dict[str, Any], ...] = ({}, {"ingress": []}, {"ingress": None})
    for empty in empties:
        assert analyzer(resource("v1", "Service", loadBalancer=empty), StatusHints())[0] == c.STATUS_IN_PROGRESS
    addressed = resource("v1", "Service", loadBalancer={"ingress": [{"ip": "10.0.0.7"}]})
    assert analyzer(addressed, StatusHints())[0] == c.STATUS_CURRENT
    absent = rules_analyzer(parse_health_rules([{"kind": "K", "ready": {"field": "/status/error", "present": False}}]))
    assert absent(resource("v1", "K", error=""), StatusHints())[0] == c.STATUS_CURRENT
    assert absent(resource("v1", "K", error="broken"), StatusHints())[0] == c.STATUS_IN_PROGRESS
