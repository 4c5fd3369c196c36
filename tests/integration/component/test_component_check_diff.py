"""Playbook-level tests of nubes.cloud.component: check mode (server-side dry-run, no writes) and diff mode."""

from __future__ import annotations

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster


def test_check_mode_writes_nothing_and_reports_the_plan(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Check mode: a new component reports what would be created and writes nothing (no objects, no record); after
    an apply, a spec change reports updates and prunes; check mode on deletion reports the prunes."""
    source = ansible.source("web")
    planned = ansible.run([component(kube_namespace, "web", source=source, source_kind="templates")], check=True)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["changed"] is True
    assert sorted(planned["plan"]["create"]) == [
        f"ConfigMap {kube_namespace}/web-settings",
        f"Deployment.apps {kube_namespace}/web",
        f"Secret {kube_namespace}/web-credentials",
    ]
    assert kubectl("get", "deployment", "web", "-n", kube_namespace, check=False).returncode != 0
    assert kubectl("get", "configmap", "cloud.nubes.component.web", "-n", kube_namespace, check=False).returncode != 0

    ansible.run([component(kube_namespace, "web", source=source, source_kind="templates", spec={"extra": True})])
    unchanged = ansible.run(
        [component(kube_namespace, "web", source=source, source_kind="templates", spec={"extra": True})], check=True
    )[0]
    assert unchanged["changed"] is False
    change = ansible.run(
        [component(kube_namespace, "web", source=source, source_kind="templates", spec={"replicas": 4})], check=True
    )[0]
    assert change["changed"] is True
    # the settings ConfigMap shows the revision, which grows with every spec change
    assert sorted(change["plan"]["update"]) == [
        f"ConfigMap {kube_namespace}/web-settings",
        f"Deployment.apps {kube_namespace}/web",
    ]
    assert change["plan"]["prune"] == [f"ConfigMap {kube_namespace}/web-extra"]
    assert kubectl.json("get", "deployment", "web", "-n", kube_namespace)["spec"]["replicas"] == 1
    kubectl("get", "configmap", "web-extra", "-n", kube_namespace)
    deletion = ansible.run([component(kube_namespace, "web", state="absent")], check=True)[0]
    assert deletion["changed"] is True and len(deletion["plan"]["prune"]) == 4
    kubectl("get", "deployment", "web", "-n", kube_namespace)


def test_check_mode_reports_adoption(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C15: an existing unowned object would be adopted (adoption policy if-unowned)."""
    kubectl.apply(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-settings\n  namespace: {kube_namespace}\n")
    source = ansible.source("web")
    planned = ansible.run([component(kube_namespace, "web", source=source, source_kind="templates")], check=True)[0]
    assert planned["plan"]["adopt"] == [f"ConfigMap {kube_namespace}/web-settings"]


def test_diff_mode_shows_changed_objects_with_masked_secrets(ansible: Ansible, kube_namespace: str) -> None:
    """Diff mode: object-level before/after of changed objects only; Secret values are masked (changed ones marked)
    and never appear in the output."""
    source = ansible.source("web")
    ansible.run([component(kube_namespace, "web", source=source, source_kind="templates")])
    run = ansible.run(
        [
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                spec={"replicas": 2, "password": "n3w-p4ssw0rd-value"},
            )
        ],
        diff=True,
    )
    result = run[0]
    assert not result.get("failed"), result.get("msg")
    before, after = result["diff"]["before"], result["diff"]["after"]
    deployment = f"Deployment.apps {kube_namespace}/web"
    secret = f"Secret {kube_namespace}/web-credentials"
    settings = f"ConfigMap {kube_namespace}/web-settings"  # shows the revision, which grew
    assert set(after) == {deployment, secret, settings}
    assert before[deployment]["spec"]["replicas"] == 1 and after[deployment]["spec"]["replicas"] == 2
    assert before[secret]["data"]["password"] == "********"
    assert after[secret]["data"]["password"] == "******** (changed)"
    assert "n3w-p4ssw0rd-value" not in run.stdout
    assert "bjN3LXA0c3N3MHJkLXZhbHVl" not in run.stdout  # base64 of the new password
    assert "managedFields" not in str(after[deployment]["metadata"])


RECREATED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-job-settings
  annotations:
    component.nubes.cloud/update-policy: recreate
data:
  message: {{ values.message | to_json }}
"""


def test_check_diff_shows_a_recreated_object_created_again(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """Check mode with update policy Recreate (a Helm hook's before-hook-creation): the object is reported as
    created again with its new content, as the real run does, not as removed; the cluster keeps the old one."""
    source = ansible.workdir / "recreated"
    source.mkdir()
    (source / "settings.yaml").write_text(RECREATED, encoding="utf-8")

    def task(message: str) -> dict:
        return component(kube_namespace, "web", source=str(source), source_kind="templates", spec={"message": message})

    first = ansible.run([task("old")])[0]
    assert not first.get("failed"), first.get("msg")
    live = kubectl.json("get", "configmap", "web-job-settings", "-n", kube_namespace)
    name = f"ConfigMap {kube_namespace}/web-job-settings"

    planned = ansible.run([task("new")], check=True, diff=True)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["diff"]["before"][name]["data"]["message"] == "old"
    assert planned["diff"]["after"][name]["data"]["message"] == "new"
    after_check = kubectl.json("get", "configmap", "web-job-settings", "-n", kube_namespace)
    assert after_check["metadata"]["uid"] == live["metadata"]["uid"] and after_check["data"]["message"] == "old"

    applied = ansible.run([task("new")], diff=True)[0]
    assert applied["diff"]["after"][name]["data"]["message"] == "new"
    recreated = kubectl.json("get", "configmap", "web-job-settings", "-n", kube_namespace)
    assert recreated["metadata"]["uid"] != live["metadata"]["uid"] and recreated["data"]["message"] == "new"
