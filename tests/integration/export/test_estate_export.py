"""The estate export round trip (issue 27): instances and sub-resources of every service the emulator serves are
created with every settable option, `nubes.cloud.estate_export` writes a playbook from what the API holds, and
that playbook, run with an empty state store, reports `changed=false` on every task and sends no write request
(the emulator's request log is the truth); so does a second run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.emulator import EmulatorServer
from tests.integration.contract.contract_plan import contract_plan, instance_modules
from tests.integration.contract.subresource_plan import sub_contract, subresource_modules
from tests.integration.export.exported_play import RECAP, differences, run_exported
from tests.integration.modules.playbook import PlaybookRunner, create_raw_instance, write_calls
from tests.integration.modules.smoke_plan import load_specs

pytestmark = pytest.mark.slow
SECRET_VALUE = "Exported-Secret-1"  # what the user would put in the vault file
REFERENCE = re.compile(r"\{\{ r(\d+)\.")


def shifted(task: dict[str, Any], offset: int) -> dict[str, Any]:
    """The task with its references to earlier results (`{{ rN.instance_uid }}`) moved by `offset`, so that
    several plans run as one playbook."""
    text = json.dumps(task)
    return json.loads(REFERENCE.sub(lambda m: "{{ r" + str(int(m.group(1)) + offset) + ".", text))


def seed(emu: EmulatorServer, workdir: Path) -> dict[str, str]:
    """Create every module's contract instance (and every sub-resource module's parent and entry) in one
    playbook; returns the task name (module) of each created instance uid."""
    steps: list[dict[str, Any]] = []
    raw_uids: dict[str, str] = {}
    plans: list[tuple[Any, list[dict[str, Any]]]] = []
    for module in instance_modules():
        contract = contract_plan(module, f"x{len(plans)}")
        plans.append((contract, [{"name": module, f"nubes.cloud.{module}": contract.args}]))
    for module in subresource_modules():
        sub = sub_contract(module, f"x{len(plans)}")
        parent = sub.parent
        tasks = [
            {"name": parent.module, f"nubes.cloud.{parent.module}": parent.args},
            {"name": module, f"nubes.cloud.{module}": sub.args},
        ]
        plans.append((parent, tasks))
    for contract, tasks in plans:
        raw_uids.update({name: create_raw_instance(emu.endpoint, emu.token, sid, name) for sid, name in contract.raw})
        offset = len(steps)
        steps += [shifted(task, offset) for task in [*contract.setup_tasks, *tasks]]
    runner = PlaybookRunner(workdir / "seed", emu.endpoint, emu.token)
    runner.workdir.mkdir()
    results = runner.run([{**t, "vars": {"raw_uids": raw_uids}} for t in steps])
    created: dict[str, str] = {}
    for step, result in zip(steps, results):
        assert not result.get("failed"), f"seeding {step['name']}: {result.get('msg')}"
        if result.get("instance_uid"):
            created[result["instance_uid"]] = step["name"]
    return created


def test_exported_estate_adopts_everything_and_writes_nothing(tmp_path: Path) -> None:
    """Issue 27 (estate export, beyond the seed: docs/dev/rules.md; P24, P16, K2): export every service the emulator
    serves; each exported task carries the live params of what it names (the emulator's admin view), the instances
    of services without a module are listed in not_exported with the reason; the exported playbook's first and
    second runs report changed=0 and send no write request; secrets never appear in the playbook, only their
    variables."""
    with EmulatorServer(seed=27, op_duration=0.2) as emu:
        created = seed(emu, tmp_path)
        export_dir = tmp_path / "export"
        export_dir.mkdir()
        exporter = PlaybookRunner(export_dir, emu.endpoint, emu.token)
        since = emu.last_seq
        exported = exporter.run([{"nubes.cloud.estate_export": {"dest": str(export_dir / "estate.yml")}}])[0]
        assert not exported.get("failed"), exported.get("msg")
        with_module = {spec["service_id"] for spec in load_specs().values()}
        moduleless = {
            i["instanceUid"] for i in emu.instances() if not i.get("isDeleted") and i["serviceId"] not in with_module
        }
        assert moduleless, "the seed makes instances of services without a module (the organizations, 19)"
        assert {item["instance_uid"] for item in exported["not_exported"]} == moduleless  # the rest is running
        for item in exported["not_exported"]:
            assert item["module"] == "" and "has no module" in item["reason"], item
        assert write_calls(emu.requests(since)) == []
        text = (export_dir / "estate.yml").read_text(encoding="utf-8")
        assert text == exported["playbook"]
        assert SECRET_VALUE not in text and "Contract-Pass-1" not in text
        assert differences(emu, text) == []

        play = yaml.safe_load(text)[0]
        uids = {
            str(args.get("instance_uid"))
            for task in play["tasks"]
            for key, args in task.items()
            if key.startswith("nubes.cloud.") and isinstance(args, dict)
        }
        live = {i["instanceUid"] for i in emu.instances() if not i.get("isDeleted") and i["instanceUid"] in created}
        assert live <= uids, f"live instances missing from the export: {[created[u] for u in live - uids]}"
        modules = {key for task in play["tasks"] for key in task if key.startswith("nubes.cloud.")}
        assert {f"nubes.cloud.{m}" for m in subresource_modules()} <= modules

        secrets = export_dir / "secrets.yml"
        secrets.write_text(yaml.safe_dump({name: SECRET_VALUE for name in exported["secret_variables"]}))
        for attempt in ("first", "second"):
            since = emu.last_seq
            output = run_exported(emu, export_dir, export_dir / "estate.yml", secrets)
            recap = RECAP.search(output)
            assert recap, output[-3000:]
            assert recap.group(2) == "0" and recap.group(3) == "0", f"{attempt} run: {recap.group(0)}\n{output[-6000:]}"
            assert write_calls(emu.requests(since)) == [], f"{attempt} run wrote to the API"
            assert SECRET_VALUE not in output
