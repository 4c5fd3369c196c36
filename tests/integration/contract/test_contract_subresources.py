"""The contract suite for sub-resource modules (issue 23): one run settles, the second run is empty, each modifiable
parameter changed alone lands alone, a change made out of band is corrected, and `absent` removes the entry.

For each sub-resource module, real ansible-playbook runs against the emulator: the parent's own contract tasks, then
the sub-resource task with every settable option. The truth is the parent instance's live state in the emulator
(`state.subresources.<sub>`, the entry whose key is the task's), its operation log and its request log, never the
module's result.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.contract.subresource_plan import (
    SubContract,
    expected_entry,
    sub_cases,
    sub_contract,
    subresource_modules,
)
from tests.integration.contract.test_contract import (
    is_marker,
    marker_task,
    platform_change_task,
    resolved,
    same_value,
)
from tests.integration.modules.playbook import PlaybookRunner, create_raw_instance, write_calls


def live_entry(emu: EmulatorServer, parent_uid: str, contract: SubContract) -> dict[str, Any] | None:
    parent = next(i for i in emu.instances() if i["instanceUid"].lower() == parent_uid.lower())
    entries = parent["state"].get("subresources", {}).get(contract.sub, [])
    return next((e for e in entries if str(e.get(contract.key_code)) == contract.key), None)


def differing(wanted: dict[str, Any], entry: dict[str, Any], contract: SubContract) -> dict[str, Any]:
    """Checked options (by option name) whose live value in the entry is not the wanted one."""
    return {
        option: (wanted[option], entry.get(code))
        for option, code in contract.checked.items()
        if not same_value(wanted[option], entry.get(code))
    }


def run_plan(emu: EmulatorServer, playbook: PlaybookRunner, contract: SubContract, tasks: list[dict[str, Any]]) -> list:
    raw_uids = {name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in contract.parent.raw}
    parent_task = {"name": "parent", f"nubes.cloud.{contract.parent.module}": contract.parent.args}
    steps = [*contract.parent.setup_tasks, parent_task, *tasks]
    results = playbook.run([{**t, "vars": {"raw_uids": raw_uids}} for t in steps])
    for step, result in zip(steps, results):
        assert not result.get("failed"), f"{contract.module}: {step['name']}: {result.get('msg')}"
    return results


@pytest.mark.parametrize("module", subresource_modules())
def test_one_run_settles_and_the_second_is_empty(module: str, emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23 (P16, P38): the sub-resource created with every settable parameter holds them all live after one
    run; the re-run and the check-mode run send no write and report changed=false, and the diff shows nothing."""
    contract = sub_contract(module, playbook.workdir.name[-8:].replace("_", "-").lower())
    task = {f"nubes.cloud.{module}": contract.args}
    results = run_plan(
        emu,
        playbook,
        contract,
        [
            {"name": "create", **task},
            marker_task(emu),
            {"name": "re-run", **task},
            {"name": "check", **task, "check_mode": True, "diff": True},
        ],
    )
    rerun, checked = results[-2], results[-1]
    parent_uid = results[contract.parent_index]["instance_uid"]
    entry = live_entry(emu, parent_uid, contract)
    assert entry is not None, f"{module}: no {contract.sub} {contract.key!r} on the parent after one run"
    wanted = {option: resolved(value, results) for option, value in contract.expected.items()}
    assert not differing(wanted, entry, contract), f"{module}: live entry differs: {differing(wanted, entry, contract)}"

    log = emu.requests()
    marks = [entry["seq"] for entry in log if is_marker(entry)]
    after = write_calls([entry for entry in log if entry["seq"] > marks[-1]])
    assert after == [], f"{module}: the second run wrote: {[(w['method'], w['path']) for w in after]}"
    assert rerun["changed"] is False and checked["changed"] is False, (rerun, checked)
    assert checked["diff"]["before"] == checked["diff"]["after"], f"{module}: check-mode diff {checked['diff']}"


@pytest.mark.parametrize("module", subresource_modules())
def test_each_parameter_changed_alone_corrected_out_of_band_then_removed(
    module: str, emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23 (P38, P16): after the create, each modifiable option in turn is changed alone (the modify keeps
    every other option as it is live), then changed back out of band (the emulator's platform change of the entry),
    and the next run corrects it; at the end `absent` removes the entry. Checked in the parent's live state after
    each step."""
    contract = sub_contract(module, playbook.workdir.name[-8:].replace("_", "-").lower())
    cases, _excused = sub_cases(contract)
    current = dict(contract.args)
    tasks: list[dict[str, Any]] = [{"name": "create", f"nubes.cloud.{module}": dict(current)}]
    probes: list[tuple[int, str, dict[str, Any]]] = []  # (result index, step, expected entry by API code)
    for case in cases:
        current = {**current, case.option: case.value}
        tasks.append({"name": f"change {case.option}", f"nubes.cloud.{module}": dict(current)})
        tasks.append(entry_change_task(emu, contract, {case.code: case.drift}))
        probes.append((len(tasks), f"out of band {case.option}", {case.code: case.drift}))
        tasks.append(parent_probe_task(emu, contract))
        tasks.append({"name": f"correct {case.option}", f"nubes.cloud.{module}": dict(current)})
        corrected = expected_entry(contract, current)
        probes.append((len(tasks), f"corrected {case.option}", {contract.checked[o]: v for o, v in corrected.items()}))
        tasks.append(parent_probe_task(emu, contract))
    tasks.append({"name": "absent", f"nubes.cloud.{module}": {**current, "state": "absent"}})
    results = run_plan(emu, playbook, contract, tasks)
    offset = contract.parent_index + 1
    for index, step, expected in probes:
        entries = results[offset + index]["json"]["instance"]["state"]["subresources"][contract.sub]
        entry = next(e for e in entries if str(e.get(contract.key_code)) == contract.key)
        off = {
            code: (value, entry.get(code))
            for code, value in expected.items()
            if not same_value(resolved(value, results), entry.get(code))
        }
        assert not off, f"{module}: after {step} the live entry differs: {off}"
    changed = [r for r, t in zip(results[offset:], tasks) if str(t["name"]).startswith(("change ", "correct "))]
    assert all(r["changed"] is True for r in changed), [r.get("operations") for r in changed]
    assert live_entry(emu, results[contract.parent_index]["instance_uid"], contract) is None, "absent left the entry"


def entry_change_task(emu: EmulatorServer, contract: SubContract, params: dict[str, Any]) -> dict[str, Any]:
    """The entry changed by hand (a DBA's ALTER ROLE), with no operation: the emulator's platform change."""
    body = {"subresource": {"name": contract.sub, "key": contract.key, "params": params}}
    return platform_change_task(emu, contract.parent_index, params, body)


def parent_probe_task(emu: EmulatorServer, contract: SubContract) -> dict[str, Any]:
    """The parent read through the deck-api right after a step: its sub-resources at that point."""
    return {
        "name": "live entry",
        "ansible.builtin.uri": {
            "url": f"{emu.endpoint}/instances/{{{{ r{contract.parent_index}.instance_uid }}}}",
            "headers": {"Authorization": f"Bearer {emu.token}"},
            "return_content": True,
        },
        "check_mode": False,
    }
