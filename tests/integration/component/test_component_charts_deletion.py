"""Charts and deletion behave as their users expect (issue 25), in real `ansible-playbook` runs on the local cluster.

- The edge chart (`tests/charts/edge`) is shaped like ingress-nginx: admission hooks (ServiceAccount, Role,
  RoleBinding as pre+post hooks, a pre-install Job and a post-install Job, all `before-hook-creation,hook-succeeded`,
  the Jobs deleted by the Job controller as soon as they finish) and a `LoadBalancer` Service that never gets an
  address (the cluster has no load-balancer controller). It installs Ready, each hook Job is created once (counted
  from a watch on the apiserver), and a second run writes nothing.
- `state: absent` deletes the other kinds of a wave alongside its CRDs, not behind them.
- `state: absent` of a component whose namespace it created, while an aggregated API is unavailable (an APIService
  whose Service does not exist), ends within a bounded time and names the namespace and its condition.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from tests.cluster.fixtures import unique_name
from tests.integration.component import manifest_sets
from tests.integration.component.component_harness import Ansible, component
from tests.integration.component.test_component_helm import Watches
from tests.integration.component.throttling_proxy import ThrottlingProxy

pytestmark = pytest.mark.cluster

EDGE = Path(__file__).resolve().parents[2] / "charts" / "edge"
HOOK_JOBS = ["Job edge-admission-create", "Job edge-admission-patch"]
PREFIX = "component.nubes.cloud"
HOOK_RBAC = ["ServiceAccount edge-admission", "Role edge-admission", "RoleBinding edge-admission"]


def _edge(namespace: str, helm_binary: str, **options: Any) -> Dict[str, Any]:
    options.setdefault("timeout", 90)
    return component(namespace, "edge", source=str(EDGE), helm={"helm_binary": helm_binary}, **options)


def _watch_paths(namespace: str) -> List[str]:
    return [
        f"/apis/batch/v1/namespaces/{namespace}/jobs",
        f"/api/v1/namespaces/{namespace}/serviceaccounts",
        f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles",
        f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/rolebindings",
    ]


def _created(watches: Watches, name: str) -> List[str]:
    """The uids of every object of that kind and name the apiserver created while watched."""
    return [obj["metadata"]["uid"] for kind, seen, _v, obj in watches.events if kind == "ADDED" and seen == name]


def test_ingress_nginx_shaped_chart_installs_ready_each_hook_once(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, kubeconfig: str
) -> None:
    """issue 25: a Helm hook runs once per install, as helm runs it: a `hook-succeeded` hook Job the Job controller
    deleted after it finished is never created again in the same apply, nor by the next run; a `LoadBalancer`
    Service without an address does not block readiness (kstatus, as Helm 4's --wait). The chart installs Ready,
    each hook Job and each hook RBAC object is created exactly once (apiserver watch), and a second run writes
    nothing."""
    ns = kube_namespace
    watches = Watches(kubeconfig, _watch_paths(ns))
    try:
        started = time.monotonic()
        run = ansible.run([_edge(ns, helm_binary), _edge(ns, helm_binary)])
        elapsed = time.monotonic() - started
    finally:
        watches.stop()
    first, second = run[0], run[1]
    assert not first.get("failed"), first.get("msg")
    assert first["status"]["state"] == "Ready"
    assert (bool(second.get("failed")), second["changed"]) == (False, False), second.get("msg")
    assert set(second["api_calls"]) == {"GET", "total"}  # the no-op re-run only reads
    assert elapsed < 60, f"two runs took {elapsed:.0f}s"

    for name in HOOK_JOBS + HOOK_RBAC:
        assert len(_created(watches, name)) == 1, f"{name} created {len(_created(watches, name))} times"
    for name in HOOK_JOBS:
        # it ran (completed) and is gone: deleted by its TTL or purged (hook-succeeded)
        assert watches.first("MODIFIED", name, _complete) < watches.first("DELETED", name)
    assert kubectl.json("get", "jobs", "-n", ns)["items"] == []
    service = kubectl.json("get", "service", "edge-controller", "-n", ns)
    assert service["spec"]["type"] == "LoadBalancer"
    assert not (service.get("status") or {}).get("loadBalancer", {}).get("ingress")  # no address, still Ready
    phases = {item["name"] + "/" + item["kind"]: item["phase"] for item in first["status"]["inventory"]}
    assert phases["edge-admission-create/Job"] == "Completed"
    assert phases["edge-admission-patch/Job"] == "Completed"
    assert phases["edge-controller/Service"] == "Ready"


def _complete(job: Dict[str, Any]) -> bool:
    conditions = (job.get("status") or {}).get("conditions") or []
    return any(cond["type"] == "Complete" and cond["status"] == "True" for cond in conditions)


def _broken_api_service(group: str) -> str:
    return json.dumps(
        {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {"name": f"v1beta1.{group}"},
            "spec": {
                "group": group,
                "version": "v1beta1",
                "groupPriorityMinimum": 100,
                "versionPriority": 100,
                "insecureSkipTLSVerify": True,
                "service": {"name": "no-such-service", "namespace": "default", "port": 443},
            },
        }
    )


def test_absent_with_an_aggregated_api_down_ends_bounded_and_names_the_namespace(ansible: Ansible, kubectl) -> None:
    """issue 25: `state: absent` bounds its wait for the namespace the component created. With an aggregated API
    unavailable the namespace cannot finalise (NamespaceDeletionDiscoveryFailure); the task ends well before its
    timeout, fails (no plain success) and names the namespace, its condition and what is left; the component's
    objects are gone from the apiserver and the namespace is still Terminating there."""
    ns = unique_name("t")
    group = f"{unique_name('down')}.nubes.test"
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "b"}}
    try:
        applied = ansible.run([component(ns, "one", definitions=[config_map])])[0]
        assert not applied.get("failed"), applied.get("msg")
        assert kubectl.json("get", "configmap", "settings", "-n", ns)["data"] == {"a": "b"}
        kubectl("apply", "-f", "-", stdin=_broken_api_service(group))

        started = time.monotonic()
        deleted = ansible.run([component(ns, "one", state="absent", timeout=150)])[0]
        elapsed = time.monotonic() - started

        assert elapsed < 90, f"state: absent took {elapsed:.0f}s"
        assert deleted.get("failed"), deleted
        assert deleted["changed"] is True
        message = deleted["msg"]
        assert f"namespace {ns}" in message
        assert "NamespaceDeletionDiscoveryFailure" in message
        assert f"v1beta1.{group}" in message or group in message  # the condition's own text names the API
        live = kubectl.json("get", "namespace", ns)
        assert live["metadata"].get("deletionTimestamp")
        conditions = {c["type"]: c["status"] for c in (live.get("status") or {}).get("conditions") or []}
        assert conditions.get("NamespaceDeletionDiscoveryFailure") == "True"
        assert kubectl("get", "configmap", "settings", "-n", ns, check=False).returncode != 0
    finally:
        kubectl("delete", "apiservice", f"v1beta1.{group}", "--ignore-not-found", check=False)
        kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found", check=False)


def _released(obj: Dict[str, Any]) -> bool:
    """A CRD being deleted whose engine finalizer is removed (the component's part of its deletion done)."""
    meta = obj["metadata"]
    return bool(meta.get("deletionTimestamp")) and not any(f.startswith(PREFIX) for f in meta.get("finalizers") or [])


def test_absent_deletes_other_kinds_alongside_crds_not_behind_them(
    ansible: Ansible, kubectl, kube_namespace: str, kubeconfig: str, local_cluster, cluster_tokens
) -> None:
    """issue 25: deletion of independent kinds is not serialised behind CRD deletions. The CRD's part of the
    deletion is made slow the way a loaded apiserver makes it (its instance check answered 429 + Retry-After three
    times by a proxy); the Deployment, Role and ConfigMap of the same wave are deleted before the CRD's finalizer is
    released (apiserver watch), and everything is gone afterwards."""
    ns = kube_namespace
    group = f"g{unique_name('d').split('-')[1]}.sets.nubes.test"
    crd = manifest_sets._crd(group, "Widget", huge=False)
    objects = [
        crd,
        manifest_sets._deployment("web", ns, 1, "prod"),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "b"}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
        },
    ]
    applied = ansible.run([component(ns, "typed", definitions=objects)])[0]
    assert not applied.get("failed"), applied.get("msg")
    paths = [
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        f"/apis/apps/v1/namespaces/{ns}/deployments",
        f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
        f"/api/v1/namespaces/{ns}/configmaps",
    ]
    watches = Watches(kubeconfig, paths)
    try:
        with ThrottlingProxy(local_cluster.server, str(local_cluster.ca_file)) as proxy:
            # the engine's instance check before it releases the CRD (the deletion gate's LIST has a selector)
            proxy.throttle(
                lambda method, path: method == "GET" and "/widgets" in path and "labelSelector" not in path, 3
            )
            deleted = ansible.run(
                [component(ns, "typed", state="absent", host=proxy.url, api_key=cluster_tokens["admin"])]
            )[0]
    finally:
        watches.stop()
    assert len(proxy.throttled) == 3, proxy.throttled
    assert not deleted.get("failed"), deleted.get("msg")
    released = min(
        version
        for event, name, version, obj in watches.events
        if name == f"CustomResourceDefinition widgets.{group}" and (event == "DELETED" or _released(obj))
    )
    for name in ("Deployment web", "Role reader", "ConfigMap settings"):
        assert watches.first("DELETED", name) < released, f"{name} waited for the CRD"
    assert kubectl("get", "crd", f"widgets.{group}", check=False).returncode != 0
    left = kubectl.json("get", "deployments,roles,configmaps", "-n", ns)["items"]
    assert [obj["metadata"]["name"] for obj in left] == ["kube-root-ca.crt"]
