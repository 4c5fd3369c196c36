"""Moving a local file state to the Kubernetes backend with the collection playbook nubes.cloud.migrate_state and
the module nubes.cloud.state_migrate (P42, beyond the seed): idempotent, keys and counts only in the output, and
a job on the Kubernetes backend then finds the instances created with the file state."""

from __future__ import annotations

import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Optional, cast

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.emulator import EmulatorServer
from tests.integration.state.pods import BIN, Pod, kube_env, write_calls

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def dummy(workspace: str, name: str) -> ResourceRef:
    """The identity of the dummy instance `name` (service 1) in `workspace`."""
    return ResourceRef("dummy", 1, workspace, name)


def recorded_uid(store: StateStore, name: str) -> Optional[str]:
    record = store.get(dummy(store.workspace, name))
    return record.instance_uid if record is not None else None


def test_migrate_file_state_to_kubernetes(
    emu: EmulatorServer, kubeconfig: str, kube_namespace: str, tmp_path: Path
) -> None:
    """P42: records created with the file backend are copied to Secrets by `ansible-playbook
    nubes.cloud.migrate_state` (check mode first writes nothing); a second run copies nothing; the output shows
    no record contents or token; a Kubernetes-backed job then reports no change and makes no write call."""
    api = {"NUBES_API_ENDPOINT": emu.endpoint, "NUBES_API_TOKEN": emu.token}
    state = tmp_path / "state.json"
    names = ["mig-" + uuid.uuid4().hex[:8] for _index in range(2)]
    file_env = {**api, "NUBES_STATE_PATH": str(state), "NUBES_WORKSPACE": "mig"}
    uids = []
    for name in names:
        created = Pod(tmp_path, file_env).run(
            [{"nubes.cloud.dummy": {"resource_name": name, "resource_realm": "dummy"}}]
        )["localhost"]
        assert created.get("changed") is True, created.get("msg")
        uids.append(created["instance_uid"])

    migrate_env = {**kube_env(kubeconfig, kube_namespace, "mig"), "NUBES_STATE_PATH": str(state)}
    pod = Pod(tmp_path, migrate_env)
    pod.home.mkdir(parents=True)

    def playbook(*extra: str) -> str:
        proc = subprocess.run(
            [str(BIN / "ansible-playbook"), "-v", "nubes.cloud.migrate_state", *extra],
            cwd=pod.home,
            env=pod.env(),
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    checked = playbook("--check")
    assert "2 record(s) would be copied (check mode: nothing was written)" in checked  # issue 27
    assert "record(s) copied" not in checked
    destination = StateStore(
        KubernetesBackend.from_params({"state_kubeconfig": kubeconfig, "state_namespace": kube_namespace}), "mig"
    )
    assert destination.get(dummy("mig", names[0])) is None

    output = playbook()
    assert "2 record(s) copied" in output and f"instances:mig/dummy/{names[0]}" in output
    assert not any(uid in output for uid in uids) and emu.token not in output
    assert [recorded_uid(destination, n) for n in names] == uids

    again = Pod(tmp_path, migrate_env).run([{"nubes.cloud.state_migrate": {}}])["localhost"]
    assert again["changed"] is False and again["unchanged"] == 2 and again["copied"] == []

    since = emu.last_seq
    job = Pod(tmp_path, {**api, **kube_env(kubeconfig, kube_namespace, "mig")}).run(
        [{"nubes.cloud.dummy": {"resource_name": names[1], "resource_realm": "dummy"}}]
    )["localhost"]
    assert job.get("changed") is False and job["instance_uid"] == uids[1], job.get("msg")
    assert write_calls(emu, since) == []


FILE_UID = "9835EB50-9EF8-4C1A-8D55-3A021B21F11E"  # recorded uids are UUIDs (issue 24: validated on read)
CLUSTER_UID = "9835EB50-9EF8-4C1A-8D55-3A021B21C1C1"


def test_migrate_keeps_differing_records_unless_overwrite(kubeconfig: str, kube_namespace: str, tmp_path: Path) -> None:
    """P42: a record that differs in the destination is kept and reported (with a warning) unless overwrite."""
    state = tmp_path / "state.json"
    StateStore(FileBackend(str(state)), "w").put(dummy("w", "a"), Record(instance_uid=FILE_UID))
    destination = StateStore(
        KubernetesBackend.from_params({"state_kubeconfig": kubeconfig, "state_namespace": kube_namespace}), "w"
    )
    destination.put(dummy("w", "a"), Record(instance_uid=CLUSTER_UID))
    env = {**kube_env(kubeconfig, kube_namespace, "w"), "NUBES_STATE_PATH": str(state)}
    kept = Pod(tmp_path, env).run([{"nubes.cloud.state_migrate": {"workspace": "w"}}])["localhost"]
    assert kept["changed"] is False and kept["conflicts"] == ["instances:w/dummy/a"]
    assert any("overwrite=true" in w for w in kept.get("warnings", []))
    assert recorded_uid(destination, "a") == CLUSTER_UID
    replaced = Pod(tmp_path, env).run([{"nubes.cloud.state_migrate": {"overwrite": True}}])["localhost"]
    assert replaced["changed"] is True and replaced["copied"] == ["instances:w/dummy/a"]
    assert recorded_uid(destination, "a") == FILE_UID


def test_migrate_waits_the_lock_timeout_of_the_option_contract(
    kubeconfig: str, kube_namespace: str, tmp_path: Path
) -> None:
    """Issue 26: state_migrate takes the state store options of the one option contract, so
    NUBES_STATE_LOCK_TIMEOUT bounds its wait for a resource another run holds, as it does for the cloud modules
    (it had its own state_lock_timeout: 300 s, no variable). With the lock held and the variable at 2, the
    playbook's task fails within seconds naming the holder, and the record is not copied."""
    state = tmp_path / "state.json"
    StateStore(FileBackend(str(state)), "w").put(dummy("w", "held"), Record(instance_uid=FILE_UID))
    other_run = StateStore(
        KubernetesBackend.from_params(
            {"state_kubeconfig": kubeconfig, "state_namespace": kube_namespace, "state_lease_duration": 60}
        ),
        "w",
    )
    env = {**kube_env(kubeconfig, kube_namespace, "w"), "NUBES_STATE_PATH": str(state), "NUBES_STATE_LOCK_TIMEOUT": "2"}
    with cast(Any, other_run.lock(dummy("w", "held"))) as held:
        started = time.monotonic()
        result = Pod(tmp_path, env).run([{"nubes.cloud.state_migrate": {"workspace": "w"}}])["localhost"]
        waited = time.monotonic() - started
    assert result.get("failed") is True and held.holder in result["msg"], result.get("msg")
    assert "state_lock_timeout" in result["msg"] and waited < 60, waited
    assert other_run.get(dummy("w", "held")) is None
