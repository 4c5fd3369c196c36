"""The Helm source's object sets on the real control plane (issue 17): the shop chart applied, upgraded, deleted.

`source: {kind: helm}` is not wired into the module yet (it lands after the restructure of the component packages),
so these tests do on the controller what the wiring will do: render the chart with the real helm
(`helm.render_chart`), turn it into the engine's sets (`helm_waves.apply_set`, `delete_phase_set`) and apply those
with real `ansible-playbook` runs of `nubes.cloud.component` (`definitions`). The delete phase runs its hook sets as
a companion component, the separate inventory the wiring keeps for them.

The order is read from the apiserver: watches (started from a resourceVersion taken before the run, so no event is
lost) record each object's creation and deletion; their resourceVersions come from the one etcd of the test cluster
and so order the events across kinds.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import HelmSource, render_chart
from ansible_collections.nubes.cloud.plugins.module_utils.component.helm_waves import apply_set, delete_phase_set
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command
from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

SHOP = Path(__file__).resolve().parents[2] / "charts" / "shop"
CRD = "widgets.shop.nubes.test"
PREFIX = "component.nubes.cloud"
MAIN = ["ConfigMap shop-settings", "ConfigMap shop-ledger", "Deployment shop-web", "Service shop-cache"]


class Watches:
    """Creation (ADDED), change (MODIFIED) and deletion (DELETED) events of some resources, with resourceVersions."""

    def __init__(self, kubeconfig: str, paths: List[str]) -> None:
        self.events: List[Tuple[str, str, int, Dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._procs: List[subprocess.Popen[str]] = []
        self._threads: List[threading.Thread] = []
        for path in paths:
            listed = subprocess.run(
                ["kubectl", f"--kubeconfig={kubeconfig}", "get", "--raw", f"{path}?limit=1"],
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            )
            since = json.loads(listed.stdout)["metadata"]["resourceVersion"]
            proc = subprocess.Popen(
                ["kubectl", f"--kubeconfig={kubeconfig}", "get", "--raw", f"{path}?watch=1&resourceVersion={since}"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
            thread.start()
            self._procs.append(proc)
            self._threads.append(thread)

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            obj = event["object"]
            name = f"{obj['kind']} {obj['metadata']['name']}"
            with self._lock:
                self.events.append((event["type"], name, int(obj["metadata"]["resourceVersion"]), obj))

    def stop(self) -> None:
        for proc in self._procs:
            proc.terminate()
            proc.wait(timeout=30)
        for thread in self._threads:
            thread.join(timeout=30)

    def first(self, kind: str, name: str, predicate: Optional[Any] = None) -> int:
        """resourceVersion of the first event of that type for that object (and predicate), else a failure."""
        for event_type, event_name, version, obj in self.events:
            if event_type == kind and event_name == name and (predicate is None or predicate(obj)):
                return version
        raise AssertionError(f"no {kind} event for {name}; events: {[(e[0], e[1]) for e in self.events]}")

    def names(self, kind: str) -> List[str]:
        return [name for event_type, name, _version, _obj in self.events if event_type == kind]


def _complete(job: Dict[str, Any]) -> bool:
    conditions = (job.get("status") or {}).get("conditions") or []
    return any(cond["type"] == "Complete" and cond["status"] == "True" for cond in conditions)


def _watch_paths(namespace: str) -> List[str]:
    base = f"/api/v1/namespaces/{namespace}"
    return [
        f"{base}/configmaps",
        f"{base}/services",
        f"/apis/apps/v1/namespaces/{namespace}/deployments",
        f"/apis/batch/v1/namespaces/{namespace}/jobs",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ]


def _remove_crd(kubectl) -> None:
    """Delete the chart's CRD, also when an earlier failed run left it with the engine's finalizer."""
    kubectl("patch", "crd", CRD, "--type=merge", "-p", '{"metadata":{"finalizers":null}}', check=False)
    kubectl("delete", "crd", CRD, "--ignore-not-found", "--wait=true", "--timeout=120s", check=False)


@pytest.fixture
def shop_crd_cleanup(kubectl):
    """The chart's CRD is orphaned on delete (Helm's rule for crds/): remove it around the test."""
    _remove_crd(kubectl)
    yield
    _remove_crd(kubectl)


def _render(helm_binary: str, namespace: str, spec: Dict[str, Any]):
    return render_chart(HelmSource(chart=str(SHOP), helm_binary=helm_binary), "shop", namespace, spec, run_command)


def test_helm_chart_apply_upgrade_and_delete_in_hook_order(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, kubeconfig: str, shop_crd_cleanup: None
) -> None:
    """crds/ first, pre-install Job completed before the main objects, post-install hook after them, hook-succeeded
    purged; a re-run writes nothing; an upgrade re-runs the upgrade hooks only; delete runs pre-delete before and
    post-delete after the main objects go; the CRD and the `keep` object are orphaned."""
    ns = kube_namespace
    render = _render(helm_binary, ns, {})

    # install (revision 1), then the same again
    watches = Watches(kubeconfig, _watch_paths(ns))
    install = component(ns, "shop", definitions=apply_set(render, PREFIX, revision=1))
    try:
        run = ansible.run([install, install])
    finally:
        watches.stop()
    first, second = run[0], run[1]
    assert not first.get("failed"), first.get("msg")
    assert first["status"]["state"] == "Ready"
    assert (bool(second.get("failed")), second["changed"]) == (False, False), second.get("msg")

    crd = watches.first("ADDED", f"CustomResourceDefinition {CRD}")
    migrate = watches.first("ADDED", "Job shop-migrate")
    migrated = watches.first("MODIFIED", "Job shop-migrate", _complete)
    pre_config = watches.first("ADDED", "ConfigMap shop-pre-config")
    main = {name: watches.first("ADDED", name) for name in MAIN}
    welcome = watches.first("ADDED", "ConfigMap shop-welcome")
    assert crd < migrate < pre_config, "crds/ first, then the pre-install waves by weight (-5 before 2)"
    assert migrated < min(main.values()), "the main wave waits for the pre-install Job to complete"
    assert max(main.values()) < welcome, "the post-install hook comes after the main objects"
    assert watches.first("DELETED", "ConfigMap shop-pre-config") > pre_config  # hook-succeeded: purged
    assert kubectl("get", "configmap", "shop-pre-config", "-n", ns, check=False).returncode != 0
    widget = kubectl.json("get", "widgets.shop.nubes.test", "shop-widget", "-n", ns)
    assert widget["spec"] == {"size": "small"}
    settings = kubectl.json("get", "configmap", "shop-settings", "-n", ns)
    assert settings["data"] == {"greeting": "hello", "releaseNamespace": ns, "team": "platform"}
    phases = {item["name"]: item["phase"] for item in first["status"]["inventory"]}
    assert phases["shop-pre-config"] == "Completed"
    assert {phases[name] for name in phases if name != "shop-pre-config"} == {"Ready"}
    uids = {
        name: kubectl.json("get", kind, name, "-n", ns)["metadata"]["uid"]
        for kind, name in (("job", "shop-migrate"), ("configmap", "shop-welcome"))
    }

    # upgrade (revision 2): a changed value re-runs the upgrade hooks (recreated), not the install-only hook
    watches = Watches(kubeconfig, _watch_paths(ns))
    upgraded = _render(helm_binary, ns, {"greeting": "moin"})
    try:
        run = ansible.run([component(ns, "shop", definitions=apply_set(upgraded, PREFIX, revision=2))])
    finally:
        watches.stop()
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[0]["status"]["revision"] == 2
    job = kubectl.json("get", "job", "shop-migrate", "-n", ns)
    assert job["metadata"]["uid"] != uids["shop-migrate"]
    assert "--greeting=moin" in job["spec"]["template"]["spec"]["containers"][0]["args"]
    welcome_cm = kubectl.json("get", "configmap", "shop-welcome", "-n", ns)
    assert (welcome_cm["metadata"]["uid"] != uids["shop-welcome"], welcome_cm["data"]["message"]) == (
        True,
        "moin from shop",
    )
    assert "ConfigMap shop-pre-config" not in watches.names("ADDED"), "install-only hooks do not run again"
    assert watches.first("ADDED", "Job shop-migrate") < watches.first(
        "MODIFIED", "ConfigMap shop-settings", lambda cm: cm["data"]["greeting"] == "moin"
    )

    # delete: pre-delete hooks, the component's objects, post-delete hooks, then the hooks go
    hooks = "shop-delete-hooks"
    watches = Watches(kubeconfig, _watch_paths(ns))
    try:
        run = ansible.run(
            [
                component(ns, hooks, definitions=delete_phase_set(upgraded, "pre-delete", PREFIX)),
                component(ns, "shop", state="absent"),
                component(ns, hooks, definitions=delete_phase_set(upgraded, "post-delete", PREFIX)),
                component(ns, hooks, state="absent"),
            ]
        )
    finally:
        watches.stop()
    for result in run.results:
        assert not result.get("failed"), result.get("msg")
    farewell = watches.first("ADDED", "ConfigMap shop-farewell")
    deleted = {name: watches.first("DELETED", name) for name in ("ConfigMap shop-settings", "Deployment shop-web")}
    goodbye = watches.first("ADDED", "ConfigMap shop-goodbye")
    assert farewell < min(deleted.values()), "pre-delete hooks run before the objects are deleted"
    assert max(deleted.values()) < goodbye, "post-delete hooks run after the objects are gone"
    assert goodbye < watches.first("DELETED", "ConfigMap shop-farewell")
    assert watches.first("DELETED", "ConfigMap shop-goodbye") > goodbye
    left = kubectl.json("get", "configmaps,deployments,services,jobs", "-n", ns)["items"]
    assert sorted(obj["metadata"]["name"] for obj in left) == ["kube-root-ca.crt", "shop-ledger"]  # keep
    orphaned = kubectl.json("get", "crd", CRD)
    assert not any(f.startswith(PREFIX) for f in orphaned["metadata"].get("finalizers") or [])
