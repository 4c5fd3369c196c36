"""Playbook-level tests of nubes.cloud.component: create, idempotence, updates with prune, CRDs, placement, sources.

Every test runs real ``ansible-playbook`` against the local kube-apiserver (tests/cluster).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

STATUS_KEYS = {
    "observedGeneration",
    "appliedGeneration",
    "lastObservedAt",
    "lastAppliedAt",
    "processingDigest",
    "processingSince",
    "lastProcessingDigest",
    "revision",
    "conditions",
    "state",
    "inventory",
}


def test_create_then_rerun_changes_nothing(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C1, C3, C5, C6, C7, C8: a new component is applied, Ready, its status has the seed's shape and is stored
    in a labelled ConfigMap; the second run writes nothing (changed false), not even the record."""
    source = ansible.source("web")
    task = component(kube_namespace, "web", source=source, source_kind="templates", spec={"replicas": 2})
    first = ansible.run([task])[0]
    record_version = kubectl.json("get", "configmap", "cloud.nubes.component.web", "-n", kube_namespace)
    second = ansible.run([task])[0]
    assert not first.get("failed"), first.get("msg")
    assert first["changed"] is True
    assert set(first["status"]) == STATUS_KEYS
    status = first["status"]
    assert status["state"] == "Ready" and first["state"] == "Ready"
    ready = status["conditions"][0]
    assert (ready["type"], ready["status"], ready["reason"]) == ("Ready", "True", "Ready")
    assert status["observedGeneration"] == status["appliedGeneration"] == 1
    assert status["revision"] == 1
    assert status["processingSince"] is None
    kinds = sorted((i["kind"], i["name"]) for i in status["inventory"])
    assert kinds == [("ConfigMap", "web-settings"), ("Deployment", "web"), ("Secret", "web-credentials")]
    assert all(i["phase"] == "Ready" for i in status["inventory"])
    assert sorted(first["objects"]["created"]) == [
        f"ConfigMap {kube_namespace}/web-settings",
        f"Deployment.apps {kube_namespace}/web",
        f"Secret {kube_namespace}/web-credentials",
    ]
    deployment = kubectl.json("get", "deployment", "web", "-n", kube_namespace)
    assert deployment["spec"]["replicas"] == 2
    assert kubectl.json("get", "configmap", "web-settings", "-n", kube_namespace)["data"]["message"] == "hello"
    records = kubectl.json("get", "configmaps", "-n", kube_namespace, "-l", "component.nubes.cloud/component=web")
    assert [r["metadata"]["name"] for r in records["items"]] == ["cloud.nubes.component.web"]
    assert not second.get("failed"), second.get("msg")
    assert second["changed"] is False
    assert second["objects"] == {"created": [], "updated": [], "deleted": [], "orphaned": []}
    assert second["status"]["revision"] == 1
    assert second["api_calls"].get("PATCH", 0) == 0 and second["api_calls"].get("POST", 0) == 0
    record = kubectl.json("get", "configmap", "cloud.nubes.component.web", "-n", kube_namespace)
    assert record["metadata"]["resourceVersion"] == record_version["metadata"]["resourceVersion"]
    assert second["status"]["lastAppliedAt"] == first["status"]["lastAppliedAt"]


def test_spec_change_updates_and_prunes(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C2, C5: a changed spec re-renders; the changed object is updated, a newly rendered one created, and one no
    longer rendered is pruned; generation and revision grow."""
    source = ansible.source("web")
    run = ansible.run(
        [
            component(kube_namespace, "web", source=source, source_kind="templates", spec={"extra": True}),
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                spec={"extra": False, "message": "changed"},
            ),
        ]
    )
    first, second = run[0], run[1]
    assert not first.get("failed") and not second.get("failed"), second.get("msg")
    assert f"ConfigMap {kube_namespace}/web-extra" in first["objects"]["created"]
    assert second["changed"] is True
    assert second["objects"]["updated"] == [f"ConfigMap {kube_namespace}/web-settings"]
    assert second["objects"]["deleted"] == [f"ConfigMap {kube_namespace}/web-extra"]
    assert second["status"]["observedGeneration"] == second["status"]["appliedGeneration"] == 2
    assert second["status"]["revision"] == 2
    assert kubectl("get", "configmap", "web-extra", "-n", kube_namespace, check=False).returncode != 0
    settings = kubectl.json("get", "configmap", "web-settings", "-n", kube_namespace)
    assert settings["data"] == {"message": "changed", "revision": "2"}


def test_crd_and_its_instance_in_one_component(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C8, C16: a CRD and an instance of it are applied in one run (the CRD first, the instance once the type is
    served); the CRD carries no finalizer of the engine (issue 25: nothing blocks its deletion by others); deleting
    the component removes both."""
    group = f"g{uuid.uuid4().hex[:8]}.nubes.test"
    source = ansible.source("crd")
    run = ansible.run(
        [
            component(
                kube_namespace, "widgets", source=source, source_kind="templates", spec={"group": group, "size": 3}
            ),
            component(
                kube_namespace, "widgets", source=source, source_kind="templates", spec={"group": group, "size": 3}
            ),
        ]
    )
    first, second = run[0], run[1]
    assert not first.get("failed"), first.get("msg")
    assert sorted(i["kind"] for i in first["status"]["inventory"]) == ["CustomResourceDefinition", "Widget"]
    crd = kubectl.json("get", "crd", f"widgets.{group}")
    assert "component.nubes.cloud/finalizer" not in (crd["metadata"].get("finalizers") or [])
    widget = kubectl.json("get", f"widgets.{group}", "widgets-instance", "-n", kube_namespace)
    assert widget["spec"] == {"size": 3}
    assert second["changed"] is False
    gone = ansible.run([component(kube_namespace, "widgets", state="absent")])[0]
    assert not gone.get("failed"), gone.get("msg")
    assert kubectl("get", "crd", f"widgets.{group}", check=False).returncode != 0


def test_placement_namespace_and_name(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C4, C10: placement gives the templates their namespace and name, and namespaced objects without a namespace
    go to the deployment namespace (created when missing); the record stays in the component's namespace."""
    target = f"{kube_namespace}-target"
    source = ansible.source("web")
    try:
        result = ansible.run(
            [
                component(
                    kube_namespace,
                    "web",
                    source=source,
                    source_kind="templates",
                    placement={"namespace": target, "name": "shop"},
                )
            ]
        )[0]
        assert not result.get("failed"), result.get("msg")
        assert kubectl.json("get", "deployment", "shop", "-n", target)["metadata"]["name"] == "shop"
        assert result["component"]["deployment_namespace"] == target
        kubectl("get", "configmap", "cloud.nubes.component.web", "-n", kube_namespace)
        moved = ansible.run(
            [
                component(
                    kube_namespace,
                    "web",
                    source=source,
                    source_kind="templates",
                    placement={"namespace": kube_namespace},
                )
            ]
        )
        assert moved[0]["failed"] and "placement must not change" in moved[0]["msg"]
        ansible.run([component(kube_namespace, "web", state="absent")])
    finally:
        kubectl("delete", "namespace", target, "--wait=false", "--ignore-not-found", check=False)


def test_kustomize_source(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C2: a directory with kustomization.yaml is rendered as templates, then built with kubectl kustomize."""
    source = ansible.source("kustomize")
    result = ansible.run(
        [
            component(
                kube_namespace, "kust", source=source, source_kind="templates", spec={"prefix": "blue", "color": "blue"}
            )
        ]
    )[0]
    assert not result.get("failed"), result.get("msg")
    settings = kubectl.json("get", "configmap", "blue-settings", "-n", kube_namespace)
    assert settings["data"] == {"color": "blue"}
    assert settings["metadata"]["labels"]["rendered-by"] == "kustomize"


def test_every_file_is_a_template_by_default(ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path) -> None:
    """C2: without .component-config.yaml every file is a template and spec values reach it; a single manifest file
    works as a source too; inline definitions are applied as they are."""
    source = tmp_path / "plain"
    source.mkdir()
    (source / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}-plain\ndata:\n  size: '{{ values.size }}'\n",
        encoding="utf-8",
    )
    single = tmp_path / "single.yml"
    single.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: single\n", encoding="utf-8")
    inline = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "inline"}, "data": {"a": "b"}}]
    run = ansible.run(
        [
            component(kube_namespace, "plain", source=str(source), source_kind="templates", spec={"size": 5}),
            component(kube_namespace, "single", source=str(single)),
            {"nubes.cloud.component": {"name": "inline", "namespace": kube_namespace, "definitions": inline}},
        ]
    )
    assert all(not r.get("failed") for r in run.results), [r.get("msg") for r in run.results]
    assert kubectl.json("get", "configmap", "plain-plain", "-n", kube_namespace)["data"] == {"size": "5"}
    kubectl("get", "configmap", "single", "-n", kube_namespace)


def test_wait_false_returns_processing(ansible: Ansible, kube_namespace: str) -> None:
    """C7: wait=false returns after the objects are written, with the current state (Processing for an object that
    does not become ready)."""
    source = ansible.source("never-ready")
    result = ansible.run([component(kube_namespace, "slow", source=source, source_kind="templates", wait=False)])[0]
    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is True
    assert result["state"] == "Processing"
    assert result["status"]["conditions"][0]["reason"] == "Processing"
    assert result["status"]["processingSince"]


def test_templates_look_up_live_objects(ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path) -> None:
    """C2: lookup() in a template reads a live object of the target cluster (rendering happens in the module)."""
    kubectl.apply(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upstream\n  namespace: {kube_namespace}\n"
        "data:\n  endpoint: db.internal:5432\n"
    )
    source = tmp_path / "lookup"
    source.mkdir()
    (source / "cm.yaml").write_text(
        "{% set up = lookup('v1', 'ConfigMap', 'upstream', namespace) %}\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: consumer\n"
        "data:\n  endpoint: {{ up.data.endpoint if up else 'none' }}\n",
        encoding="utf-8",
    )
    result = ansible.run([component(kube_namespace, "consumer", source=str(source), source_kind="templates")])[0]
    assert not result.get("failed"), result.get("msg")
    assert kubectl.json("get", "configmap", "consumer", "-n", kube_namespace)["data"] == {
        "endpoint": "db.internal:5432"
    }


def test_missing_namespace_with_do_not_create(ansible: Ansible, kube_namespace: str) -> None:
    """C15: with missing_namespaces do-not-create an object in a namespace that does not exist fails, naming it."""
    definitions = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "nubes-absent-ns"}}]
    result = ansible.run(
        [component(kube_namespace, "strict", definitions=definitions, policies={"missing_namespaces": "do-not-create"})]
    )[0]
    assert result["failed"] is True
    assert "nubes-absent-ns does not exist" in result["msg"]


def test_the_namespace_the_component_creates_is_reported_as_created(ansible: Ansible, kubectl) -> None:
    """issue 25: the component's own namespace, created by its first apply, is reported under ``objects.created``:
    when it is one of the component's objects (it was reported as updated: it is created first to hold the record,
    then the reconciler gives it its markers) and when the component only creates it for its record. The run after
    changes nothing."""
    among, holder = f"own-{uuid.uuid4().hex[:6]}", f"made-{uuid.uuid4().hex[:6]}"
    settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "b"}}
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": among, "labels": {"team": "blue"}}}
    try:
        run = ansible.run(
            [
                component(among, "self", definitions=[namespace, settings]),
                component(among, "self", definitions=[namespace, settings]),
                component(holder, "alone", definitions=[settings]),
            ]
        )
        first, second, alone = run.results
        assert all(not r.get("failed") for r in run.results), [r.get("msg") for r in run.results]
        assert sorted(first["objects"]["created"]) == [f"ConfigMap {among}/settings", f"Namespace {among}"]
        assert first["objects"]["updated"] == []
        assert second["changed"] is False and second["objects"]["created"] == second["objects"]["updated"] == []
        live = kubectl.json("get", "namespace", among)
        assert live["metadata"]["labels"]["team"] == "blue"
        assert "component.nubes.cloud/digest" in live["metadata"]["annotations"]
        assert sorted(alone["objects"]["created"]) == [f"ConfigMap {holder}/settings", f"Namespace {holder}"]
        assert alone["objects"]["updated"] == []
        assert kubectl.json("get", "namespace", holder)["status"]["phase"] == "Active"
    finally:
        for name in (among, holder):
            kubectl("delete", "namespace", name, "--ignore-not-found", "--wait=false", check=False)
