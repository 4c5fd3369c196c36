"""Playbook-level tests of issue 27: a component's first apply that fails before any object of its set is in the
cluster leaves nothing behind (C8: decided from the record's inventory; C15: the namespaces the missing-namespaces
policy created go too), as Helm's ``install --atomic`` does: no record, no namespace the run created. Once an
object of the set was written the record stays with the inventory and the error, and ``state: absent`` removes
everything.

Each test reads the apiserver's state with kubectl afterwards, never trusting the module's result alone.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pytest

from tests.cluster.fixtures import unique_name
from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

PREFIX = "component.nubes.cloud"
GHOST = {"apiVersion": "nowhere.nubes.test/v1", "kind": "Ghost", "metadata": {"name": "boo"}}
NOTHING_LEFT = "This was the component's first apply and none of its objects was created, so nothing of it was left"


def _invalid_config_map(name: str, **annotations: str) -> Dict[str, Any]:
    """A ConfigMap the API server rejects (HTTP 422: a data key with spaces)."""
    meta: Dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = {f"{PREFIX}/{key.replace('_', '-')}": value for key, value in annotations.items()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"not a valid key!": "x"}}


def _exists(kubectl, *what: str) -> bool:
    return kubectl("get", *what, check=False).returncode == 0


def _record(kubectl, namespace: str, name: str) -> Optional[Dict[str, Any]]:
    """The component's record ConfigMap as the apiserver holds it, None when there is none."""
    found = kubectl("get", "configmap", f"cloud.nubes.component.{name}", "-n", namespace, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def _records_in(kubectl, namespace: str, name: str) -> List[Dict[str, Any]]:
    """Every record of component ``name`` in ``namespace``, across the cluster's namespaces (none when it is gone)."""
    found = kubectl.json("get", "configmaps", "-A", "-l", f"{PREFIX}/component={name}")["items"]
    return [item for item in found if item["metadata"]["namespace"] == namespace]


@pytest.mark.parametrize("cause", ["unknown-kind", "invalid-object"])
def test_failed_first_apply_leaves_neither_namespace_nor_record(ansible: Ansible, kubectl, cause: str) -> None:
    """Issue 27, C8, C15: the first apply of a component in a namespace that does not exist fails in wave 0 (a kind
    no CRD defines; or an object the API server rejects, placed in a second namespace the missing-namespaces policy
    creates). Check mode first creates nothing. The real run fails with the cause and says nothing was left;
    afterwards the apiserver has neither namespace (gone, not Terminating) nor the record; ``changed`` is true (it
    wrote, then undid) and the diff does not claim a namespace exists."""
    ns, made = unique_name("t"), unique_name("made")
    if cause == "unknown-kind":
        task = component(ns, "never", definitions=[GHOST])
        because = ["the API server does not know nowhere.nubes.test/v1 Ghost"]
    else:
        task = component(ns, "never", definitions=[_invalid_config_map("bad")], placement={"namespace": made})
        because = [f"ConfigMap {made}/bad (apply wave 0): write", "HTTP 422"]
    try:
        ansible.run([task], check=True)
        assert not _exists(kubectl, "namespace", ns) and not _exists(kubectl, "namespace", made)

        result = ansible.run([task], diff=True)[0]

        assert result["failed"] is True
        message = result["msg"]
        assert all(text in message for text in because), message
        assert NOTHING_LEFT in message and f"namespace {ns}" in message, message
        assert result["changed"] is True
        assert not _exists(kubectl, "namespace", ns)
        assert not _exists(kubectl, "namespace", made)
        assert _records_in(kubectl, ns, "never") == []
        created = [f"Namespace {ns}", *([f"Namespace {made}"] if cause == "invalid-object" else [])]
        assert sorted(result["objects"]["deleted"]) == sorted(created)
        for ref in created:
            assert result["diff"]["after"].get(ref) is None, result["diff"]["after"]
    finally:
        for name in (ns, made):
            kubectl("delete", "namespace", name, "--wait=false", "--ignore-not-found", check=False)


def test_failed_first_apply_in_an_existing_namespace_removes_only_the_record(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """Issue 27, C8: the namespace existed before the run, so the failed first apply leaves it (not Terminating)
    and removes only its record; the next run is a first apply again (revision 1)."""
    failed = ansible.run([component(kube_namespace, "guest", definitions=[GHOST])])[0]

    assert failed["failed"] is True
    assert "Ghost boo" in failed["msg"] and "does not know" in failed["msg"]
    assert f"{NOTHING_LEFT} in the cluster: the record was removed again." in failed["msg"], failed["msg"]
    assert failed["changed"] is True  # the record was written, then removed
    assert not kubectl.json("get", "namespace", kube_namespace)["metadata"].get("deletionTimestamp")
    assert _record(kubectl, kube_namespace, "guest") is None
    assert _records_in(kubectl, kube_namespace, "guest") == []

    settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "b"}}
    fixed = ansible.run([component(kube_namespace, "guest", definitions=[settings])])[0]
    assert not fixed.get("failed"), fixed.get("msg")
    record = _record(kubectl, kube_namespace, "guest")
    assert record is not None and json.loads(record["data"]["status"])["revision"] == 1


def test_failed_later_wave_keeps_the_record_and_absent_removes_everything(ansible: Ansible, kubectl) -> None:
    """Issue 27, C8: wave 0 is applied and wave 1 fails (an object the API server rejects) on the first apply: the
    namespace the run created, the record (state Error, the inventory with both objects) and the wave-0 ConfigMap
    stay, as before; the message does not claim anything was removed. ``state: absent`` then removes all of it,
    the namespace the component created too."""
    ns = unique_name("t")
    first = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "first"}, "data": {"a": "b"}}
    later = _invalid_config_map("second", apply_order="1")
    try:
        failed = ansible.run([component(ns, "halfway", definitions=[first, later])])[0]

        assert failed["failed"] is True
        assert f"ConfigMap {ns}/second (apply wave 1)" in failed["msg"], failed["msg"]
        assert "nothing of it was left" not in failed["msg"]
        assert not kubectl.json("get", "namespace", ns)["metadata"].get("deletionTimestamp")
        assert kubectl.json("get", "configmap", "first", "-n", ns)["data"] == {"a": "b"}
        record = _record(kubectl, ns, "halfway")
        assert record is not None
        status = json.loads(record["data"]["status"])
        assert status["state"] == "Error" and status.get("createdNamespace") is True
        phases = {item["name"]: item["phase"] for item in json.loads(record["data"]["inventory"])}
        assert phases["second"] == "ScheduledForApplication" and phases["first"] in ("Creating", "Ready"), phases

        deleted = ansible.run([component(ns, "halfway", state="absent")])[0]

        assert not deleted.get("failed"), deleted.get("msg")
        assert deleted["changed"] is True
        assert not _exists(kubectl, "namespace", ns)
        assert _records_in(kubectl, ns, "halfway") == []
    finally:
        kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found", check=False)
