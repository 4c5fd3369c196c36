"""Playbook-level tests of nubes.cloud.component: live drift detection on every apply run (issue 25; by default it
replaces C17's forced re-apply).

Each test changes an owned object behind the component's back with kubectl, runs the task again, and reads the
apiserver's state afterwards with kubectl."""

from __future__ import annotations

import time
from typing import Any, Dict

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

DIGEST = "component.nubes.cloud/digest"
OWNER = "component.nubes.cloud/owner-id"


def _web(ansible: Ansible, namespace: str, **options: Any) -> Dict[str, Any]:
    return component(namespace, "web", source=ansible.source("web"), source_kind="templates", **options)


DRIFTS = {
    "scaled": (
        lambda kubectl, ns: kubectl("scale", "deployment", "web", "--replicas=5", "-n", ns),
        "Deployment.apps {ns}/web",
        lambda kubectl, ns: kubectl.json("get", "deployment", "web", "-n", ns)["spec"]["replicas"] == 1,
    ),
    "configmap-value": (
        lambda kubectl, ns: kubectl(
            "patch", "configmap", "web-settings", "-n", ns, "--type=merge", "-p", '{"data":{"message":"edited"}}'
        ),
        "ConfigMap {ns}/web-settings",
        lambda kubectl, ns: kubectl.json("get", "configmap", "web-settings", "-n", ns)["data"]["message"] == "hello",
    ),
    "label-removed": (
        lambda kubectl, ns: kubectl("label", "configmap", "web-settings", "component-", "-n", ns),
        "ConfigMap {ns}/web-settings",
        lambda kubectl, ns: (
            kubectl.json("get", "configmap", "web-settings", "-n", ns)["metadata"]["labels"].get("component") == "web"
        ),
    ),
    "object-deleted": (
        lambda kubectl, ns: kubectl("delete", "configmap", "web-settings", "-n", ns),
        "ConfigMap {ns}/web-settings",
        lambda kubectl, ns: kubectl("get", "configmap", "web-settings", "-n", ns, check=False).returncode == 0,
    ),
}


@pytest.mark.parametrize("drift", sorted(DRIFTS))
def test_drift_is_corrected_by_the_next_run(ansible: Ansible, kubectl, kube_namespace: str, drift: str) -> None:
    """Issue 25: `kubectl scale`, a patched ConfigMap value, a removed label and a deleted owned object are each
    corrected by the next run (changed=true, the object named under ``drift`` or created again), and the run after
    that is changed=false."""
    make_drift, ref, corrected = DRIFTS[drift]
    spec = {"message": "hello"}
    first = ansible.run([_web(ansible, kube_namespace, spec=spec)])[0]
    assert not first.get("failed"), first.get("msg")
    make_drift(kubectl, kube_namespace)
    assert not corrected(kubectl, kube_namespace)
    fixed, again = ansible.run([_web(ansible, kube_namespace, spec=spec), _web(ansible, kube_namespace, spec=spec)])
    assert not fixed.get("failed"), fixed.get("msg")
    assert fixed["changed"] is True
    assert corrected(kubectl, kube_namespace)
    if drift == "object-deleted":
        assert fixed["objects"]["created"] == [ref.format(ns=kube_namespace)]
    else:
        assert fixed["drift"] == [ref.format(ns=kube_namespace)]
        assert fixed["objects"]["updated"] == [ref.format(ns=kube_namespace)]
    assert again["changed"] is False, again
    assert again["drift"] == [] and again["objects"]["updated"] == []


def test_warn_mode_reports_drift_and_writes_nothing(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Issue 25: drift_detection mode warn reports the drifted object (``drift``, a warning, the live before and
    the declared after in the diff) and writes nothing: the scaled Deployment keeps 5 replicas and its generation
    (the deployment controller's status writes move the resourceVersion, never the generation)."""
    ansible.run([_web(ansible, kube_namespace)])
    kubectl("scale", "deployment", "web", "--replicas=5", "-n", kube_namespace)
    generation = kubectl.json("get", "deployment", "web", "-n", kube_namespace)["metadata"]["generation"]
    run = ansible.run([_web(ansible, kube_namespace, drift_detection={"mode": "warn"})], diff=True)
    result = run[0]
    assert not result.get("failed"), result.get("msg")
    ref = f"Deployment.apps {kube_namespace}/web"
    assert result["changed"] is False
    assert result["drift"] == [ref]
    assert any("drift found and not corrected" in w for w in result.get("warnings", [])), result.get("warnings")
    assert result["diff"]["before"][ref]["spec"]["replicas"] == 5
    assert result["diff"]["after"][ref]["spec"]["replicas"] == 1
    live = kubectl.json("get", "deployment", "web", "-n", kube_namespace)
    assert live["spec"]["replicas"] == 5 and live["metadata"]["generation"] == generation


IGNORED_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  annotations:
    component.nubes.cloud/drift-ignore-paths: /spec/replicas
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
        - name: web
          image: registry.invalid/web:{tag}
"""


def test_ignored_replicas_survive_runs(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Issue 25, the HPA case: /spec/replicas ignored by the component's rule (``drift_detection.ignore``) or by
    the object's drift-ignore-paths annotation keeps the scaled value through later runs, also through a run that
    updates the Deployment for another reason (a new image)."""
    rule = {"ignore": [{"paths": ["/spec/replicas"], "target": {"kind": "Deployment"}}]}
    ansible.run([_web(ansible, kube_namespace, drift_detection=rule)])
    source = ansible.workdir / "ignored"
    source.mkdir()
    (source / "deployment.yaml").write_text(IGNORED_DEPLOYMENT.format(name="hpa", tag="{{ values.tag }}"), "utf-8")

    def annotated(tag: str) -> Dict[str, Any]:
        return component(kube_namespace, "hpa", source=str(source), source_kind="templates", spec={"tag": tag})

    ansible.run([annotated("1")])
    kubectl("scale", "deployment", "web", "--replicas=4", "-n", kube_namespace)
    kubectl("scale", "deployment", "hpa", "--replicas=6", "-n", kube_namespace)
    first, second, retagged = ansible.run(
        [_web(ansible, kube_namespace, drift_detection=rule), annotated("1"), annotated("2")]
    )
    for result in (first, second, retagged):
        assert not result.get("failed"), result.get("msg")
    assert first["changed"] is False and first["drift"] == []
    assert second["changed"] is False and second["drift"] == []
    assert retagged["changed"] is True
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 4
    hpa = kubectl.json("get", "deployment", "hpa", "-n", kube_namespace)
    assert hpa["spec"]["replicas"] == 6
    assert hpa["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.invalid/web:2"


@pytest.mark.parametrize("mode", ["enabled", "disabled"])
def test_forced_reapply_without_change_is_not_changed(
    ansible: Ansible, kubectl, kube_namespace: str, mode: str
) -> None:
    """Issue 25 / C17: once the reapply interval has passed, a run over unchanged live objects reports
    changed=false and no updated object (mode disabled re-applies, the server changes nothing; mode enabled finds
    no drift and writes nothing); the objects' resourceVersions stay."""
    options: Dict[str, Any] = {"reapply_interval": 1}
    if mode != "enabled":  # enabled is the default: the task as users wrote it before issue 25
        options["drift_detection"] = {"mode": mode}
    first = ansible.run([_web(ansible, kube_namespace, **options)])[0]
    assert not first.get("failed"), first.get("msg")
    version = kubectl.json("get", "deployment", "web", "-n", kube_namespace)["metadata"]["resourceVersion"]
    time.sleep(2)
    forced = ansible.run([_web(ansible, kube_namespace, **options)])[0]
    assert not forced.get("failed"), forced.get("msg")
    assert forced["changed"] is False, forced["objects"]
    assert forced["objects"]["updated"] == []
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["metadata"]["resourceVersion"] == version


def test_diff_hides_internal_annotations(ansible: Ansible, kube_namespace: str) -> None:
    """Issue 25: a diff shows the live before and the after of each changed object without the engine's own
    annotations (its digest and owner id), which would otherwise show as changed on every update."""
    ansible.run([_web(ansible, kube_namespace)])
    result = ansible.run([_web(ansible, kube_namespace, spec={"replicas": 2})], diff=True)[0]
    assert not result.get("failed"), result.get("msg")
    ref = f"Deployment.apps {kube_namespace}/web"
    before, after = result["diff"]["before"][ref], result["diff"]["after"][ref]
    assert before["spec"]["replicas"] == 1 and after["spec"]["replicas"] == 2
    for shown in (before, after):
        annotations = shown["metadata"].get("annotations") or {}
        assert DIGEST not in annotations and OWNER not in annotations, annotations


def test_fields_of_an_ignored_manager_are_never_reverted(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Issue 25: fields owned by a field manager named in ``drift_detection.ignore[].managers`` (an autoscaler's
    replicas, written here by kubectl as ``autoscaler-sim``) are never reverted. Without the rule the field is drift,
    and since its manager is not in ``reclaim_field_managers`` (the conflict policy) the task names the manager and
    the option and writes nothing; with the manager listed there, the drift is corrected."""
    rule = {"ignore": [{"managers": ["autoscaler-sim"]}]}
    ansible.run([_web(ansible, kube_namespace, drift_detection=rule)])
    patch = '{"spec":{"replicas":4}}'
    kubectl("patch", "deployment", "web", "-n", kube_namespace, "-p", patch, "--field-manager=autoscaler-sim")
    kept = ansible.run([_web(ansible, kube_namespace, drift_detection=rule)])[0]
    assert not kept.get("failed"), kept.get("msg")
    assert kept["changed"] is False and kept["drift"] == []
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 4
    refused = ansible.run([_web(ansible, kube_namespace)])[0]  # no rule: drift, in a field another manager holds
    assert refused.get("failed") is True, refused
    assert "'autoscaler-sim' holds .spec.replicas" in refused["msg"] and "reclaim_field_managers" in refused["msg"]
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 4
    reclaim = ["kubectl", "autoscaler-sim"]
    corrected = ansible.run([_web(ansible, kube_namespace, reclaim_field_managers=reclaim)])[0]
    assert not corrected.get("failed"), corrected.get("msg")
    assert corrected["changed"] is True and corrected["drift"] == [f"Deployment.apps {kube_namespace}/web"]
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 1
