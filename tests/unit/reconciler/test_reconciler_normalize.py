"""Unit tests: validation and normalisation of desired objects (reference 3.3 steps 1-4, C10)."""

from __future__ import annotations

import base64
import copy
from typing import Any, Dict, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.normalize import normalise_objects
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults

KNOWN = {
    ("", "v1", "ConfigMap"): True,
    ("", "v1", "Secret"): True,
    ("", "v1", "Namespace"): False,
    ("apps", "v1", "Deployment"): True,
    ("rbac.authorization.k8s.io", "v1", "ClusterRole"): False,
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"): False,
    ("apiregistration.k8s.io", "v1", "APIService"): False,
}


def scope(group: str, version: str, kind: str) -> Optional[bool]:
    return KNOWN.get((group, version, kind))


def norm(*objects: Dict[str, Any], namespace: str = "deploy-ns"):
    return normalise_objects(list(objects), namespace, Markers(), Defaults().normalised(), scope)


def cm(name: str = "a", **meta: Any) -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **meta}, "data": {"k": "v"}}


CRD: Dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets"},
        "scope": "Namespaced",
        "versions": [{"name": "v1", "served": True, "storage": True}],
    },
}


def test_namespace_defaulting_and_clearing() -> None:
    """C10: namespaced objects without a namespace get the deployment namespace; cluster-scoped ones lose theirs."""
    objs = norm(
        cm("a"),
        cm("b", namespace="other"),
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "r", "namespace": "x"},
        },
    )
    assert [o.namespace for o in objs] == ["deploy-ns", "other", ""]
    assert objs[0].manifest["metadata"]["namespace"] == "deploy-ns"
    assert "namespace" not in objs[2].manifest["metadata"]
    assert objs[0].key == ("", "ConfigMap", "deploy-ns", "a")


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"kind": "ConfigMap", "metadata": {"name": "a"}}, "apiVersion and kind are required"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "a-"}}, "generateName"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}, "metadata.name is required"),
        (cm("a", labels={"n": 1}), "must be a string"),
        (cm("a", annotations={"n": True}), "must be a string"),
        ({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}}, "does not know"),
        (cm("a", annotations={"component.nubes.cloud/apply-order": "x"}), "invalid apply-order"),
        (cm("a", annotations={"component.nubes.cloud/update-policy": "sometimes"}), "invalid update policy"),
        (cm("a", annotations={"component.nubes.cloud/aply-order": "1"}), "unknown annotation"),
        (
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": "n", "annotations": {"component.nubes.cloud/purge-order": "1"}},
            },
            "purge order is not allowed",
        ),
        ("not a mapping", "not a mapping"),
    ],
)
def test_invalid_objects(obj: Any, message: str) -> None:
    """3.3 step 1/4: invalid objects are rejected with a message that says what to fix."""
    with pytest.raises(ValidationError, match=message):
        norm(obj)


def test_duplicates_rejected() -> None:
    """3.3 step 3: duplicates by GroupKind, namespace and name (after namespace defaulting)."""
    with pytest.raises(ValidationError, match="duplicate of object #1"):
        norm(cm("a"), cm("a", namespace="deploy-ns"))


def test_same_name_other_namespace_is_fine() -> None:
    """Identity includes the namespace."""
    assert len(norm(cm("a"), cm("a", namespace="x"))) == 2


def test_secret_string_data_folded_into_data() -> None:
    """3.3 step 1: Secret stringData is merged into data (base64)."""
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"a": base64.b64encode(b"1").decode()},
        "stringData": {"b": "two", "a": "override"},
    }
    (obj,) = norm(secret)
    assert "stringData" not in obj.manifest
    assert obj.manifest["data"] == {"a": base64.b64encode(b"override").decode(), "b": base64.b64encode(b"two").decode()}


def test_engine_markers_from_templates_are_stripped() -> None:
    """3.3 step 1: owner label/annotation and digest annotation coming from templates are removed."""
    (obj,) = norm(
        cm(
            "a",
            labels={"component.nubes.cloud/owner-id": "fake", "app": "x"},
            annotations={"component.nubes.cloud/owner-id": "fake", "component.nubes.cloud/digest": "fake"},
            resourceVersion="12",
            uid="u",
        )
    )
    assert obj.manifest["metadata"] == {"name": "a", "namespace": "deploy-ns", "labels": {"app": "x"}}


def test_unknown_type_defined_by_crd_in_same_set() -> None:
    """3.3 step 2: an unknown type is accepted when a CRD of the set defines it; scope from the CRD."""
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    crd, inst = norm(CRD, widget)
    assert inst.namespace == "deploy-ns" and inst.namespaced is True
    assert crd.managed_types == [TypeInfo("example.com", "*", "Widget")]
    cluster_crd = {**CRD, "spec": {**CRD["spec"], "scope": "Cluster"}}
    _crd, inst2 = norm(cluster_crd, {**widget, "metadata": {"name": "w", "namespace": "dropped"}})
    assert inst2.namespace == "" and inst2.namespaced is False


def test_unknown_type_served_by_apiservice_in_same_set() -> None:
    """3.3 step 2: an APIService of the set serving the group/version makes the type acceptable (scope unknown)."""
    service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.example.com"},
        "spec": {"group": "metrics.example.com", "version": "v1beta1"},
    }
    metric = {"apiVersion": "metrics.example.com/v1beta1", "kind": "Metric", "metadata": {"name": "m"}}
    svc, inst = norm(service, metric)
    assert svc.managed_types == [TypeInfo("metrics.example.com", "v1beta1", "*")]
    assert inst.namespaced is None


def test_input_is_not_mutated() -> None:
    """C2: the caller's objects are treated as read-only, though only the levels normalisation changes are copied
    (object, metadata, labels, annotations, Secret data): a run normalises the same objects at every step."""
    original = cm("a", labels={"component.nubes.cloud/owner-id": "x"})
    norm(original)
    assert original["metadata"]["labels"] == {"component.nubes.cloud/owner-id": "x"}
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s", "resourceVersion": "7", "annotations": {"component.nubes.cloud/digest": "d"}},
        "data": {"a": "YQ=="},
        "stringData": {"b": "b"},
    }
    before = copy.deepcopy(secret)
    first, second = norm(secret)[0], norm(secret)[0]
    assert secret == before
    assert first.manifest == second.manifest and first.manifest["data"] == {"a": "YQ==", "b": "Yg=="}


def test_a_run_normalises_and_hashes_its_objects_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step of a run gets the same objects: they are normalised and hashed at the first step only, again for
    other objects or a changed component digest, and never cached while a type's scope is unknown."""
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import apply_waves
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext

    calls = []
    real = apply_waves.normalise_objects

    def counting(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(apply_waves, "normalise_objects", counting)
    api = type("Api", (), {"discovery": type("D", (), {"scope": staticmethod(scope)})()})()
    ctx = EngineContext(api=api, namespace="ns", owner_id="uid/ns/c")
    objects = [cm("a"), cm("b")]
    first = apply_waves._desired_set(objects, ctx)
    assert apply_waves._desired_set(objects, ctx) is not None and len(calls) == 1
    assert apply_waves._desired_set(objects, ctx)[0] is first[0]
    apply_waves._desired_set(list(objects), ctx)
    ctx.component_digest = "changed"
    apply_waves._desired_set(objects, ctx)
    assert len(calls) == 3
    unknown = [{"apiVersion": "x.example/v1", "kind": "Served", "metadata": {"name": "s"}}]
    unknown.append(
        {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {"name": "v1.x.example"},
            "spec": {"group": "x.example", "version": "v1"},
        }
    )
    apply_waves._desired_set(unknown, ctx)
    apply_waves._desired_set(unknown, ctx)
    assert len(calls) == 5
