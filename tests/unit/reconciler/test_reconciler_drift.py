"""Unit tests: the live-drift comparison, ignore rules and pinning (issue 25)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import drift
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults, object_policies


def deployment(replicas: int = 3, **extra_meta: Any) -> Dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo", "labels": {"app": "web"}, **extra_meta},
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1"}]}},
        },
    }


def live_of(body: Dict[str, Any], **changes: Any) -> Dict[str, Any]:
    """The body as the server shows it: defaults and bookkeeping added."""
    live = drift.comparable(body, [])  # a deep copy
    live["metadata"].update(resourceVersion="42", uid="u-1", generation=2, managedFields=[])
    live["spec"]["strategy"] = {"type": "RollingUpdate"}
    live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "IfNotPresent"
    live["status"] = {"replicas": 3}
    live["spec"].update(changes)
    return live


def test_defaults_and_bookkeeping_are_no_drift() -> None:
    """Issue 25: fields the server adds (defaults, resourceVersion, status, other managers' fields) never count."""
    body = deployment()
    assert drift.differs(body, live_of(body), []) is False


def test_changed_value_missing_label_and_list_length_are_drift() -> None:
    """Issue 25: a scaled replica count, a removed label and a removed list element are drift."""
    body = deployment()
    assert drift.differs(body, live_of(body, replicas=5), [])
    unlabelled = live_of(body)
    unlabelled["metadata"]["labels"] = {}
    assert drift.differs(body, unlabelled, [])
    no_containers = live_of(body)
    no_containers["spec"]["template"]["spec"]["containers"] = []
    assert drift.differs(body, no_containers, [])


def test_ignored_pointer_is_not_drift_and_is_pinned_to_live() -> None:
    """Issue 25, the HPA case: /spec/replicas ignored is left out of the comparison and written as it is live."""
    body = deployment(replicas=3)
    live = live_of(body, replicas=7)
    paths = drift.ignored_paths(live, ["/spec/replicas"], [])
    assert drift.differs(body, live, paths) is False
    assert drift.pin(body, live, paths)["spec"]["replicas"] == 7
    assert body["spec"]["replicas"] == 3  # the desired object is never changed


def test_pointer_absent_live_is_left_out_of_the_write() -> None:
    """Issue 25: an ignored field the live object lacks is not written (it stays to whoever sets it)."""
    body = deployment()
    live = live_of(body)
    del live["spec"]["replicas"]
    paths = drift.ignored_paths(live, ["/spec/replicas"], [])
    assert "replicas" not in drift.pin(body, live, paths)["spec"]


def test_ignored_manager_fields_resolved_through_keys() -> None:
    """Issue 25: fields a listed field manager owns (fieldsV1, list items by key) are ignored; others are not."""
    body = deployment()
    live = live_of(body, replicas=9)
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    live["metadata"]["managedFields"] = [
        {
            "manager": "hpa-controller",
            "operation": "Update",
            "fieldsV1": {
                "f:spec": {
                    "f:replicas": {},
                    "f:template": {"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:image": {}}}}},
                }
            },
        },
        {"manager": "other", "operation": "Update", "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}},
    ]
    paths = drift.ignored_paths(live, [], ["hpa-controller"])
    assert ("spec", "replicas") in paths
    assert ("spec", "template", "spec", "containers", 0, "image") in paths
    assert drift.differs(body, live, paths) is False
    live["metadata"]["labels"]["app"] = "other"
    assert drift.differs(body, live, paths) is True


def test_pointer_escapes_and_errors() -> None:
    """Issue 25: RFC 6901 escapes; a path without a leading '/' is an error naming an example."""
    assert drift.parse_pointer("/metadata/labels/app.kubernetes.io~1name") == (
        "metadata",
        "labels",
        "app.kubernetes.io/name",
    )
    with pytest.raises(ValidationError, match="/spec/replicas"):
        drift.parse_pointer("spec/replicas")
    with pytest.raises(ValidationError):
        drift.parse_rules([{"paths": ["replicas"]}])


def test_comparable_ignores_server_bookkeeping() -> None:
    """Issue 25: the dry-run answer and the live object are compared without managedFields, resourceVersion,
    generation and status."""
    body = deployment()
    live = live_of(body)
    answer = drift.comparable(live, [])
    answer_raw = dict(live, metadata=dict(live["metadata"], resourceVersion="43", generation=3))
    assert drift.comparable(answer_raw, []) == answer


def test_rule_target_and_annotations() -> None:
    """Issue 25: a rule applies to the objects its target selects; the per-object annotations parse into the
    object's policies, and a bad pointer there is an error before any write."""
    rule = drift.parse_rules([{"paths": ["/spec/replicas"], "target": {"kind": "Deployment", "name": ""}}])[0]
    assert rule.selects("apps", "Deployment", "demo", "web")
    assert not rule.selects("", "ConfigMap", "demo", "web")
    prefix = "component.nubes.cloud"
    policies = object_policies(
        {f"{prefix}/drift-ignore-paths": "/spec/replicas, /metadata/labels/x", f"{prefix}/drift-ignore-managers": "a"},
        prefix,
        Defaults().normalised(),
    )
    assert policies.drift_ignore_paths == ["/spec/replicas", "/metadata/labels/x"]
    assert policies.drift_ignore_managers == ["a"]
    with pytest.raises(ValidationError):
        object_policies({f"{prefix}/drift-ignore-paths": "spec"}, prefix, Defaults().normalised())


def test_secret_string_data_compared_as_stored() -> None:
    """Issue 25: a Secret's stringData is compared as the base64 data the server stores (no dry run needed)."""
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"i": "1"}}
    live = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"i": "MQ=="}, "type": "Opaque"}
    assert drift.differs(body, live, []) is False
    assert drift.differs(body, dict(live, data={"i": "Mg=="}), []) is True
