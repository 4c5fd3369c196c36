"""Playbook-level tests of nubes.cloud.component: suspension, deletion (orphan policy, blocked), timeout, and what
a failed task says blocks it."""

from __future__ import annotations

import uuid

import pytest

from tests.integration.component import manifest_sets
from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster


def test_suspended_component_is_not_applied_but_can_be_deleted(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C13: a suspended component goes Pending with reason Suspended and nothing is applied; deletion still works."""
    source = ansible.source("web")
    run = ansible.run(
        [
            component(kube_namespace, "web", source=source, source_kind="templates"),
            component(
                kube_namespace, "web", source=source, source_kind="templates", spec={"replicas": 3}, suspend=True
            ),
            component(kube_namespace, "web", state="absent"),
        ]
    )
    applied, suspended, deleted = run[0], run[1], run[2]
    assert not applied.get("failed"), applied.get("msg")
    assert not suspended.get("failed"), suspended.get("msg")
    assert suspended["changed"] is False
    assert suspended["state"] == "Pending"
    ready = suspended["status"]["conditions"][0]
    assert (ready["status"], ready["reason"]) == ("Unknown", "Suspended")
    assert not deleted.get("failed"), deleted.get("msg")
    assert deleted["changed"] is True
    assert kubectl("get", "deployment", "web", "-n", kube_namespace, check=False).returncode != 0


def test_suspension_keeps_live_objects_unchanged(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C13: while suspended a spec change is not applied; resuming applies it."""
    source = ansible.source("web")
    ansible.run([component(kube_namespace, "web", source=source, source_kind="templates")])
    ansible.run(
        [component(kube_namespace, "web", source=source, source_kind="templates", spec={"replicas": 3}, suspend=True)]
    )
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 1
    resumed = ansible.run(
        [component(kube_namespace, "web", source=source, source_kind="templates", spec={"replicas": 3})]
    )[0]
    assert resumed["state"] == "Ready" and resumed["changed"] is True
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 3


def test_deletion_with_orphan_policy_keeps_objects(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C15: with the delete policy orphan, deleting the component removes its record but leaves the objects."""
    source = ansible.source("web")
    run = ansible.run(
        [
            component(kube_namespace, "keep", source=source, source_kind="templates", policies={"delete": "orphan"}),
            component(kube_namespace, "keep", state="absent"),
        ]
    )
    assert not run[0].get("failed"), run[0].get("msg")
    deleted = run[1]
    assert not deleted.get("failed"), deleted.get("msg")
    assert sorted(deleted["objects"]["orphaned"]) == [
        f"ConfigMap {kube_namespace}/keep-settings",
        f"Deployment.apps {kube_namespace}/keep",
        f"Secret {kube_namespace}/keep-credentials",
    ]
    assert deleted["objects"]["deleted"] == []
    kubectl("get", "deployment", "keep", "-n", kube_namespace)
    assert kubectl("get", "configmap", "cloud.nubes.component.keep", "-n", kube_namespace, check=False).returncode != 0


def test_deletion_blocked_by_foreign_instance(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C16, reference 7.6: a CRD of the component with an instance the component does not own blocks deletion; the
    task fails naming the instance, and succeeds once the instance is gone."""
    group = f"g{uuid.uuid4().hex[:8]}.nubes.test"
    source = ansible.source("crd")
    applied = ansible.run(
        [component(kube_namespace, "types", source=source, source_kind="templates", spec={"group": group})]
    )[0]
    assert not applied.get("failed"), applied.get("msg")
    kubectl.apply(
        f"apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: foreign\n  namespace: {kube_namespace}\nspec: {{}}\n"
    )
    blocked = ansible.run([component(kube_namespace, "types", state="absent")])[0]
    assert blocked["failed"] is True
    assert "Deletion blocked" in blocked["msg"] and "foreign" in blocked["msg"]
    assert blocked["status"]["state"] == "Deleting"
    assert blocked["status"]["conditions"][0]["reason"] == "DeletionBlocked"
    kubectl.json("get", "crd", f"widgets.{group}")
    kubectl("delete", f"widgets.{group}", "foreign", "-n", kube_namespace)
    deleted = ansible.run([component(kube_namespace, "types", state="absent")])[0]
    assert not deleted.get("failed"), deleted.get("msg")
    assert kubectl("get", "crd", f"widgets.{group}", check=False).returncode != 0


def test_timeout_names_what_is_not_ready(ansible: Ansible, kube_namespace: str) -> None:
    """C14, C7: an object that never becomes ready ends the task at the timeout in state Error, reason Timeout,
    with a readable list of what is not ready and why."""
    source = ansible.source("never-ready")
    result = ansible.run([component(kube_namespace, "stuck", source=source, source_kind="templates", timeout=4)])[0]
    assert result["failed"] is True
    assert result["state"] == "Error"
    ready = result["status"]["conditions"][0]
    assert (ready["status"], ready["reason"]) == ("False", "Timeout")
    assert "Blocking (not ready):" in result["msg"]
    assert f"Deployment.apps {kube_namespace}/stuck" in result["msg"]
    assert f"ConfigMap {kube_namespace}/stuck-ready-one" not in result["msg"]


def test_additional_managed_type_blocks_deletion(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C16: a foreign instance of an additional managed type (a wildcard kind of a group the component does not
    define) blocks the component's deletion and the error names it; the component's own instance does not; once the
    foreign instance is gone the deletion succeeds."""
    group = f"g{uuid.uuid4().hex[:8]}.nubes.test"
    kubectl.apply(
        f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.{group}\n"
        f"spec:\n  group: {group}\n  scope: Namespaced\n  names: {{plural: gadgets, singular: gadget, kind: Gadget}}\n"
        "  versions:\n    - name: v1\n      served: true\n      storage: true\n"
        "      schema:\n        openAPIV3Schema:\n          type: object\n"
        "          x-kubernetes-preserve-unknown-fields: true\n"
    )
    kubectl("wait", "--for=condition=Established", f"crd/gadgets.{group}", "--timeout=60s")
    try:
        definitions = [
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "operator"}},
            {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "own"}},
        ]
        types = [{"group": group, "kind": "*"}]
        applied = ansible.run(
            [component(kube_namespace, "operator", definitions=definitions, additional_managed_types=types)]
        )[0]
        assert not applied.get("failed"), applied.get("msg")
        kubectl.apply(
            f"apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: someone-elses\n  namespace: {kube_namespace}\n"
        )
        absent = component(kube_namespace, "operator", state="absent", additional_managed_types=types)
        blocked = ansible.run([absent])[0]
        assert blocked["failed"] is True
        assert "Deletion blocked" in blocked["msg"] and "someone-elses" in blocked["msg"]
        kubectl("get", "serviceaccount", "operator", "-n", kube_namespace)
        kubectl("delete", f"gadgets.{group}", "someone-elses", "-n", kube_namespace)
        deleted = ansible.run([absent])[0]
        assert not deleted.get("failed"), deleted.get("msg")
        assert kubectl("get", "serviceaccount", "operator", "-n", kube_namespace, check=False).returncode != 0
    finally:
        kubectl("delete", "crd", f"gadgets.{group}", "--wait=false", check=False)


def test_an_invalid_object_is_what_blocks_in_the_failure_summary(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """issue 25: one invalid object in a set (a Deployment with a field its schema does not have) fails the task at
    once, and the summary's ``blocking`` names that object, not every object still being created (it listed all of
    them, and the invalid one only as waiting); the objects written before the error count as waiting."""
    settings = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"settings-{n}"}, "data": {"n": str(n)}}
        for n in range(8)
    ]
    workers = [manifest_sets._deployment(f"worker-{n}", kube_namespace, 1, "x") for n in range(3)]
    typo = manifest_sets._deployment("typo", kube_namespace, 1, "x")
    typo["spec"]["replicass"] = 2
    result = ansible.run([component(kube_namespace, "typo", definitions=[*settings, *workers, typo], timeout=120)])[0]
    assert result["failed"] is True and result["state"] == "Error"
    assert "field not declared in schema" in result["msg"] and f"Deployment.apps {kube_namespace}/typo" in result["msg"]
    summary = result["summary"]
    assert summary["blocking"] == [f"Deployment.apps {kube_namespace}/typo"]
    assert (summary["objects"], summary["waiting"]) == (12, 11)
    assert kubectl("get", "deployment", "typo", "-n", kube_namespace, check=False).returncode != 0
    assert kubectl.json("get", "configmap", "settings-7", "-n", kube_namespace)["data"] == {"n": "7"}
    assert kubectl.json("get", "deployment", "worker-2", "-n", kube_namespace)["spec"]["replicas"] == 1
