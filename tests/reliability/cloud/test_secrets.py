"""Secrets never leak: the whole cloud flow at -vvvv (ANSIBLE_DEBUG off and on) with --diff, then every
place a secret could land is scanned for the API token, the passwords and the secret outputs.

Places scanned: ansible-playbook stdout and stderr, the registered results, the state file (and its lock
directory names), the emulator's request log and the generated docs (docs/modules, docs/man)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.reliability.cloud.fleet import REPO, Fleet

REALM = "k8s-3.ext.nubes.ru"
SECRET_OUTPUTS = {12: ("secretKey",), 90: ("adminPass", "standbyPass")}
# ansible-core's own debug line echoing the raw module arguments (ansible/plugins/action/__init__.py); its docs
# warn that ANSIBLE_DEBUG "can include secret information despite no_log settings". No collection code runs there.
CORE_RAW_ARGS_DEBUG = re.compile(r"^\s*\d+ [\d.]+: done with _execute_module \(nubes\.cloud\.", re.MULTILINE)


def without_core_raw_args_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not CORE_RAW_ARGS_DEBUG.match(line))


def flow(prefix: str, token: str | None, passwords: tuple[str, str]) -> list[dict[str, Any]]:
    """Create s3 + postgres + a user, change the password and the CPU (diff), read them, delete everything.
    With `token` the tasks carry api_token; without it the modules read NUBES_API_TOKEN."""
    common = {"api_token": token} if token else {}
    s3 = {"resource_name": prefix + "-s3", "display_name": prefix, "resource_realm": REALM, **common}
    pg = {"resource_name": prefix + "-pg", "s3_uid": "{{ t0.instance_uid }}", "resource_realm": REALM, **common}
    user = {"parent_resource_name": prefix + "-pg", "username": "app", "role": "readwrite", **common}
    return [
        {"name": "s3", "nubes.cloud.s3": s3},
        {"name": "postgres", "nubes.cloud.postgres": pg},
        {"name": "user", "nubes.cloud.postgres_user": {**user, "password": passwords[0]}},
        {
            "name": "user password",
            "nubes.cloud.postgres_user": {**user, "password": passwords[1], "update_password": "always"},
        },
        {"name": "postgres cpu", "nubes.cloud.postgres": {**pg, "resource_cpu": 1000}},
        {"name": "postgres info", "nubes.cloud.postgres_info": {"resource_name": prefix + "-pg", **common}},
        {"name": "s3 info", "nubes.cloud.s3_info": {"resource_name": prefix + "-s3", **common}},
        {"name": "user gone", "nubes.cloud.postgres_user": {**user, "state": "absent"}},
        {"name": "postgres gone", "nubes.cloud.postgres": {**pg, "state": "absent", "suspend_on_destroy": False}},
        {"name": "s3 gone", "nubes.cloud.s3": {**s3, "state": "absent"}},
    ]


def secret_outputs(emu: EmulatorServer, prefix: str) -> list[str]:
    """The generated secret outputs (state.out) of the flow's instances, as the emulator holds them."""
    values = []
    for inst in emu.instances():
        if not str(inst.get("displayName", "")).startswith(prefix):
            continue
        out = (inst.get("state") or {}).get("out") or {}
        for code in SECRET_OUTPUTS.get(int(inst["serviceId"]), ()):
            value = out.get(code)
            if value:
                values.append(str(value))
    return values


def generated_docs() -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for folder in ("docs/modules", "docs/man")
        for path in sorted((REPO / folder).rglob("*"))
        if path.is_file()
    )


@pytest.mark.parametrize("debug", ["0", "1"], ids=["debug_off", "debug_on"])
def test_no_secret_anywhere_at_vvvv(emu: EmulatorServer, fleet: Fleet, prefix: str, tmp_path: Path, debug: str) -> None:
    """P13 (secrets never returned, no_log): API token, passwords and secret outputs appear in no output,
    result, state file, request log or doc, at -vvvv with --diff. With ANSIBLE_DEBUG on, the token comes from
    NUBES_API_TOKEN and appears nowhere; the passwords given as task arguments appear only in ansible-core's
    own raw-arguments debug line (documented by Ansible; nothing the collection can mask) and nowhere else."""
    fleet.size = 1
    fleet.extra_env["ANSIBLE_DEBUG"] = debug
    passwords = ("Pw-first-" + prefix[-8:], "Pw-second-" + prefix[-8:])
    since = emu.last_seq
    run = fleet.run(flow(prefix, emu.token if debug == "0" else None, passwords), options=("-vvvv", "--diff"))
    results = run.results["r0"]
    failed = [(index, r.get("msg")) for index, r in enumerate(results) if r.get("failed")]
    assert not failed, failed
    assert results[3]["changed"] and results[4]["changed"]  # the password change and the modify ran (diff mode)
    outputs = secret_outputs(emu, prefix)
    assert len(outputs) == 3, outputs  # secretKey, adminPass, standbyPass were generated
    secrets = {"api token": emu.token, "password 1": passwords[0], "password 2": passwords[1]}
    secrets.update({f"output {index}": value for index, value in enumerate(outputs)})

    state = fleet.state_path
    if debug == "1":
        raw_args_lines = "\n".join(CORE_RAW_ARGS_DEBUG.findall(run.stdout))
        assert raw_args_lines, "ANSIBLE_DEBUG output expected"
        assert emu.token not in run.stdout and emu.token not in run.stderr
    places = {
        "stdout": run.stdout if debug == "0" else without_core_raw_args_lines(run.stdout),
        "stderr": run.stderr,
        "registered results": json.dumps(results, ensure_ascii=False),
        "state file": state.read_text(encoding="utf-8") if state.exists() else "",
        "state lock names": " ".join(p.name for p in state.parent.glob("state.json*")),
        "request log": json.dumps(emu.requests(since), ensure_ascii=False),
        "generated docs": generated_docs(),
    }
    assert len(run.stdout) > 10_000  # -vvvv really was verbose
    leaks = [(what, where) for what, value in secrets.items() for where, text in places.items() if value in text]
    assert not leaks, f"secrets leaked: {leaks}"
