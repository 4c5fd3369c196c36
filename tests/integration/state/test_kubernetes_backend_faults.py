"""The Kubernetes state backend under faults, with real `ansible-playbook` runs against the emulator and a real
kube-apiserver (issue 24, P42): an apiserver that is down when the module writes its record is waited for within the
task's retry budget; a limited account is told which verb on which resource to grant; releasing the lock never hides
the task's own error. The truth is read from the apiserver (records, leases) and the emulator (live instances)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

from tests.cluster.second_apiserver import SecondApiserver
from tests.emulator import EmulatorServer
from tests.integration.state.pods import Pod, kube_env, live_instances

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

DUMMY_SERVICE_ID = 1
CREATE_SECONDS = 8  # the dummy's create runs this long (its durationMs)
DOWN_AFTER_CREATE_SECONDS = 4  # the apiserver stays down this long after the create has finished


def dummy(name: str, **extra: Any) -> List[Dict[str, Any]]:
    args = {"resource_name": name, "resource_realm": "dummy", **extra}
    return [{"name": "dummy", "nubes.cloud.dummy": args}]


def api_env(emu: EmulatorServer) -> Dict[str, str]:
    return {"NUBES_API_ENDPOINT": emu.endpoint, "NUBES_API_TOKEN": emu.token}


def records(kubectl: Any, namespace: str) -> Dict[str, Dict[str, Any]]:
    """resource_name -> instance record, decoded from the state Secrets the apiserver holds."""
    found: Dict[str, Dict[str, Any]] = {}
    listed = kubectl.json("-n", namespace, "get", "secrets", "-l", "state.nubes.cloud/kind=records")
    for secret in listed["items"]:
        for value in (secret.get("data") or {}).values():
            entry = json.loads(base64.b64decode(value).decode("utf-8"))
            if entry["table"] == "instances":
                found[entry["key"][2]] = entry["record"]
    return found


def leases(kubectl: Any, namespace: str) -> List[Dict[str, Any]]:
    return list(kubectl.json("-n", namespace, "get", "leases", "-l", "state.nubes.cloud/kind=lock")["items"])


def wait_for_run(emu: EmulatorServer, since: int, pod: Pod, proc: Any) -> None:
    """Until the create operation's `run` reached the emulator (the record holds the uid by then)."""
    deadline = time.monotonic() + 120
    while not any(
        r["method"] == "POST" and r["path"].endswith("/run") and r["status"] == 200 for r in emu.requests(since=since)
    ):
        if proc.poll() is not None:
            raise AssertionError(f"the playbook ended before the create ran: {pod.results(proc)}")
        assert time.monotonic() < deadline, "the create operation was never run"
        time.sleep(0.1)


def test_apiserver_down_when_the_create_ends_is_waited_for(
    emu: EmulatorServer, tmp_path: Path, kubectl: Any, kube_namespace: str, second_apiserver: SecondApiserver
) -> None:
    """Issue 24 (P42): the apiserver holding the state dies (SIGKILL) while a slow create runs and is still down when
    the module records the finished create; the module retries its record write and the lock release within the
    task's retry budget, so the task succeeds once the apiserver is back: the record is `present` with the uid,
    no lock is left, and the emulator has exactly one live instance (before: the task failed with "delete lease ...
    failed: cannot reach the Kubernetes API" and the record stayed `creating`)."""
    name = "k8s-down-" + uuid.uuid4().hex[:8]
    env = {**api_env(emu), **kube_env(second_apiserver.kubeconfig, kube_namespace, "outage")}
    pod = Pod(tmp_path, env)
    seq = emu.last_seq
    proc = pod.start(dummy(name, duration_ms=CREATE_SECONDS * 1000))
    wait_for_run(emu, seq, pod, proc)
    second_apiserver.kill()
    time.sleep(CREATE_SECONDS + DOWN_AFTER_CREATE_SECONDS)  # the module finds the apiserver down when it records
    assert proc.poll() is None, pod.results(proc)
    second_apiserver.start()
    result = pod.results(proc)["localhost"]

    assert not result.get("failed"), result.get("msg")
    assert result["changed"] and result["operations"] == ["create"], result
    live = live_instances(emu, DUMMY_SERVICE_ID, name)
    assert [i["instanceUid"] for i in live] == [result["instance_uid"]]
    record = records(kubectl, kube_namespace)[name]
    assert record["status"] == "present" and record["instance_uid"] == result["instance_uid"], record
    assert leases(kubectl, kube_namespace) == []


def limited_role(namespace: str, user: str) -> str:
    """A Role without `update` on secrets and without `delete` on leases, bound to `user`."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "state-limited", "namespace": namespace},
        "rules": [
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "create", "patch"]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "create", "update"]},
        ],
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "state-limited", "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "state-limited"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    }
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [role, binding]})


def test_limited_account_is_told_the_verb_and_resource_to_grant(
    emu: EmulatorServer, tmp_path: Path, kubectl: Any, kube_namespace: str, cluster_users: Dict[str, Path]
) -> None:
    """Issue 24 (P42): an identity that may create but not update secrets, and not delete leases, fails with the
    true cause first: the message names `update` on `secrets` in the namespace and says what to grant; the failed
    release of its lock (403 delete on leases) follows as a secondary line, never in its place (before: the task
    failed with the lease error only). The apiserver shows the lock left behind and the record the identity could
    create."""
    kubectl.apply(limited_role(kube_namespace, "carol"))
    name = "k8s-rbac-" + uuid.uuid4().hex[:8]
    env = {**api_env(emu), **kube_env(str(cluster_users["carol"]), kube_namespace, "limited")}
    pod = Pod(tmp_path, env)
    result = pod.run(dummy(name))["localhost"]

    assert result.get("failed"), result
    msg = result["msg"]
    cause = (
        f'the identity (User "carol") cannot update secrets in namespace {kube_namespace}: grant verb update on '
        "resource secrets"
    )
    assert msg.startswith("Kubernetes state backend: update secret"), msg
    assert cause in msg, msg
    release = msg.index("releasing the state lock failed too")
    assert msg.index(cause) < release, msg
    assert "grant verb delete on resource leases" in msg[release:], msg
    assert len(leases(kubectl, kube_namespace)) == 1  # the lock it may not delete expires after its lease duration
    assert records(kubectl, kube_namespace)[name]["status"] == "create_requested"
