"""Smoke test of EVERY generated instance module through real ansible-playbook against the emulator:
create with its required params (references created first), re-run idempotently, destroy (P16, P20, P29)."""

from __future__ import annotations

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, create_raw_instance
from tests.integration.modules.smoke_plan import load_specs, plan

MODULES = sorted(load_specs())


@pytest.mark.slow
@pytest.mark.parametrize("module", MODULES)
def test_create_rerun_destroy(module: str, emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P16/P20/P29: a fresh instance is created, a re-run changes nothing, destroy suspends or deletes it."""
    smoke = plan(module, playbook.workdir.name[-8:].replace("_", "-").lower())
    raw_uids = {name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in smoke.raw}
    tasks = [{**t, "vars": {"raw_uids": raw_uids}} for t in smoke.tasks + smoke.destroy_tasks]
    results = playbook.run(tasks)
    for task, result in zip(tasks, results):
        assert not result.get("failed"), f"{task['name']}: {result.get('msg')}"
    created, rerun, destroyed = results[smoke.create_index], results[smoke.create_index + 1], results[len(smoke.tasks)]
    assert created["changed"] and created["operations"] == ["create"]
    assert created["instance"]["status"] == "running"
    assert rerun["changed"] is False and rerun["operations"] == []
    spec = load_specs()[module]
    expected = "suspend" if spec["lifecycle"]["suspendable"] else "delete"
    assert destroyed["changed"] and destroyed["operations"] == [expected]
    uid = created["instance_uid"]
    final = next(i for i in emu.instances() if i["instanceUid"] == uid)
    assert final["explainedStatus"] == ("suspended" if expected == "suspend" else "deleted")
