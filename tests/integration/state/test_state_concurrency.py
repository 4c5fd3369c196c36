"""P42 (beyond the seed): parallel applies of the same resource_name never create duplicates, with real
ansible-playbook processes against the emulator, and the Kubernetes backend on the local control plane (AWX:
each job a fresh pod with its own HOME) or the file backend (one controller, forks and parallel playbooks)."""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.emulator import EmulatorServer
from tests.integration.state.pods import REPO, Pod, failed_msgs, kube_env, live_instances, write_calls

DUMMY_SERVICE_ID = 1
PARALLEL = 10
HOLD_LOCK = "tests.integration.state.hold_lock"
pytestmark = pytest.mark.slow


def dummy_task(name: str, **extra: Any) -> Dict[str, Any]:
    return {"name": "ensure", "nubes.cloud.dummy": {"resource_name": name, "resource_realm": "dummy", **extra}}


def api_env(emu: EmulatorServer) -> Dict[str, str]:
    return {"NUBES_API_ENDPOINT": emu.endpoint, "NUBES_API_TOKEN": emu.token}


def k8s_store(kubeconfig: str, namespace: str, workspace: str) -> StateStore:
    backend = KubernetesBackend.from_params({"state_kubeconfig": kubeconfig, "state_namespace": namespace})
    return StateStore(backend, workspace)


def records_named(store: StateStore, name: str) -> List[Dict[str, Any]]:
    return [
        record
        for key, record in store.backend.items("instances")
        if key[0] == store.workspace and key[1] == "dummy" and key[2] == name
    ]


def assert_one_created(results: List[Dict[str, Any]]) -> None:
    problems = [f"{r.get('msg')}" for r in results if r.get("failed")]
    assert not problems, problems
    created = [r for r in results if r.get("changed")]
    assert len(created) == 1, [(r.get("changed"), r.get("decision")) for r in results]
    assert created[0]["operations"] == ["create"]
    uid = created[0]["instance_uid"]
    assert all(r["instance_uid"] == uid for r in results)


@pytest.mark.cluster
def test_ten_pods_create_one_instance_and_the_next_pod_sees_it(
    emu: EmulatorServer, kubeconfig: str, kube_namespace: str, tmp_path: Path
) -> None:
    """P42: 10 concurrent ansible-playbook processes (separate HOMEs, as separate AWX pods) ensure the same
    resource_name with the Kubernetes backend: exactly one instance in the emulator and one record. A later pod
    finds the record: no change and no write call (the state survives the pod)."""
    name = "par-" + uuid.uuid4().hex[:8]
    env = {**api_env(emu), **kube_env(kubeconfig, kube_namespace, "awx")}
    pods = [Pod(tmp_path, env) for _index in range(PARALLEL)]
    procs = [pod.start([dummy_task(name)]) for pod in pods]
    results = [pod.results(proc)["localhost"] for pod, proc in zip(pods, procs)]
    assert_one_created(results)
    assert len(live_instances(emu, DUMMY_SERVICE_ID, name)) == 1
    store = k8s_store(kubeconfig, kube_namespace, "awx")
    records = records_named(store, name)
    assert len(records) == 1 and records[0]["instance_uid"] == results[0]["instance_uid"]

    since = emu.last_seq
    again = Pod(tmp_path, env).run([dummy_task(name)])["localhost"]
    assert not again.get("failed"), again.get("msg")
    assert again["changed"] is False and again["instance_uid"] == results[0]["instance_uid"]
    assert write_calls(emu, since) == []


@pytest.mark.cluster
def test_forks_ten_hosts_one_playbook_kubernetes(
    emu: EmulatorServer, kubeconfig: str, kube_namespace: str, tmp_path: Path
) -> None:
    """P42: forks=10, 10 local hosts running the same task on the same resource_name (Kubernetes backend): one
    instance, one record."""
    name = "fork-" + uuid.uuid4().hex[:8]
    env = {**api_env(emu), **kube_env(kubeconfig, kube_namespace, "forks")}
    pod = Pod(tmp_path, env, hosts=[f"h{i}" for i in range(PARALLEL)], forks=PARALLEL)
    results = pod.run([dummy_task(name)])
    assert_one_created(list(results.values()))
    assert len(live_instances(emu, DUMMY_SERVICE_ID, name)) == 1
    assert len(records_named(k8s_store(kubeconfig, kube_namespace, "forks"), name)) == 1


def test_forks_ten_hosts_one_playbook_file_backend(emu: EmulatorServer, tmp_path: Path) -> None:
    """P42: forks=10 with the local file backend (one controller, one state file, file locks): one instance, one
    record."""
    name = "ffork-" + uuid.uuid4().hex[:8]
    state = tmp_path / "state.json"
    env = {**api_env(emu), "NUBES_STATE_PATH": str(state), "NUBES_WORKSPACE": "files"}
    pod = Pod(tmp_path, env, hosts=[f"h{i}" for i in range(PARALLEL)], forks=PARALLEL)
    results = pod.run([dummy_task(name)])
    assert_one_created(list(results.values()))
    assert len(live_instances(emu, DUMMY_SERVICE_ID, name)) == 1
    assert len(records_named(StateStore(FileBackend(str(state)), "files"), name)) == 1


def test_ten_parallel_playbooks_file_backend(emu: EmulatorServer, tmp_path: Path) -> None:
    """P42: 10 parallel ansible-playbook processes on one controller sharing one state file: one instance, one
    record."""
    name = "fpar-" + uuid.uuid4().hex[:8]
    state = tmp_path / "state.json"
    env = {**api_env(emu), "NUBES_STATE_PATH": str(state), "NUBES_WORKSPACE": "files"}
    pods = [Pod(tmp_path, env) for _index in range(PARALLEL)]
    procs = [pod.start([dummy_task(name)]) for pod in pods]
    results = [pod.results(proc)["localhost"] for pod, proc in zip(pods, procs)]
    assert_one_created(results)
    assert len(live_instances(emu, DUMMY_SERVICE_ID, name)) == 1
    assert len(records_named(StateStore(FileBackend(str(state)), "files"), name)) == 1


@pytest.mark.cluster
def test_sigkilled_holder_does_not_block_past_the_lease(
    emu: EmulatorServer, kubeconfig: str, kube_namespace: str, tmp_path: Path
) -> None:
    """P42: while a live holder renews its Lease, a run with a short state_lock_timeout fails with an error naming
    the holder; once the holder is killed with SIGKILL, its Lease (state_lease_duration=3) expires and the next
    run acquires the lock and creates the instance."""
    name = "kill-" + uuid.uuid4().hex[:8]
    holder = subprocess.Popen(
        [sys.executable, "-m", HOLD_LOCK, kubeconfig, kube_namespace, "kill", "dummy", name, "3"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": f"{REPO / '.collections'}:{REPO}", "PATH": str(Path(sys.executable).parent)},
    )
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline().split()
        assert line[:1] == ["HELD"], line
        holder_id = line[1]
        env = {**api_env(emu), **kube_env(kubeconfig, kube_namespace, "kill", {"NUBES_STATE_LEASE_DURATION": "3"})}
        blocked = Pod(tmp_path, {**env, "NUBES_STATE_LOCK_TIMEOUT": "8"}).run([dummy_task(name)])["localhost"]
        assert blocked.get("failed"), blocked
        assert holder_id in blocked["msg"] and "state_lock_timeout" in blocked["msg"]
        assert live_instances(emu, DUMMY_SERVICE_ID, name) == []
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    after = Pod(tmp_path, {**env, "NUBES_STATE_LOCK_TIMEOUT": "120"}).run([dummy_task(name)])["localhost"]
    assert not failed_msgs({"after": after}), after.get("msg")
    assert after["changed"] is True and after["operations"] == ["create"]
    assert len(live_instances(emu, DUMMY_SERVICE_ID, name)) == 1
