"""Playbook-level tests of the failures found with real operator bundles (issue 17): each one failed before its fix.

Real ansible-playbook runs against the test cluster; results are checked on the apiserver with kubectl.
"""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml

from tests.integration.component import manifest_sets
from tests.integration.component.component_harness import Ansible, component
from tests.integration.component.throttling_proxy import ThrottlingProxy

pytestmark = pytest.mark.cluster

PROMETHEUS_TEXT = "{{ $labels.instance }} of {{ $labels.job }} is down"


def _write(path: Path, documents: List[Dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False), encoding="utf-8")
    return path


def _cm(name: str, **data: str) -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _group() -> str:
    return f"g{uuid.uuid4().hex[:6]}.sets.nubes.test"


def test_plain_manifests_and_kustomize_output_are_never_templated(
    ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path
) -> None:
    """Templating is opt-in per source: a plain directory and a kustomize directory holding Prometheus-style
    ``{{ $labels.instance }}`` text are applied as they are (this failed with a Jinja2 syntax error); a directory of
    templates under auto-detection fails with a clear error asking for source_kind."""
    _write(tmp_path / "plain" / "rules.yaml", [_cm("plain-rules", alert=PROMETHEUS_TEXT)])
    _write(tmp_path / "kust" / "rules.yaml", [_cm("kust-rules", alert=PROMETHEUS_TEXT)])
    (tmp_path / "kust" / "kustomization.yaml").write_text("resources: [rules.yaml]\n", encoding="utf-8")
    (tmp_path / "tmpl").mkdir()
    (tmp_path / "tmpl" / "cm.yaml.j2").write_text("apiVersion: v1\nkind: ConfigMap\n", encoding="utf-8")
    run = ansible.run(
        [
            component(kube_namespace, "plain", source=str(tmp_path / "plain")),
            component(kube_namespace, "kust", source=str(tmp_path / "kust")),
            component(kube_namespace, "tmpl", source=str(tmp_path / "tmpl")),
        ]
    )
    assert not run[0].get("failed") and not run[1].get("failed"), (run[0].get("msg"), run[1].get("msg"))
    for name in ("plain-rules", "kust-rules"):
        assert kubectl.json("get", "configmap", name, "-n", kube_namespace)["data"]["alert"] == PROMETHEUS_TEXT
    assert run[2]["failed"] and "set source_kind: templates" in run[2]["msg"]


def test_kustomize_overlay_with_a_parent_base_is_built_in_place(
    ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path
) -> None:
    """An overlay that references ``../base`` builds (it failed with 'evalsymlink failure' from a temporary copy)."""
    _write(tmp_path / "app" / "base" / "cm.yaml", [_cm("from-base", origin="base")])
    (tmp_path / "app" / "base" / "kustomization.yaml").write_text("resources: [cm.yaml]\n", encoding="utf-8")
    (tmp_path / "app" / "namespace-install").mkdir()
    (tmp_path / "app" / "namespace-install" / "kustomization.yaml").write_text(
        "resources: [../base]\nnamePrefix: overlay-\n", encoding="utf-8"
    )
    result = ansible.run([component(kube_namespace, "overlay", source=str(tmp_path / "app" / "namespace-install"))])[0]
    assert not result.get("failed"), result.get("msg")
    assert kubectl.json("get", "configmap", "overlay-from-base", "-n", kube_namespace)["data"] == {"origin": "base"}


def test_list_documents_are_expanded_like_kubectl(
    ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path
) -> None:
    """``kind: List`` and typed lists (a ConfigMapList of dashboards, items without apiVersion/kind) are expanded
    into their items (this failed with 'object without metadata.name')."""
    typed = {
        "apiVersion": "v1",
        "kind": "ConfigMapList",
        "items": [{"metadata": {"name": f"dashboard-{n}"}, "data": {"d.json": "{}"}} for n in range(3)],
    }
    plain = {"apiVersion": "v1", "kind": "List", "items": [_cm("listed", a="b")]}
    _write(tmp_path / "lists" / "lists.yaml", [typed, plain])
    result = ansible.run([component(kube_namespace, "lists", source=str(tmp_path / "lists"))])[0]
    assert not result.get("failed"), result.get("msg")
    names = kubectl("get", "configmaps", "-n", kube_namespace, "-o", "name").stdout.split()
    assert {f"configmap/dashboard-{n}" for n in range(3)} | {"configmap/listed"} <= set(names)


def test_go_yaml_equals_sign_is_a_string(ansible: Ansible, kubectl, kube_namespace: str, tmp_path: Path) -> None:
    """A plain ``=`` in a CRD schema (an enum value and a key) loads as the string '=', as in Go (this failed with
    'could not determine a constructor for the tag tag:yaml.org,2002:value')."""
    group = _group()
    crd = manifest_sets.plain_equals(yaml.safe_dump(manifest_sets._crd(group, "Matcher", huge=False), sort_keys=False))
    assert "- =\n" in crd and "=:" in crd
    (tmp_path / "eq").mkdir()
    (tmp_path / "eq" / "crd.yaml").write_text(crd, encoding="utf-8")
    result = ansible.run([component(kube_namespace, "eq", source=str(tmp_path / "eq"))])[0]
    try:
        assert not result.get("failed"), result.get("msg")
        live = kubectl.json("get", "crd", f"matchers.{group}")
        spec = live["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        matcher = spec["matchers"]["items"]["properties"]
        assert matcher["operator"]["enum"] == ["=", "!=", "=~", "!~"] and "=" in matcher
    finally:
        ansible.run([component(kube_namespace, "eq", state="absent")])


def test_absent_honours_retry_after_in_the_deletion_gate(
    ansible: Ansible, kubectl, kube_namespace: str, local_cluster, cluster_tokens, tmp_path: Path
) -> None:
    """state=absent right after CRDs were created: the apiserver answers the deletion gate's instance LIST with
    '429 storage is (re)initializing' + Retry-After; it is retried as client-go does (this failed the task)."""
    group = _group()
    crd = manifest_sets._crd(group, "Widget", huge=False)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    widget = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    applied = ansible.run([component(kube_namespace, "gate", definitions=[crd, widget])])[0]
    assert not applied.get("failed"), applied.get("msg")
    with ThrottlingProxy(local_cluster.server, str(local_cluster.ca_file)) as proxy:
        proxy.throttle(lambda method, path: method == "GET" and "/widgets" in path, times=3)
        deleted = ansible.run(
            [component(kube_namespace, "gate", state="absent", host=proxy.url, api_key=cluster_tokens["admin"])]
        )[0]
    assert len(proxy.throttled) == 3, proxy.throttled
    assert not deleted.get("failed"), deleted.get("msg")
    assert kubectl("get", "crd", f"widgets.{group}", check=False).returncode != 0


def test_absent_with_its_own_namespace_among_its_objects(ansible: Ansible, kubectl, tmp_path: Path) -> None:
    """The component's own namespace is one of its objects: state=absent deletes everything and finishes cleanly
    (the record went with the namespace, and the next record write's 404 failed the task)."""
    namespace = f"own-{uuid.uuid4().hex[:6]}"
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        _cm("settings", a="b"),
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}},
    ]
    try:
        applied = ansible.run([component(namespace, "self", definitions=objects)])[0]
        assert not applied.get("failed"), applied.get("msg")
        deleted = ansible.run([component(namespace, "self", state="absent")])[0]
        assert not deleted.get("failed"), deleted.get("msg")
        assert deleted["changed"] is True
        assert kubectl("get", "namespace", namespace, check=False).returncode != 0
    finally:
        kubectl("delete", "namespace", namespace, "--ignore-not-found", "--wait=false", check=False)


def test_absent_removes_the_namespace_it_created_and_keeps_a_shared_one(ansible: Ansible, kubectl) -> None:
    """The component's own namespace, created because it was missing, is removed again on absent; a namespace that
    also holds something else is kept, with a warning naming what is left."""
    created, shared = f"made-{uuid.uuid4().hex[:6]}", f"shared-{uuid.uuid4().hex[:6]}"
    try:
        run = ansible.run(
            [
                component(created, "alone", definitions=[_cm("a", k="v")]),
                component(shared, "first", definitions=[_cm("first", k="v")]),
                component(shared, "second", definitions=[_cm("second", k="v")]),
                component(created, "alone", state="absent"),
                component(shared, "first", state="absent"),
            ]
        )
        assert all(not r.get("failed") for r in run.results), [r.get("msg") for r in run.results]
        assert kubectl("get", "namespace", created, check=False).returncode != 0
        kubectl("get", "configmap", "second", "-n", shared)  # the other component is untouched
        assert f"namespace {shared} was created by this component but is kept" in run.stdout + run.stderr
    finally:
        for namespace in (created, shared):
            kubectl("delete", "namespace", namespace, "--ignore-not-found", "--wait=false", check=False)


def test_schema_error_fails_at_once_with_the_server_text(ansible: Ansible, kube_namespace: str) -> None:
    """A typo in a field: server-side apply answers HTTP 500 'field not declared in schema'; the task fails at once
    (state Error, not a Timeout after 600 s of retries) with the server's text and the object's name."""
    deployment = manifest_sets._deployment("typo", kube_namespace, 1, "x")
    deployment["spec"]["replicass"] = 2
    result = ansible.run([component(kube_namespace, "typo", definitions=[deployment], timeout=600)])[0]
    assert result["failed"] is True
    assert "field not declared in schema" in result["msg"] and f"Deployment.apps {kube_namespace}/typo" in result["msg"]
    assert "apply wave 0" in result["msg"]
    assert result["status"]["conditions"][0]["reason"] == "Error"
    assert result["api_calls"].get("PATCH", 0) <= 2


def _operator(kubectl, namespace: str, group: str, stop: threading.Event) -> None:
    """Plays the operator: once the custom resource exists, makes the pod the PodDisruptionBudget waits for."""
    pod = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: db-0\n  namespace: {namespace}\n  labels: {{app: db}}\n"
        "spec:\n  containers: [{name: db, image: registry.example.invalid/db:1}]\n"
    )
    while not stop.is_set():
        if kubectl("get", f"databases.{group}", "main", "-n", namespace, check=False).returncode == 0:
            kubectl.apply(pod)
            return
        time.sleep(0.5)


def test_readiness_deadlock_converges(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """A PodDisruptionBudget that only becomes healthy once the operator makes pods from the set's own custom
    resource does not hold the custom resource back (it timed out: the instance waited for the PDB, the PDB for
    the pods, the pods for the instance). The wave still ends only when the PDB is healthy."""
    group = _group()
    crd = manifest_sets._crd(group, "Database", huge=False)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
    }
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "db"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
    }
    database = {"apiVersion": f"{group}/v1", "kind": "Database", "metadata": {"name": "main"}, "spec": {"size": 1}}
    stop = threading.Event()
    operator = threading.Thread(target=_operator, args=(kubectl, kube_namespace, group, stop), daemon=True)
    operator.start()
    try:
        result = ansible.run([component(kube_namespace, "db", definitions=[crd, pdb, database], timeout=120)])[0]
        assert not result.get("failed"), result.get("msg")
        assert result["state"] == "Ready"
        live = kubectl.json("get", "pdb", "db", "-n", kube_namespace)
        assert live["status"]["currentHealthy"] >= 1
    finally:
        stop.set()
        operator.join(timeout=10)
        ansible.run([component(kube_namespace, "db", state="absent")])


def _never_ready_set(waiting: int) -> List[Dict[str, Any]]:
    blocked = manifest_sets._deployment("stuck", "", 1, "x")
    blocked["metadata"].pop("namespace", None)
    blocked["spec"]["template"]["spec"]["nodeSelector"] = {"nubes.test/no-such-node": "true"}
    later = {"component.nubes.cloud/apply-order": "1"}
    behind = [
        dict(_cm(f"behind-{n}", n=str(n)), metadata={"name": f"behind-{n}", "annotations": later})
        for n in range(waiting)
    ]
    return [blocked, *behind]


def test_timeout_names_the_blocking_objects_first_and_the_output_stays_short(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """The timeout message names the object that blocks (wave 0) first, then how many wait behind it, instead of
    the first 20 of the inventory; a failed task prints the error and a summary, not the whole inventory (it
    printed ~15 lines per object), which stays in the record in the cluster (and in the result with -vv)."""
    result_run = ansible.run([component(kube_namespace, "stuck", definitions=_never_ready_set(120), timeout=8)])
    result = result_run[0]
    assert result["failed"] is True and result["status"]["conditions"][0]["reason"] == "Timeout"
    message = result["msg"]
    assert f"- Deployment.apps {kube_namespace}/stuck (apply wave 0" in message
    assert "120 more object(s) wait behind them" in message
    assert "behind-100" not in message
    assert "inventory" not in result["status"] and result["summary"]["objects"] == 121
    assert result["summary"]["blocking"] == [f"Deployment.apps {kube_namespace}/stuck"]
    assert len(result_run.stdout.splitlines()) < 150, len(result_run.stdout.splitlines())
    record = kubectl.json("get", "configmap", "cloud.nubes.component.stuck", "-n", kube_namespace)
    assert len(yaml.safe_load(record["data"]["inventory"])) == 121
    verbose = ansible.run(
        [component(kube_namespace, "stuck", definitions=_never_ready_set(120), timeout=2)], verbosity=2
    )
    assert len(verbose[0]["status"]["inventory"]) == 121


def test_check_diff_on_an_empty_cluster_prints_no_mebibytes(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """--check --diff on an empty cluster: a CRD over 256 KiB is summarised in the diff (it printed MiBs); small
    objects are shown whole; nothing is written."""
    group = _group()
    objects = [manifest_sets._crd(group, "Widget", huge=True), _cm("small", a="b")]
    run = ansible.run([component(kube_namespace, "big", definitions=objects)], check=True, diff=True)
    result = run[0]
    assert not result.get("failed"), result.get("msg")
    assert len(run.stdout) < 64 * 1024, len(run.stdout)
    after = result["diff"]["after"]
    assert "(not shown)" in after[f"CustomResourceDefinition.apiextensions.k8s.io widgets.{group}"]
    assert after[f"ConfigMap {kube_namespace}/small"]["data"] == {"a": "b"}
    assert sorted(result["plan"]["create"]) == sorted(after)
    assert kubectl("get", "crd", f"widgets.{group}", check=False).returncode != 0


def test_zero_timeout_and_interval_mean_the_default(ansible: Ansible, kube_namespace: str) -> None:
    """C14: timeout: 0 and reapply_interval: 0 mean the defaults (this failed with 'must be positive')."""
    result = ansible.run(
        [component(kube_namespace, "zero", definitions=[_cm("zero", a="b")], timeout=0, reapply_interval=0)]
    )[0]
    assert not result.get("failed"), result.get("msg")
    assert result["state"] == "Ready"
