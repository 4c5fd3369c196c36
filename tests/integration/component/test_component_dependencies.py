"""Playbook-level tests of issue 25: the nubes.cloud.component role orders components by ``depends_on`` (C18),
proved by the apiserver's state: which objects exist while a dependency is not Ready, their resourceVersions, and
which survive a blocked deletion."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any, Dict, List, Optional

import pytest

from tests.integration.component.component_harness import PLAYBOOK_TIMEOUT_SECONDS, Ansible
from tests.integration.component.custom_kinds import CERTIFICATE_RULE, set_conditions

pytestmark = pytest.mark.cluster
HOLD = "example.com/hold"


def configmap(name: str, finalizer: bool = False) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name}
    if finalizer:
        meta["finalizers"] = [HOLD]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"owner": name}}


def item(namespace: str, name: str, depends_on: List[str], objects: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"name": name, "namespace": namespace, "depends_on": depends_on, "definitions": objects}


def exists(kubectl, namespace: str, name: str) -> bool:
    return kubectl("get", "configmap", name, "-n", namespace, check=False).returncode == 0


def version(kubectl, namespace: str, name: str) -> int:
    """The resourceVersion the object got when it was created (the objects are written once)."""
    return int(kubectl.json("get", "configmap", name, "-n", namespace)["metadata"]["resourceVersion"])


def wait_for(probe: Any, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not probe():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.5)


def role_vars(
    components: List[Dict[str, Any]], state: str = "present", timeout: Optional[int] = None
) -> Dict[str, Any]:
    data: Dict[str, Any] = {"components": components, "component_state": state, "component_wait": True}
    if timeout is not None:
        data["component_timeout"] = timeout
    return data


def test_components_apply_in_dependency_order_each_after_its_dependencies_ready(
    ansible: Ansible, kubectl, kube_namespace: str, custom_kinds: None
) -> None:
    """C18, issue 25: listed as web, api, db with web -> api -> db, the role applies db, then api, then web; api
    starts only once db is Ready (db's Certificate is not Ready until its status says so, by a health rule)."""
    ns = kube_namespace
    gate = {"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "gate"}, "spec": {}}
    components = [
        item(ns, "web", ["api"], [configmap("web-conf")]),
        item(ns, "api", ["db"], [configmap("api-conf")]),
        dict(item(ns, "db", [], [configmap("db-conf"), gate]), health_rules=[CERTIFICATE_RULE]),
    ]
    proc = subprocess.Popen(
        ansible.role_command(role_vars(components)),
        cwd=ansible.workdir,
        env=ansible.environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for(lambda: kubectl("get", "certificates.cert-manager.io/gate", "-n", ns, check=False).returncode == 0)
        time.sleep(3)  # db is written and waits for its Certificate: api must not start
        assert exists(kubectl, ns, "db-conf")
        assert not exists(kubectl, ns, "api-conf") and not exists(kubectl, ns, "web-conf")
        set_conditions(kubectl, ns, "certificates.cert-manager.io/gate", [{"type": "Ready", "status": "True"}])
        output = proc.communicate(timeout=PLAYBOOK_TIMEOUT_SECONDS)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output[-3000:]
    assert version(kubectl, ns, "db-conf") < version(kubectl, ns, "api-conf") < version(kubectl, ns, "web-conf")


def test_components_delete_in_reverse_order_and_a_failure_names_what_it_blocks(
    ansible: Ansible, kubectl, kube_namespace: str
) -> None:
    """C18, issue 25: state absent deletes web, then api, then db. While web's object cannot go (a finalizer), the
    run fails naming the components it blocks, and api and db are untouched; then api holds db back the same way."""
    ns = kube_namespace
    components = [
        item(ns, "db", [], [configmap("db-conf")]),
        item(ns, "api", ["db"], [configmap("api-conf", finalizer=True)]),
        item(ns, "web", ["api"], [configmap("web-conf", finalizer=True)]),
    ]
    applied = ansible.run_role(role_vars(components))
    assert applied.returncode == 0, applied.stdout[-3000:]

    blocked = ansible.run_role(role_vars(components, "absent", timeout=3))
    assert blocked.returncode != 0
    assert f"component {ns}/web" in blocked.stdout
    assert f"it blocks {ns}/api, {ns}/db, which it depends on and were not deleted" in blocked.stdout
    assert kubectl.json("get", "configmap", "web-conf", "-n", ns)["metadata"].get("deletionTimestamp")
    for name in ("api-conf", "db-conf"):
        assert not kubectl.json("get", "configmap", name, "-n", ns)["metadata"].get("deletionTimestamp")

    release = json.dumps([{"op": "remove", "path": "/metadata/finalizers"}])
    kubectl("patch", "configmap", "web-conf", "-n", ns, "--type=json", "-p", release)
    blocked = ansible.run_role(role_vars(components, "absent", timeout=3))
    assert blocked.returncode != 0
    assert f"it blocks {ns}/db, which it depends on" in blocked.stdout
    assert not exists(kubectl, ns, "web-conf")
    assert not kubectl.json("get", "configmap", "db-conf", "-n", ns)["metadata"].get("deletionTimestamp")

    kubectl("patch", "configmap", "api-conf", "-n", ns, "--type=json", "-p", release)
    done = ansible.run_role(role_vars(components, "absent"))
    assert done.returncode == 0, done.stdout[-3000:]
    assert not any(exists(kubectl, ns, name) for name in ("web-conf", "api-conf", "db-conf"))


@pytest.mark.parametrize(
    ("depends", "message"),
    [
        ({"a": ["c"], "b": ["a"], "c": ["b"]}, "cycle: {ns}/a -> {ns}/c -> {ns}/b -> {ns}/a"),
        ({"a": [], "b": ["a"], "c": ["nope"]}, "component {ns}/c depends on 'nope', which is not in components"),
    ],
)
def test_a_cycle_or_unknown_name_fails_before_any_write(
    ansible: Ansible, kubectl, kube_namespace: str, depends: Dict[str, List[str]], message: str
) -> None:
    """C18, issue 25: a cycle or an unknown name in depends_on fails the role before any component is written: no
    object and no component record exists afterwards."""
    ns = kube_namespace
    components = [item(ns, name, deps, [configmap(f"{name}-conf")]) for name, deps in depends.items()]
    result = ansible.run_role(role_vars(components))
    assert result.returncode != 0
    assert message.format(ns=ns) in result.stdout
    names = [cm["metadata"]["name"] for cm in kubectl.json("get", "configmaps", "-n", ns)["items"]]
    assert names == ["kube-root-ca.crt"]
