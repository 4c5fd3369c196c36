"""Crash points: SIGKILL of the module (with ansible-playbook) at each step of the create, modify, delete and
sub-resource flows, with the state in a file and in Kubernetes (Secrets + Leases on the local cluster).

The re-run converges with exactly one instance (one sub-resource) and a correct state record; the crash never
makes the collection lose track of what it created (P42, beyond; K1-K4b: the recorded identity is reused). On the
Kubernetes backend the killed module's Lease is left behind and the re-run takes it over once it expires
(`state_lease_duration` 5 s here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import Runner, validate_params
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateBackend
from ansible_collections.nubes.cloud.plugins.modules import dummy, postgres, s3
from tests.emulator import EmulatorServer
from tests.reliability.cloud.crash import CREATE_STEPS, OPERATION_STEPS, crash_at
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.cloud.reconcile import assert_reconciled, state_records

DUMMY_ID = 1
POSTGRES_ID = 90
REALM = "k8s-3.ext.nubes.ru"


def dummy_task(name: str, message: str) -> dict[str, Any]:
    args = {"resource_name": name, "resource_realm": "dummy", "bodymessage": message, "duration_ms": 1500}
    return {"name": "dummy", "nubes.cloud.dummy": args}


def rerun_one(fleet: Fleet, task: dict[str, Any]) -> dict[str, Any]:
    result = fleet.run([task], hosts=["r0"]).last()["r0"]
    assert not result.get("failed"), result.get("msg")
    return result


@dataclass
class StateUnderTest:
    """Where the fleet's tasks keep their state: the options for in-process set-up runs, and the backend read."""

    kind: str  # file or kubernetes
    options: dict[str, Any]
    backend: StateBackend


LEASE_SECONDS = 5  # a killed module's Lease expires this long after its last renewal


@pytest.fixture(params=["file", pytest.param("kubernetes", marks=pytest.mark.cluster)])
def state(request: pytest.FixtureRequest, fleet: Fleet) -> StateUnderTest:
    """The fleet's state backend: the state file, or Secrets + Leases in a fresh namespace of the local cluster."""
    if request.param == "file":
        return StateUnderTest("file", {"state_path": str(fleet.state_path)}, FileBackend(str(fleet.state_path)))
    kubeconfig, namespace = request.getfixturevalue("kubeconfig"), request.getfixturevalue("kube_namespace")
    options = {
        "state_backend": "kubernetes",
        "state_kubeconfig": kubeconfig,
        "state_namespace": namespace,
        "state_lease_duration": LEASE_SECONDS,
    }
    fleet.extra_env.update(
        NUBES_STATE_BACKEND="kubernetes",
        NUBES_STATE_KUBECONFIG=kubeconfig,
        NUBES_STATE_NAMESPACE=namespace,
        NUBES_STATE_LEASE_DURATION=str(LEASE_SECONDS),
    )
    return StateUnderTest("kubernetes", options, KubernetesBackend.from_params(options))


def in_process(module: Any, kind: str, state: dict[str, Any], emu: EmulatorServer, **params: Any) -> dict[str, Any]:
    """Run a generated module's task in-process (set-up steps), with the fleet's state."""
    full = {"api_endpoint": emu.endpoint, "api_token": emu.token, **state, **params}
    validated = validate_params(module.SERVICE, module.ARGUMENT_SPEC, kind, full)
    return Runner(module.SERVICE, validated, kind).run()


@pytest.mark.parametrize("step", list(CREATE_STEPS))
def test_create_killed_at_step(
    emu: EmulatorServer, fleet: Fleet, state: StateUnderTest, prefix: str, step: str
) -> None:
    """P42 (beyond), K1/K3: SIGKILL during create at `step`; the re-run converges to one running instance whose
    uid is the recorded one."""
    name = f"{prefix}-{step}"
    crash_at(emu, fleet, [dummy_task(name, "v1")], CREATE_STEPS[step])
    result = rerun_one(fleet, dummy_task(name, "v1"))
    assert result["status"] == "running"
    live = assert_reconciled(emu, state.backend, DUMMY_ID, "dummy", [name])
    assert [i["instanceUid"].lower() for i in live] == [result["instance_uid"].lower()]
    record = state_records(state.backend, "dummy")[name]
    assert record["status"] == "present" and "params" not in record  # the record holds identity, not params
    assert live[0]["state"]["params"]["bodymessage"] == "v1"


@pytest.mark.parametrize("step", list(OPERATION_STEPS))
def test_modify_killed_at_step(
    emu: EmulatorServer, fleet: Fleet, state: StateUnderTest, prefix: str, step: str
) -> None:
    """P42 (beyond), K2: SIGKILL during modify at `step`; the re-run applies the change to the same instance."""
    name = f"{prefix}-{step}"
    created = in_process(
        dummy,
        "instance",
        state.options,
        emu,
        resource_name=name,
        resource_realm="dummy",
        bodymessage="v1",
        duration_ms=1500,
    )
    crash_at(emu, fleet, [dummy_task(name, "v2")], OPERATION_STEPS[step])
    result = rerun_one(fleet, dummy_task(name, "v2"))
    assert result["instance_uid"] == created["instance_uid"]
    assert result["instance"]["params"]["bodymessage"] == "v2"
    live = assert_reconciled(emu, state.backend, DUMMY_ID, "dummy", [name])
    assert len(live) == 1 and live[0]["state"]["params"]["bodymessage"] == "v2"
    record = state_records(state.backend, "dummy")[name]
    assert record["status"] == "present" and record["operation"]["done"] is True


@pytest.mark.parametrize("step", list(OPERATION_STEPS))
def test_delete_killed_at_step(
    emu: EmulatorServer, fleet: Fleet, state: StateUnderTest, prefix: str, step: str
) -> None:
    """P42 (beyond), issue 24: SIGKILL of the module during `state: deleted` at `step`; the re-run finishes the
    delete of the recorded instance (no second delete operation) and removes the record."""
    name = f"{prefix}-del-{step}"
    created = in_process(
        dummy, "instance", state.options, emu, resource_name=name, resource_realm="dummy", bodymessage="v1"
    )
    task = {"name": "dummy", "nubes.cloud.dummy": {"resource_name": name, "state": "deleted"}}
    emu.configure(durations={"dummy.delete": 1.5})  # long enough to be polled (restored by `emu`)
    crash_at(emu, fleet, [task], OPERATION_STEPS[step])
    result = rerun_one(fleet, task)
    assert result["instance_uid"].lower() == created["instance_uid"].lower()
    instance = next(i for i in emu.instances() if i["instanceUid"].lower() == created["instance_uid"].lower())
    assert instance["isDeleted"] is True
    # the platform's own follow-up (`system`, errorLog `Услуга удалена`, deck-api 5.4) is not the task's
    deletes = [
        o
        for o in emu.operations()
        if o["operation"] == "delete" and o["displayName"] == name and o["updaterLogin"] != "system"
    ]
    assert len(deletes) == 1, deletes
    assert name not in state_records(state.backend, "dummy")


@pytest.fixture(scope="module")
def postgres_parent(emulator: EmulatorServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One running postgres (and its s3) for the sub-resource crash tests, created in-process."""
    parent_state = {"state_path": str(tmp_path_factory.mktemp("pg") / "state.json")}
    name = "rel-pg-" + tmp_path_factory.getbasetemp().name[-6:]
    s3_uid = in_process(
        s3, "instance", parent_state, emulator, resource_name=name + "-s3", display_name=name, resource_realm=REALM
    )["instance_uid"]
    pg = in_process(
        postgres, "instance", parent_state, emulator, resource_name=name, s3_uid=s3_uid, resource_realm=REALM
    )
    return {"uid": pg["instance_uid"], "name": name}


@pytest.mark.parametrize("step", list(OPERATION_STEPS))
def test_subresource_create_killed_at_step(
    emu: EmulatorServer, fleet: Fleet, state: StateUnderTest, postgres_parent: dict[str, str], step: str
) -> None:
    """P42 (beyond): SIGKILL during create_user at `step`; the re-run converges to exactly one user of that name
    on the parent, recorded in the state."""
    username = f"u_{state.kind[0]}_{step[:18]}"  # one parent serves both backends: a name per backend
    emu.configure(durations={"postgres.create_user": 1.5})  # long enough to be polled (restored by `emu`)
    task = {
        "name": "user",
        "nubes.cloud.postgres_user": {
            "parent_instance_uid": postgres_parent["uid"],
            "username": username,
            "password": "Crash-Pass-1",
            "role": "readwrite",
        },
    }
    crash_at(emu, fleet, [task], OPERATION_STEPS[step])
    result = rerun_one(fleet, task)
    assert result["subresource"]["exists"] is True
    parent = next(i for i in emu.instances() if i["instanceUid"].lower() == postgres_parent["uid"].lower())
    users = [u for u in parent["state"]["subresources"].get("user", []) if u.get("username") == username]
    assert len(users) == 1, parent["state"]["subresources"]
    again = rerun_one(fleet, task)
    assert again["changed"] is False
