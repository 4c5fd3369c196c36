"""What the estate export tests (issue 27) do with an exported playbook: run it against the emulator, and compare
each exported task's options with the live params the emulator holds (its admin view of every instance), never
with the module's own result."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import as_text
from tests.emulator import EmulatorServer
from tests.integration.contract.contract_plan import covers, expected_live
from tests.integration.modules.playbook import BIN, PlaybookRunner
from tests.integration.modules.smoke_plan import load_specs

RECAP = re.compile(r"localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=0\s+failed=(\d+)")
REGISTERED_UID = re.compile(r"\{\{ (\w+)\.instance\.instance_uid \}\}")
VAULT_VARIABLE = re.compile(r"\{\{ vault_\w+ \}\}")
NOT_PARAMS = {"resource_name", "instance_uid", "adopt_existing_on_create", "state", "parent_instance_uid"}


def run_exported(emu: EmulatorServer, workdir: Path, playbook: Path, secrets: Path) -> str:
    """`ansible-playbook -e @secrets playbook` with the runner's environment and a fresh state file; its stdout."""
    runner = PlaybookRunner(workdir, emu.endpoint, emu.token)
    proc = subprocess.run(
        [str(BIN / "ansible-playbook"), "-i", "localhost,", "-e", f"@{secrets}", str(playbook)],
        cwd=workdir,
        env=runner.env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    return proc.stdout


def exported_tasks(text: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(module name, registered name, options) of each task of an exported playbook, in order."""
    tasks = []
    for task in yaml.safe_load(text)[0]["tasks"]:
        (key,) = [key for key in task if key.startswith("nubes.cloud.")]
        tasks.append((key.rsplit(".", 1)[-1], str(task["register"]), dict(task[key])))
    return tasks


def subresource_specs() -> dict[str, tuple[str, dict[str, Any]]]:
    """`<service>_<sub>` -> (the service's module name, the sub-resource's spec)."""
    specs = load_specs().items()
    return {f"{name}_{sub['name']}": (name, sub) for name, spec in specs for sub in spec.get("subresources") or []}


def differences(emu: EmulatorServer, text: str) -> list[str]:
    """Every option of the exported playbook that differs from the live instance or sub-resource it names, every
    live param it leaves out, every secret it spells out and every option that is no param; [] when it holds the
    live params exactly (P35: a param the API shows with its placeholder value is left out)."""
    tasks = exported_tasks(text)
    uids = {register: str(options.get("instance_uid") or "") for _module, register, options in tasks}
    instances = {item["instanceUid"].lower(): item for item in emu.instances()}
    specs, subs = load_specs(), subresource_specs()
    problems: list[str] = []
    for module, register, options in tasks:
        if module in specs:
            instance = instances[uids[register].lower()]
            live, params = instance["state"]["params"], specs[module]["params"]
            if options["resource_name"] != instance["displayName"]:
                shown = (options["resource_name"], instance["displayName"])
                problems.append(f"{register}: resource_name {shown[0]!r}, live display name {shown[1]!r}")
        else:
            _service, sub = subs[module]
            parent = registered_uid(options["parent_instance_uid"], uids)
            items = instances[parent.lower()]["state"]["subresources"][sub["name"]]
            key = str(options[sub["key"]])
            live = next(item for item in items if str(item.get(sub["key_code"])) == key)
            params = sub["params"]
        problems += param_differences(register, params, options, live, uids)
        problems += revision_differences(register, specs.get(module), options, live)
        others = sorted(set(options) - NOT_PARAMS - {"git_revision"} - {param["option"] for param in params})
        if others:
            problems.append(f"{register}: options that are no param of {module}: {others}")
    return problems


def revision_differences(
    label: str, spec: dict[str, Any] | None, options: dict[str, Any], live: dict[str, Any]
) -> list[str]:
    """P14: an app's task states the revision deployed (its redeploy's param), and only an app's task has one."""
    codes = [
        param["code"]
        for operation in (spec or {}).get("operations", [])
        if operation.get("name") == "redeploy"
        for param in operation.get("params", [])
        if param.get("option") == "git_revision"
    ]
    deployed = (as_text(live.get(codes[0])) or None) if codes and live.get(codes[0]) is not None else None
    if options.get("git_revision") != deployed:
        return [f"{label}.git_revision: exported {options.get('git_revision')!r}, deployed {deployed!r}"]
    return []


def registered_uid(value: Any, uids: dict[str, str]) -> str:
    """The uid a `{{ <register>.instance.instance_uid }}` reference stands for (the value itself otherwise)."""
    found = REGISTERED_UID.fullmatch(value) if isinstance(value, str) else None
    return uids.get(found.group(1), "") if found else str(value)


def param_differences(
    label: str, params: list[dict[str, Any]], options: dict[str, Any], live: dict[str, Any], uids: dict[str, str]
) -> list[str]:
    problems: list[str] = []
    for param in params:
        option, code = param["option"], param["code"]
        value, text = options.get(option), as_text(live.get(code))
        if param["secret"]:
            if not VAULT_VARIABLE.fullmatch(str(value)):
                problems.append(f"{label}.{option}: a secret, exported as something else than a vault variable")
            continue
        if text is None or text == param.get("placeholder"):
            if option in options:
                problems.append(f"{label}.{option}: exported {value!r}, but the live {code} is {text!r}")
            continue
        if option not in options:
            problems.append(f"{label}.{option}: left out, but the live {code} is {text!r}")
        elif REGISTERED_UID.fullmatch(str(value)):
            if registered_uid(value, uids).lower() != text.lower():
                problems.append(f"{label}.{option}: refers to {registered_uid(value, uids)}, live {code} is {text}")
        elif not covers(expected_live(value, param), live.get(code)):
            problems.append(f"{label}.{option}: exported {value!r}, live {code} is {text!r}")
    return problems
