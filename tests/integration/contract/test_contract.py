"""The contract suite (issue 23): one run settles, and the second run is empty, for every instance module and every
parameter its task can set, with the values derived from its spec (contract_plan.py).

For each module, one real ansible-playbook run against the emulator: the tasks that make its references, its own
task with every settable option (the create), the same task again, and again in check and diff mode. Between the
create and the re-runs a marker request goes to the emulator, so the request log tells which writes came after it.
Then the emulator's admin API, never the module's result, is the truth:
- the live params equal the task's value for every checked option, after the one create run;
- the re-run and the check-mode run send no write request, and both report changed=false;
- the check-mode diff shows no difference.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.emulator import EmulatorServer
from tests.integration.contract.contract_plan import (
    RESULT_UID,
    UID,
    after_a_modify,
    as_live_text,
    contract_plan,
    covers,
    instance_modules,
    lifecycle_steps,
    parameter_cases,
    settable,
    task_params,
)
from tests.integration.modules.playbook import PlaybookRunner, create_raw_instance, write_calls
from tests.integration.modules.smoke_plan import load_specs

MARKER = "contract-rerun"
CHANGES = ("modify", "redeploy")  # the operations that apply a changed parameter (P38, P14)
RAW_UID = re.compile(r"\{\{ raw_uids\['([^']+)'\] \}\}")  # the uid of an instance made through the API


def marker_task(emu: EmulatorServer) -> dict[str, Any]:
    """A read of the deck-api (the admin API is not logged) that marks, in the request log, where the re-runs
    begin."""
    return {
        "name": "marker",
        "ansible.builtin.uri": {
            "url": f"{emu.endpoint}/instances?pageSize=1&{MARKER}=1",
            "headers": {"Authorization": f"Bearer {emu.token}"},
        },
        "check_mode": False,
    }


def resolved(value: Any, results: list[dict[str, Any]], raw_uids: dict[str, str] | None = None) -> Any:
    """A task value as Ansible resolved it, inside objects and lists too: `{{ rN.instance_uid }}` is the uid an
    earlier task registered, `{{ raw_uids['<name>'] }}` the uid of an instance made through the API."""
    if isinstance(value, dict):
        return {key: resolved(item, results, raw_uids) for key, item in value.items()}
    if isinstance(value, list):
        return [resolved(item, results, raw_uids) for item in value]
    if not isinstance(value, str):
        return value
    found, raw = RESULT_UID.fullmatch(value), RAW_UID.fullmatch(value)
    if found:
        return results[int(found.group(1))]["instance_uid"]
    return (raw_uids or {})[raw.group(1)] if raw else value


def same_value(wanted: Any, live: Any) -> bool:
    """The task's value and the live one, as the API's text; uids compare without case."""
    task_text = as_live_text(wanted)
    if UID.fullmatch(task_text):
        return task_text.lower() == as_live_text(live).lower()
    return covers(wanted, live)


def is_marker(entry: dict[str, Any]) -> bool:
    return MARKER in str(entry.get("query"))


def live_params(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    return next(i for i in emu.instances() if i["instanceUid"].lower() == uid.lower())["state"]["params"]


@pytest.mark.parametrize("module", instance_modules())
def test_one_run_settles_and_the_second_is_empty(module: str, emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23 (P16, P20, P38): create with every settable parameter, then re-run and re-run in check mode."""
    suffix = playbook.workdir.name[-8:].replace("_", "-").lower()
    contract = contract_plan(module, suffix)
    raw_uids = {name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in contract.raw}
    task = {f"nubes.cloud.{module}": contract.args}
    tasks = [
        *contract.setup_tasks,
        {"name": "create", **task},
        marker_task(emu),
        {"name": "re-run", **task},
        {"name": "check", **task, "check_mode": True, "diff": True},
    ]
    results = playbook.run([{**t, "vars": {"raw_uids": raw_uids}} for t in tasks])
    for spec_task, result in zip(tasks, results):
        assert not result.get("failed"), f"{module}: {spec_task['name']}: {result.get('msg')}"
    created, rerun, checked = results[-4], results[-2], results[-1]

    live = live_params(emu, created["instance_uid"])
    wanted = {option: resolved(contract.expected[option], results, raw_uids) for option in contract.checked}
    differing = {
        option: (wanted[option], live.get(code))
        for option, code in contract.checked.items()
        if not same_value(wanted[option], live.get(code))
    }
    assert not differing, f"{module}: after one run the live params differ from the task: {differing}"

    log = emu.requests()
    marks = [entry["seq"] for entry in log if is_marker(entry)]
    assert marks, "the marker request is in the log"
    after = write_calls([entry for entry in log if entry["seq"] > marks[-1]])
    assert after == [], f"{module}: the second run wrote: {[(w['method'], w['path']) for w in after]}"
    assert rerun["changed"] is False, f"{module}: re-run changed: {rerun.get('operations')}"
    assert checked["changed"] is False, f"{module}: check mode predicts {checked.get('operations')}"
    assert checked["diff"]["before"] == checked["diff"]["after"], f"{module}: check-mode diff {checked['diff']}"


def test_the_summary_counts_every_parameter() -> None:
    """Issue 23: every parameter a task can set, of every module, is checked live or excused with a reason, never
    dropped: the service's params, the redeploy's `git_revision` (P14), references to other instances (P37) and
    references inside objects."""
    for module in instance_modules():
        contract = contract_plan(module, "count")
        params = [p for p in task_params(module) if settable(p)]
        counted = set(contract.checked) | set(contract.excused)
        assert {p["option"] for p in params} <= counted, (module, {p["option"] for p in params} - counted)
        inner = {f"{p['option']}.{s['option']}" for p in params for s in p["sub_params"] if s["ref_service_id"]}
        assert inner <= set(contract.nested) | set(contract.excused), (module, inner)
        assert {p["option"] for p in params if p["ref_service_id"]} <= contract.references | set(contract.excused)
        if load_specs()[module]["lifecycle"]["redeploy"]:
            assert contract.checked.get("git_revision") == "gitRevision", module
        assert all(reason.strip() for reason in contract.excused.values()), module
        assert not set(contract.checked) & set(contract.excused), module


def test_marker_is_a_logged_read(emu: EmulatorServer) -> None:
    """The marker is a logged GET, so it marks the log and is never counted as a write of the re-runs."""
    task = marker_task(emu)["ansible.builtin.uri"]
    seq = emu.last_seq
    assert httpx.get(task["url"], headers=task["headers"]).status_code == 200
    (entry,) = emu.requests(since=seq)
    assert is_marker(entry) and write_calls([entry]) == []


def modules_with_modifiable_params() -> list[str]:
    return [m for m in instance_modules() if parameter_cases(contract_plan(m, "list"))[0]]


@pytest.mark.parametrize("module", modules_with_modifiable_params())
def test_each_parameter_changed_alone_and_out_of_band(
    module: str, emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23 (P38, P16, P14): after the create with every parameter, each modifiable option in turn is changed
    alone (the modify sends exactly that change: every other option keeps the value the instance has; `git_revision`
    is changed by a redeploy), then set back by the platform out of band (the emulator's platform-change), and the
    next run corrects it. The emulator's operation log is the truth: the values each operation sent, and the live
    params at the end."""
    suffix = playbook.workdir.name[-8:].replace("_", "-").lower()
    contract = contract_plan(module, suffix)
    cases, _excused = parameter_cases(contract)
    raw_uids = {name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in contract.raw}
    create_index = len(contract.setup_tasks)
    current = dict(contract.args)  # issue 23: references inside objects too (the create-only sub-key settles)
    tasks: list[dict[str, Any]] = [*contract.setup_tasks, {"name": "create", f"nubes.cloud.{module}": dict(current)}]
    states = []
    for case in cases:
        current = {**current, case.option: case.value}
        states.append(after_a_modify(contract, current))
        tasks.append({"name": f"change {case.option}", f"nubes.cloud.{module}": dict(current)})
        tasks.append(platform_change_task(emu, create_index, {case.code: case.drift}))
        tasks.append({"name": f"correct {case.option}", f"nubes.cloud.{module}": dict(current)})
    results = playbook.run([{**t, "vars": {"raw_uids": raw_uids}} for t in tasks])
    for spec_task, result in zip(tasks, results):
        assert not result.get("failed"), f"{module}: {spec_task['name']}: {result.get('msg')}"

    uid = results[create_index]["instance_uid"]
    changes = [op for op in emu.operations() if op["instanceUid"].lower() == uid.lower() and op["operation"] in CHANGES]
    settled = len([name for name in results[create_index]["operations"] if name in CHANGES])  # the create run's own
    changes = changes[settled:]
    wanted_ops = [case.operation for case in cases for _step in ("change", "correction")]
    ran = [op["operation"] for op in changes]
    assert ran == wanted_ops, f"{module}: operations {ran} for the cases {[case.option for case in cases]}"
    codes = {option: contract.checked[option] for option in contract.checked}
    for index, case in enumerate(cases):
        expected = states[index]
        for step, op in (("change", changes[2 * index]), ("correction", changes[2 * index + 1])):
            sent = {p["svcOperationCfsParam"]: p["paramValue"] for p in op["cfsParams"]}
            wrong = {
                option: (expected[option], sent[code])
                for option, code in codes.items()
                if code in sent and not same_value(resolved(expected[option], results, raw_uids), sent[code])
            }
            assert not wrong, f"{module}: the {step} of {case.option} sent other values than the task's: {wrong}"
    live = live_params(emu, uid)
    final = resolved(after_a_modify(contract, current), results, raw_uids)
    off = {o: (final[o], live.get(c)) for o, c in codes.items() if not same_value(final[o], live.get(c))}
    assert not off, f"{module}: the live params differ from the last task: {off}"


def platform_change_task(
    emu: EmulatorServer, create_index: int, params: dict[str, Any], body: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The platform changes a live param itself (the emulator's admin call), between two runs of the task; `body`
    replaces the default `{params}` (e.g. a sub-resource entry's change)."""
    return {
        "name": f"out of band: {', '.join(params)}",
        "ansible.builtin.uri": {
            "url": f"{emu.admin_url}/instances/{{{{ r{create_index}.instance_uid }}}}/platform-change",
            "method": "POST",
            "body_format": "json",
            "body": body if body is not None else {"params": params},
        },
        "check_mode": False,
    }


@pytest.mark.parametrize("module", instance_modules())
def test_lifecycle_against_the_live_instance(module: str, emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Issue 23 (P21, P29, P12): where the service has them, `absent` suspends (or deletes, or only forgets), `present`
    with adopt_existing_on_create resumes with the task's params, and `deleted` deletes: each checked in the
    emulator's live status after its step, and the resumed instance's live params equal the task's."""
    suffix = playbook.workdir.name[-8:].replace("_", "-").lower()
    contract = contract_plan(module, suffix)
    raw_uids = {name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in contract.raw}
    steps = lifecycle_steps(module)
    tasks = [*contract.setup_tasks, {"name": "create", f"nubes.cloud.{module}": contract.args}]
    create_index = len(tasks) - 1
    for name, extra, _status in steps:
        args = {**contract.args, **extra} if name == "adopt" else {"resource_name": contract.args["resource_name"]}
        tasks.append({"name": name, f"nubes.cloud.{module}": {**args, **extra}})
        tasks.append(status_probe_task(emu, create_index, name))
    results = playbook.run([{**t, "vars": {"raw_uids": raw_uids}} for t in tasks])
    for spec_task, result in zip(tasks, results):
        assert not result.get("failed"), f"{module}: {spec_task['name']}: {result.get('msg')}"
    for index, (name, _extra, status) in enumerate(steps):
        live = results[create_index + 2 + 2 * index]["json"]["instance"]
        assert live["explainedStatus"] == status, f"{module}: after {name}: {live['explainedStatus']}, not {status}"
        if name == "adopt":
            params = live["state"]["params"]
            wanted = resolved(contract.expected, results, raw_uids)
            off = {
                o: (wanted[o], params.get(c))
                for o, c in contract.checked.items()
                if not same_value(wanted[o], params.get(c))
            }
            assert not off, f"{module}: the resumed instance's live params differ from the task: {off}"


def status_probe_task(emu: EmulatorServer, create_index: int, step: str) -> dict[str, Any]:
    """A read of the instance through the deck-api right after a step: its live status and params at that point."""
    return {
        "name": f"live after {step}",
        "ansible.builtin.uri": {
            "url": f"{emu.endpoint}/instances/{{{{ r{create_index}.instance_uid }}}}",
            "headers": {"Authorization": f"Bearer {emu.token}"},
            "return_content": True,
        },
        "check_mode": False,
    }
