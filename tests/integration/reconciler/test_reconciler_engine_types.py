"""Integration: CRDs with instances, managed types, deletion blocking and namespaces (reference 3.3, 3.4, 7.5, 7.6)."""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import delete_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import MissingNamespaceError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import TypeInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults
from tests.integration.reconciler.engine_harness import Component, configmap, crd, instance, unique

pytestmark = pytest.mark.cluster

READY = ("Ready", "Current")
SA = ("ScheduledForApplication", "InProgress")


def _namespace(name: str, **annotations: str) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = {f"component.nubes.cloud/{k.replace('_', '-')}": v for k, v in annotations.items()}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


@pytest.fixture
def group() -> str:
    return f"{unique('g')}.example.com"


@pytest.fixture
def comp(kubeconfig: str, kube_namespace: str) -> Iterator[Component]:
    component = Component(kubeconfig, kube_namespace)
    yield component
    # Leave no CRD behind: delete what is still tracked.
    if component.inventory:
        with contextlib.suppress(AssertionError):
            component.converge_delete(max_seconds=60)


def test_crd_and_instances_in_one_set(comp: Component, group: str) -> None:
    """A CRD and its instances in one set: type first, instances wait for Established; deletion in reverse (C16)."""
    the_crd = crd(group, "Widget", "widgets")
    objects = [instance(group, "Widget", "w1"), the_crd]
    crd_key, inst_key = f"CustomResourceDefinition/widgets.{group}", "Widget/w1"
    assert comp.apply(objects) is False  # write-ahead
    assert comp.phases() == {crd_key: SA, inst_key: SA}
    assert comp.item("CustomResourceDefinition", f"widgets.{group}").managedTypes == [TypeInfo(group, "*", "Widget")]
    assert comp.apply(objects) is False  # CRD created, instance deferred
    assert comp.phases()[crd_key] == ("Creating", "InProgress")
    assert comp.phases()[inst_key] == SA
    comp.converge(objects)
    assert comp.phases() == {crd_key: READY, inst_key: READY}
    live_crd = comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"widgets.{group}")
    assert live_crd is not None
    assert "component.nubes.cloud/finalizer" not in (live_crd["metadata"].get("finalizers") or [])  # issue 25
    # Inventory is sorted for deletion: instances before their type.
    assert [i.kind for i in comp.inventory] == ["Widget", "CustomResourceDefinition"]
    # Delete: instance first, then the CRD (held by our finalizer until no instances remain, then released).
    ok, message = delete_waves.is_deletion_allowed(comp.inventory, comp.ctx)
    assert ok, message
    assert comp.delete() is False
    assert comp.phases() == {inst_key: ("Deleting", "Terminating"), crd_key: ("ScheduledForDeletion", "Terminating")}
    comp.converge_delete()
    assert comp.inventory == []
    assert comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"widgets.{group}") is None


def test_instance_before_type_is_rejected(comp: Component, group: str) -> None:
    """C16: instances need apply-order >= their type's (reference 3.3 step 6)."""
    from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import ValidationError

    objects = [crd(group, "Widget", "widgets", apply_order="1"), instance(group, "Widget", "w")]
    with pytest.raises(ValidationError, match="apply-order >= 1"):
        comp.apply(objects)


def test_deletion_blocked_by_foreign_instance(comp: Component, group: str) -> None:
    """C16 / 7.6: a foreign instance of a managed CRD blocks component deletion until it is gone."""
    comp.converge([crd(group, "Gizmo", "gizmos"), instance(group, "Gizmo", "ours")])
    res = comp.resource(f"{group}/v1", "Gizmo")
    comp.api.create(res, comp.namespace, instance(group, "Gizmo", "foreign", comp.namespace))
    ok, message = delete_waves.is_deletion_allowed(comp.inventory, comp.ctx)
    assert not ok
    assert message.startswith("Deletion blocked:") and "foreign" in message
    # issue 25: the CRD carries no finalizer of ours, so an out-of-band deletion is never held by this component
    # (test_component_deletion_cleanup.py proves such a deletion completes after the component's record is gone).
    live_crd = comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"gizmos.{group}")
    assert live_crd is not None
    assert "component.nubes.cloud/finalizer" not in (live_crd["metadata"].get("finalizers") or [])
    comp.api.delete(res, comp.namespace, "foreign")
    ok, message = delete_waves.is_deletion_allowed(comp.inventory, comp.ctx)
    assert ok, message
    comp.converge_delete()
    assert comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"gizmos.{group}") is None


def test_additional_managed_types_with_wildcards(kubeconfig: str, kube_namespace: str, group: str) -> None:
    """C16 / 7.5: additional managed types (`*.suffix` group, `*` kind): foreign instances block deletion and
    instances in the set are applied after the other objects of their wave."""
    outside = Component(kubeconfig, kube_namespace)  # installs the type, like another component would
    pattern = f"*.{group}"
    group = f"parts.{group}"
    outside.converge([crd(group, "Sprocket", "sprockets")])
    comp = Component(kubeconfig, kube_namespace, additional_managed_types=[TypeInfo(pattern, "", "*")])
    try:
        objects = [instance(group, "Sprocket", "mine"), configmap("cfg")]
        assert comp.apply(objects) is False
        assert comp.apply(objects) is False  # regular objects first; the managed instance is deferred
        assert comp.phases() == {"Sprocket/mine": SA, "ConfigMap/cfg": ("Creating", "InProgress")}
        comp.converge(objects)
        ok, _message = delete_waves.is_deletion_allowed(comp.inventory, comp.ctx)
        assert ok
        res = comp.resource(f"{group}/v1", "Sprocket")
        comp.api.create(res, kube_namespace, instance(group, "Sprocket", "theirs", kube_namespace))
        ok, message = delete_waves.is_deletion_allowed(comp.inventory, comp.ctx)
        assert not ok and "theirs" in message
        comp.api.delete(res, kube_namespace, "theirs")
        comp.converge_delete()
    finally:
        outside.converge_delete()


def test_namespace_in_set_created_first_deleted_last(kubeconfig: str, kube_namespace: str) -> None:
    """C8/C10: namespaces are applied first and deleted last, only once no inventory item lives in them."""
    comp = Component(kubeconfig, kube_namespace)
    ns = unique("ns")
    objects = [configmap("inside") | {"metadata": {"name": "inside", "namespace": ns}}, _namespace(ns)]
    comp.converge(objects)
    assert comp.phases() == {"ConfigMap/inside": READY, f"Namespace/{ns}": READY}
    assert comp.delete() is False
    phases = comp.phases()
    assert phases["ConfigMap/inside"] == ("Deleting", "Terminating")
    assert phases[f"Namespace/{ns}"] == ("ScheduledForDeletion", "Terminating")  # waits for its member
    comp.converge_delete(max_seconds=120)
    assert comp.inventory == []
    live = comp.get("v1", "Namespace", ns, namespace="")
    assert live is None or live["metadata"].get("deletionTimestamp")


def test_missing_namespace_created_but_not_tracked(kubeconfig: str, kube_namespace: str) -> None:
    """C15: missing-namespaces create: referenced namespaces are created, not inventoried, never deleted by the
    engine; issue 25: labelled with the component that created them (the component deletes them with itself)."""
    comp = Component(kubeconfig, kube_namespace)
    ns = unique("auto")
    objects = [configmap("x") | {"metadata": {"name": "x", "namespace": ns}}]
    comp.converge(objects)
    assert list(comp.phases()) == ["ConfigMap/x"]
    created = comp.get("v1", "Namespace", ns, namespace="")
    assert created is not None
    assert created["metadata"]["labels"]["component.nubes.cloud/created-by"] == comp.ctx.hashed_owner_id
    comp.converge_delete()
    assert comp.get("v1", "Namespace", ns, namespace="") is not None
    comp.api.delete(comp.resource("v1", "Namespace"), "", ns)


def test_missing_namespace_do_not_create(kubeconfig: str, kube_namespace: str) -> None:
    """C15: missing-namespaces do-not-create: applying into a missing namespace fails with NotFound."""
    comp = Component(kubeconfig, kube_namespace, defaults=Defaults(missing_namespaces_policy="DoNotCreate"))
    ns = unique("absent")
    objects = [configmap("x") | {"metadata": {"name": "x", "namespace": ns}}]
    assert comp.apply(objects) is False
    assert comp.phases() == {"ConfigMap/x": SA}
    with pytest.raises(MissingNamespaceError, match=f"namespace {ns} does not exist.*DoNotCreate"):
        comp.apply(objects)
    assert comp.phases() == {"ConfigMap/x": SA}
    assert comp.get("v1", "Namespace", ns, namespace="") is None


def test_orphaned_crd_loses_our_finalizer(comp: Component, group: str) -> None:
    """C15/C16: orphaning a CRD (delete-policy orphan) leaves no finalizer of ours so others can delete it (3.3 step
    14), and (issue 25) no label or annotation of the component either: its owner label is gone."""
    name = f"doodads.{group}"
    comp.converge([crd(group, "Doodad", "doodads", delete_policy="orphan"), configmap("keep")])
    live = comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
    assert live is not None and live["metadata"]["labels"].get("component.nubes.cloud/owner-id")
    comp.converge([configmap("keep")])
    assert list(comp.phases()) == ["ConfigMap/keep"]
    live = comp.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
    assert live is not None and "component.nubes.cloud/finalizer" not in (live["metadata"].get("finalizers") or [])
    assert "component.nubes.cloud/owner-id" not in (live["metadata"].get("labels") or {})
    comp.api.delete(comp.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition"), "", name)


def test_apiservice_is_applied_late_and_released_on_delete(comp: Component, group: str) -> None:
    """C16: APIServices are "late": applied only when the regular objects of their wave are ready; they carry no
    finalizer of ours (issue 25) and are deleted with the component (reference 3.3 step 12, 7.6)."""
    name = f"v1.{group}"
    service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": name},
        "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10},
    }
    objects = [service, configmap("regular")]
    assert comp.apply(objects) is False  # write-ahead
    assert comp.item("APIService", name).managedTypes == [TypeInfo(group, "v1", "*")]
    assert comp.apply(objects) is False
    assert comp.phases() == {f"APIService/{name}": SA, "ConfigMap/regular": ("Creating", "InProgress")}
    assert comp.apply(objects) is False  # regular ready -> the APIService is created now
    assert comp.phases() == {f"APIService/{name}": ("Creating", "InProgress"), "ConfigMap/regular": READY}
    comp.converge(objects)
    live = comp.get("apiregistration.k8s.io/v1", "APIService", name)
    assert live is not None and "component.nubes.cloud/finalizer" not in (live["metadata"].get("finalizers") or [])
    comp.converge_delete()
    assert comp.get("apiregistration.k8s.io/v1", "APIService", name) is None


def test_status_hints_on_a_custom_resource(comp: Component, group: str) -> None:
    """C7: status-hint conditions=Synced: the object is ready only when its Synced condition is True (6.1)."""
    widget = instance(group, "Knob", "k")
    widget["metadata"]["annotations"] = {"component.nubes.cloud/status-hint": "has-ready-condition,conditions=Synced"}
    objects = [crd(group, "Knob", "knobs"), widget]
    comp.apply_until(objects, lambda: comp.phases()["Knob/k"][0] == "Creating")
    assert comp.apply(objects) is False
    assert comp.phases()["Knob/k"] == ("Creating", "InProgress")  # no Ready condition yet: the hint injects Unknown
    res = comp.resource(f"{group}/v1", "Knob")
    conditions = [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}]
    comp.api.json_patch(
        res, comp.namespace, "k", [{"op": "add", "path": "/status", "value": {"conditions": conditions}}]
    )
    assert comp.apply(objects) is False
    assert comp.phases()["Knob/k"] == ("Creating", "InProgress")  # Synced is False
    conditions[1]["status"] = "True"
    comp.api.json_patch(
        res, comp.namespace, "k", [{"op": "replace", "path": "/status/conditions", "value": conditions}]
    )
    assert comp.apply(objects) is True
    assert comp.phases()["Knob/k"] == READY
