"""The Helm source on the real control plane, as a platform team uses it (issue 17): the shop chart (a subchart, a
CRD in crds/, a custom resource of it, pre-install, post-install, pre-delete and post-delete hooks, a `keep` object)
checked with --check --diff, applied, re-applied, upgraded and deleted through `nubes.cloud.component` with
`source: <chart>` and `helm: {...}` in real `ansible-playbook` runs.

The order is read from the apiserver: watches (started from a resourceVersion taken before the run, so no event is
lost) record each object's creation and deletion; their resourceVersions come from the one etcd of the test cluster
and so order the events across kinds.

C2: the spec is the chart's values. C10: the placement is the release. C15: the hooks' waves and policies are the
engine's per-object annotations. C8: the delete hooks' inventory is kept in the record, written ahead.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

SHOP = Path(__file__).resolve().parents[2] / "charts" / "shop"
CRD = "widgets.shop.nubes.test"
PREFIX = "component.nubes.cloud"
MAIN = ["ConfigMap shop-settings", "ConfigMap shop-ledger", "Deployment shop-web", "Service shop-cache"]
RECORD = "cloud.nubes.component.shop"


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


def _run_watched(ansible: Ansible, kubeconfig: str, namespace: str, tasks: List[Dict[str, Any]]) -> Tuple[Any, Watches]:
    """Run the tasks while watching the namespace's objects (and CRDs); the run and what the watches saw."""
    watches = Watches(kubeconfig, _watch_paths(namespace))
    try:
        return ansible.run(tasks), watches
    finally:
        watches.stop()


def _shop(namespace: str, helm_binary: str, **options: Any) -> Dict[str, Any]:
    """A task applying the shop chart (source_kind auto: a directory with Chart.yaml is a chart)."""
    return component(namespace, "shop", source=str(SHOP), helm={"helm_binary": helm_binary}, **options)


def _record(kubectl, namespace: str, name: str = "shop") -> Optional[Dict[str, Any]]:
    """The component's record ConfigMap as stored (None when gone)."""
    found = kubectl("get", "configmap", f"cloud.nubes.component.{name}", "-n", namespace, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def test_helm_chart_check_apply_upgrade_and_delete_in_hook_order(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, kubeconfig: str, shop_crd_cleanup: None
) -> None:
    """--check --diff writes nothing; then crds/ first, pre-install Job completed before the main objects,
    post-install hook after them, hook-succeeded purged; a re-run writes nothing; an upgrade re-runs the upgrade
    hooks only; `state: absent` (one task, no source) runs pre-delete before and post-delete after the main objects
    go; the CRD and the `keep` object are orphaned. C15: the hooks' waves and policies; C8: the record keeps the
    delete hooks; C2: the spec is the values; C10: the release is the placement."""
    ns = kube_namespace

    # --check --diff on an empty namespace: the plan, nothing written (not even the record)
    planned = ansible.run([_shop(ns, helm_binary)], check=True, diff=True)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert f"Job.batch {ns}/shop-migrate" in planned["plan"]["create"]
    assert f"CustomResourceDefinition.apiextensions.k8s.io {CRD}" in planned["plan"]["create"]
    assert f"ConfigMap {ns}/shop-farewell" not in planned["plan"]["create"]  # a delete hook: not applied
    assert planned["diff"]["after"][f"ConfigMap {ns}/shop-settings"]["data"]["greeting"] == "hello"
    assert kubectl("get", "crd", CRD, check=False).returncode != 0
    present = kubectl.json("get", "configmaps,jobs", "-n", ns)["items"]
    assert [f"{obj['kind']} {obj['metadata']['name']}" for obj in present] == ["ConfigMap kube-root-ca.crt"]
    assert _record(kubectl, ns) is None

    # install (revision 1), then the same again
    run, watches = _run_watched(ansible, kubeconfig, ns, [_shop(ns, helm_binary), _shop(ns, helm_binary)])
    first, second = run[0], run[1]
    assert not first.get("failed"), first.get("msg")
    assert first["status"]["state"] == "Ready"
    assert (bool(second.get("failed")), second["changed"]) == (False, False), second.get("msg")
    assert set(second["api_calls"]) == {"GET", "total"}  # the no-op re-run only reads

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
    record = _record(kubectl, ns)
    assert record is not None
    kept_hooks = json.loads(record["data"]["deleteHooks"])  # as Helm keeps a release's hooks
    assert {phase: [o["metadata"]["name"] for o in objs] for phase, objs in kept_hooks.items()} == {
        "pre-delete": ["shop-farewell"],
        "post-delete": ["shop-goodbye"],
    }
    uids = {
        name: kubectl.json("get", kind, name, "-n", ns)["metadata"]["uid"]
        for kind, name in (("job", "shop-migrate"), ("configmap", "shop-welcome"))
    }

    # upgrade (revision 2): a changed value re-runs the upgrade hooks (recreated), not the install-only hook
    run, watches = _run_watched(ansible, kubeconfig, ns, [_shop(ns, helm_binary, spec={"greeting": "moin"})])
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

    # --check of state: absent: the hooks it would run and the objects it would remove, nothing written
    planned = ansible.run([component(ns, "shop", state="absent")], check=True)[0]
    assert not planned.get("failed"), planned.get("msg")
    assert planned["plan"]["create"] == [f"ConfigMap {ns}/shop-farewell", f"ConfigMap {ns}/shop-goodbye"]
    assert f"Deployment.apps {ns}/shop-web" in planned["plan"]["prune"]
    assert sorted(planned["plan"]["orphan"]) == [
        f"ConfigMap {ns}/shop-ledger",
        f"CustomResourceDefinition.apiextensions.k8s.io {CRD}",
    ]
    assert kubectl("get", "configmap", "shop-farewell", "-n", ns, check=False).returncode != 0
    assert kubectl("get", "deployment", "shop-web", "-n", ns, check=False).returncode == 0

    # delete: pre-delete hooks, the component's objects, post-delete hooks, then the hooks go, then the record
    run, watches = _run_watched(ansible, kubeconfig, ns, [component(ns, "shop", state="absent")])
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[0]["changed"] is True
    farewell = watches.first("ADDED", "ConfigMap shop-farewell")
    deleted = {name: watches.first("DELETED", name) for name in ("ConfigMap shop-settings", "Deployment shop-web")}
    goodbye = watches.first("ADDED", "ConfigMap shop-goodbye")
    assert farewell < min(deleted.values()), "pre-delete hooks run before the objects are deleted"
    assert max(deleted.values()) < goodbye, "post-delete hooks run after the objects are gone"
    assert goodbye < watches.first("DELETED", "ConfigMap shop-farewell")
    assert watches.first("DELETED", "ConfigMap shop-goodbye") > goodbye
    assert watches.first("DELETED", f"ConfigMap {RECORD}") > watches.first("DELETED", "ConfigMap shop-farewell")
    left = kubectl.json("get", "configmaps,deployments,services,jobs", "-n", ns)["items"]
    assert sorted(obj["metadata"]["name"] for obj in left) == ["kube-root-ca.crt", "shop-ledger"]  # keep
    orphaned = kubectl.json("get", "crd", CRD)
    assert not any(f.startswith(PREFIX) for f in orphaned["metadata"].get("finalizers") or [])


def _chart(root: Path, name: str, templates: Dict[str, str], values: str = "") -> str:
    """A small chart written for one test (its own objects, so tests do not share cluster-scoped ones)."""
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "values.yaml").write_text(values, encoding="utf-8")
    for file_name, text in templates.items():
        (chart / "templates" / file_name).write_text(text, encoding="utf-8")
    return str(chart)


def _config_map(name: str, hook: str = "", data: str = "x: y") -> str:
    annotations = f"  annotations:\n    helm.sh/hook: {hook}\n" if hook else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{annotations}data:\n  {data}\n"


# A post-delete hook that becomes ready only when `stuck` is false: its pods need a node that does not exist.
STUCK_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: tidy-after
  annotations:
    helm.sh/hook: post-delete
spec:
  replicas: 1
  selector:
    matchLabels: {app: tidy-after}
  template:
    metadata:
      labels: {app: tidy-after}
    spec:
      {{- if .Values.stuck }}
      nodeSelector:
        nubes.cloud/no-such-node: "true"
      {{- end }}
      containers:
        - name: after
          image: registry.invalid/after:1
"""


def _tidy_chart(root: Path) -> str:
    return _chart(
        root,
        "tidy",
        {
            "settings.yaml": _config_map("tidy-settings"),
            "before.yaml": _config_map("tidy-before", hook="pre-delete"),
            "after.yaml": STUCK_DEPLOYMENT,
        },
        values="stuck: true\n",
    )


def _delete_state(kubectl, namespace: str) -> Tuple[str, List[str]]:
    """The record's deletePhase and the names in its delete hooks' inventory."""
    record = _record(kubectl, namespace, "tidy")
    assert record is not None
    status = json.loads(record["data"]["status"])
    return status.get("deletePhase", ""), sorted(i["name"] for i in status.get("deleteHooksInventory") or [])


def test_a_stopped_deletion_resumes_at_its_step(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, kubeconfig: str, tmp_path: Path
) -> None:
    """C8: a deletion that times out in the post-delete step keeps its step and the hooks' inventory in the
    record; the next `state: absent` goes on from there: the pre-delete hook does not run again."""
    ns, chart = kube_namespace, _tidy_chart(tmp_path)
    tidy = {"source": chart, "helm": {"helm_binary": helm_binary}}
    applied = ansible.run([component(ns, "tidy", **tidy)])[0]
    assert not applied.get("failed"), applied.get("msg")

    stopped = ansible.run([component(ns, "tidy", state="absent", timeout=5)])[0]
    assert stopped["failed"] is True
    assert "(while running the post-delete hooks)" in stopped["msg"], stopped["msg"]
    assert _delete_state(kubectl, ns) == ("post-delete", ["tidy-after", "tidy-before"])
    assert kubectl("get", "configmap", "tidy-settings", "-n", ns, check=False).returncode != 0  # objects gone

    # the hook can become ready now (someone fixed what it waits for); the same task again finishes the deletion
    kubectl(
        "patch",
        "deployment",
        "tidy-after",
        "-n",
        ns,
        "--type=json",
        "-p",
        '[{"op": "remove", "path": "/spec/template/spec/nodeSelector"}]',
    )
    run, watches = _run_watched(ansible, kubeconfig, ns, [component(ns, "tidy", state="absent")])
    finished = run[0]
    assert not finished.get("failed"), finished.get("msg")
    assert "ConfigMap tidy-before" not in watches.names("ADDED"), "the pre-delete step is not run again"
    assert set(watches.names("DELETED")) >= {"ConfigMap tidy-before", "Deployment tidy-after"}
    assert _record(kubectl, ns, "tidy") is None


def test_an_apply_after_a_stopped_deletion_removes_its_hooks(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, kubeconfig: str, tmp_path: Path
) -> None:
    """C8: an apply after a deletion that stopped half-way removes the delete hooks that ran (their inventory is in
    the record) and forgets the step, so the next deletion runs them again from the start."""
    ns, chart = kube_namespace, _tidy_chart(tmp_path)
    tidy = {"source": chart, "helm": {"helm_binary": helm_binary}}
    assert not ansible.run([component(ns, "tidy", **tidy)])[0].get("failed")
    assert ansible.run([component(ns, "tidy", state="absent", timeout=5)])[0]["failed"] is True

    reapplied = ansible.run([component(ns, "tidy", spec={"stuck": False}, **tidy)])[0]
    assert not reapplied.get("failed"), reapplied.get("msg")
    assert reapplied["status"]["state"] == "Ready"
    assert _delete_state(kubectl, ns) == ("", [])
    for kind, name in (("configmap", "tidy-before"), ("deployment", "tidy-after")):
        assert kubectl("get", kind, name, "-n", ns, check=False).returncode != 0, f"{name} is left"
    assert kubectl("get", "configmap", "tidy-settings", "-n", ns, check=False).returncode == 0

    run, watches = _run_watched(ansible, kubeconfig, ns, [component(ns, "tidy", state="absent")])
    deleted = run[0]
    assert not deleted.get("failed"), deleted.get("msg")
    assert watches.first("ADDED", "ConfigMap tidy-before") < watches.first("DELETED", "ConfigMap tidy-settings")
    assert _record(kubectl, ns, "tidy") is None


def test_release_is_the_placement_from_the_spec(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, tmp_path: Path
) -> None:
    """C9, C10: with spec_configuration the spec's `name` and `namespace` are the placement, and so the release
    (.Release.Name, .Release.Namespace); C2: the same spec is the chart's values (values files below it)."""
    ns = kube_namespace
    chart = _chart(
        tmp_path,
        "echo",
        {
            "release.yaml": _config_map(
                "{{ .Release.Name }}-release",
                data=(
                    "at: {{ .Release.Namespace }}/{{ .Release.Name }}\n"
                    "  colour: {{ .Values.colour }}\n  size: {{ .Values.size }}"
                ),
            )
        },
        values="colour: red\nsize: s\n",
    )
    values_file = tmp_path / "blue.yaml"
    values_file.write_text("colour: blue\nsize: m\n", encoding="utf-8")
    spec = {"name": "placed", "namespace": ns, "size": "l"}
    task = component(
        ns,
        "echo",
        source=chart,
        spec=spec,
        spec_configuration=True,
        helm={"helm_binary": helm_binary, "values_files": [str(values_file)]},
    )
    result = ansible.run([task])[0]
    assert not result.get("failed"), result.get("msg")
    assert result["component"]["deployment_name"] == "placed"
    data = kubectl.json("get", "configmap", "placed-release", "-n", ns)["data"]
    assert data == {"at": f"{ns}/placed", "colour": "blue", "size": "l"}


def test_bad_helm_input_fails_before_anything_is_written(
    ansible: Ansible, kubectl, kube_namespace: str, helm_binary: str, tmp_path: Path
) -> None:
    """Bad input fails with a clear message before any API write: helm options for another kind of source, a test
    hook, an unknown hook delete policy, a missing values file, a helm binary that is not there."""
    ns = kube_namespace
    chart = _chart(tmp_path, "bad", {"test.yaml": _config_map("bad-test", hook="test")})
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "cm.yaml").write_text(_config_map("plain"), encoding="utf-8")
    helm = {"helm_binary": helm_binary}
    run = ansible.run(
        [
            component(ns, "plain", source=str(plain), helm=helm),
            component(ns, "bad", source=chart, helm=helm),
            component(ns, "bad", source=chart, helm={**helm, "values_files": [str(tmp_path / "absent.yaml")]}),
            component(ns, "bad", source=chart, helm={"helm_binary": str(tmp_path / "no-helm")}),
            component(ns, "bad", source=chart, source_kind="manifests", helm=helm),
        ]
    )
    messages = [result.get("msg", "") for result in run.results]
    assert all(result.get("failed") for result in run.results), messages
    assert (
        "helm options are for Helm chart sources (source_kind helm); this component's source is of kind manifests"
        in messages[0]
    )
    assert "ConfigMap bad-test (bad/templates/test.yaml): hook 'test' is not supported" in messages[1]
    assert "set helm.skip_tests: true" in messages[1]
    assert f"values file {tmp_path / 'absent.yaml'} does not exist" in messages[2]
    assert f"helm.helm_binary {tmp_path / 'no-helm'} is not an executable file" in messages[3]
    assert "helm options are for Helm chart sources" in messages[4]
    assert kubectl.json("get", "configmaps", "-n", ns)["items"][0]["metadata"]["name"] == "kube-root-ca.crt"
    assert len(kubectl.json("get", "configmaps", "-n", ns)["items"]) == 1
