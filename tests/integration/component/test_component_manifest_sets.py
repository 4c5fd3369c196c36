"""Playbook-level tests on real-shaped operator bundles (tests/integration/component/manifest_sets.py: about 60 and
130 objects, a CRD over 256 KiB, a webhook, RBAC, Deployments, a ConfigMapList, Prometheus-style text, a kustomize
overlay of ``../base`` and custom resources of the set's own CRDs).

Each set goes through first apply, no-op, update, prune and delete with ``nubes.cloud.component`` (auto-detected
kustomize source, built in place), and the applied objects are compared object by object and field by field with
what ``kubectl apply --server-side -k`` makes of the same overlay.
"""

from __future__ import annotations

import copy
import json
import subprocess
import uuid
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.manifests import load_all
from tests.integration.component import manifest_sets
from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

Key = Tuple[str, str, str]  # kind, namespace, name
PREFIX = "component.nubes.cloud/"
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink")


def expected_keys(overlay: Path) -> Dict[Key, Dict[str, Any]]:
    """The objects kustomize builds from the overlay (what both tools are given)."""
    built = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True, text=True, check=True).stdout
    objects = [o for o in load_all(built) if o]  # kustomize writes '=' plain, as Go YAML does
    return {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in objects}


def snapshot(kubectl, shape: str, group: str, keys: Dict[Key, Any]) -> Dict[Key, Dict[str, Any]]:
    """The live objects of the set, normalised: no server bookkeeping, status or ownership markers of either tool."""
    kinds = (
        "customresourcedefinitions,clusterroles,clusterrolebindings,validatingwebhookconfigurations,serviceaccounts,"
        "roles,rolebindings,configmaps,secrets,services,deployments,poddisruptionbudgets,networkpolicies"
    )
    selector = f"app.kubernetes.io/part-of={shape}"
    items = list(kubectl.json("get", kinds, "-A", "-l", selector, "-o", "json")["items"])
    for custom in (f"widgets.{group}", f"alertrules.{group}"):  # gone with their CRDs after a delete
        listed = kubectl("get", custom, "-A", "-l", selector, "-o", "json", check=False)
        if listed.returncode == 0:
            items.extend(json.loads(listed.stdout)["items"])
    found: Dict[Key, Dict[str, Any]] = {}
    for item in items:
        key = (item["kind"], item["metadata"].get("namespace", ""), item["metadata"]["name"])
        if key in keys:
            found[key] = normalise(item)
    return found


def normalise(obj: Dict[str, Any]) -> Dict[str, Any]:
    data = copy.deepcopy(obj)
    meta = data["metadata"]
    for key in SERVER_FIELDS:
        meta.pop(key, None)
    for key in ("annotations", "labels"):
        kept = {k: v for k, v in (meta.get(key) or {}).items() if not k.startswith((PREFIX, "kubectl.kubernetes.io/"))}
        kept.pop("deployment.kubernetes.io/revision", None)
        meta[key] = kept
    meta["finalizers"] = [f for f in meta.get("finalizers") or [] if not f.startswith(PREFIX)]
    data.pop("status", None)
    for key in ("clusterIP", "clusterIPs"):
        (data.get("spec") or {}).pop(key, None)
    return data


def differences(ours: Dict[Key, Any], theirs: Dict[Key, Any]) -> List[str]:
    problems = [
        f"only {side}: {key}"
        for side, a, b in (("ours", ours, theirs), ("kubectl", theirs, ours))
        for key in a
        if key not in b
    ]
    for key in ours:
        if key in theirs and ours[key] != theirs[key]:
            problems.append(f"differs: {key}: {json.dumps(ours[key])[:300]} != {json.dumps(theirs[key])[:300]}")
    return problems


def kubectl_apply(kubectl, overlay: Path) -> None:
    """kubectl apply --server-side -k, twice: custom resources fail the first time, before their CRDs exist."""
    kubectl("apply", "--server-side", "-k", str(overlay), check=False)
    kubectl(
        "wait",
        "--for=condition=Established",
        "crd",
        "-l",
        f"app.kubernetes.io/part-of={overlay.parent.name}",
        "--timeout=60s",
        check=False,
    )
    kubectl("apply", "--server-side", "-k", str(overlay))


@pytest.mark.parametrize("shape", ["delivery", "monitoring"])
def test_operator_bundle_lifecycle_matches_kubectl(shape: str, ansible: Ansible, kubectl, tmp_path: Path) -> None:
    """First apply, no-op, update, prune, delete of a real-shaped bundle; the applied objects equal kubectl
    apply --server-side's, object by object and field by field."""
    namespace, group = f"{shape}-{uuid.uuid4().hex[:6]}", f"s{uuid.uuid4().hex[:6]}.sets.nubes.test"
    kubectl("create", "namespace", namespace)
    initial = manifest_sets.write(tmp_path / "initial", shape, namespace, group, "initial")
    keys = expected_keys(initial)
    assert len(keys) >= {"delivery": 55, "monitoring": 125}[shape]

    def run(source: Path, **options: Any) -> Dict[str, Any]:
        result = ansible.run([component(namespace, shape, source=str(source), timeout=300, **options)])[0]
        assert not result.get("failed"), result.get("msg")
        return result

    try:
        first = run(initial)
        assert first["changed"] is True and first["state"] == "Ready"
        assert len(first["status"]["inventory"]) == len(keys)
        ours = snapshot(kubectl, shape, group, keys)
        again = run(initial)
        assert again["changed"] is False
        assert sum(again["api_calls"].get(m, 0) for m in ("POST", "PUT", "PATCH", "DELETE")) == 0

        updated = run(manifest_sets.write(tmp_path / "update", shape, namespace, group, "update"))
        assert updated["changed"] is True
        assert kubectl.json("get", "configmap", f"{shape}-cm-0", "-n", namespace)["data"]["setting"] == "changed"
        env = kubectl.json("get", "deployment", f"{shape}-deploy-0", "-n", namespace)["spec"]["template"]["spec"]
        assert env["containers"][0]["env"] == [{"name": "MODE", "value": "updated"}]

        pruned_source = manifest_sets.write(tmp_path / "prune", shape, namespace, group, "prune")
        pruned = run(pruned_source)
        gone = set(keys) - set(expected_keys(pruned_source))
        assert gone and sorted(pruned["objects"]["deleted"]) == sorted(
            f"{k[0]}{'.rbac.authorization.k8s.io' if k[0] in ('Role', 'RoleBinding') else ''}"
            f"{'.' + group if k[0] == 'AlertRule' else ''} {k[1]}/{k[2]}"
            for k in gone
        )
        for kind, ns, name in gone:
            assert kubectl("get", kind, name, "-n", ns, check=False).returncode != 0

        deleted = ansible.run([component(namespace, shape, state="absent", timeout=300)])[0]
        assert not deleted.get("failed"), deleted.get("msg")
        assert snapshot(kubectl, shape, group, keys) == {}

        kubectl_apply(kubectl, initial)
        theirs = snapshot(kubectl, shape, group, keys)
        assert differences(ours, theirs) == []
    finally:
        kubectl("delete", "-k", str(initial), "--ignore-not-found", "--wait=false", check=False)
        kubectl("delete", "namespace", namespace, "--ignore-not-found", "--wait=false", check=False)
