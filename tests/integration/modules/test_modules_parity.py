"""Issue 26, parity: the same playbook run on the module path (NUBES_EXECUTION=module) and in the controller's
process (the default for a local target) gives identical registered results, identical emulator request logs
(method, path, query, body) and identical state files, once the run's own names, uids, generated secrets and
times are replaced by placeholders.

The flow covers create, no-op, check+diff, modify with diff, invalid input (a bad choice, an unknown option), an API
failure, a warning that only the task's `environment:` causes, module_defaults, no_log with return_secrets, a
return_secrets refusal and deletes. Each run's -vvv output says which path every nubes.cloud task took.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner

REALM = "k8s-3.ext.nubes.ru"
MODES = {"module": "module", "in_process": ""}  # NUBES_EXECUTION for each mode ("" unsets it)
IN_PROCESS_MARK = "runs in the controller's process"
MODULE_MARK = "runs as a module: forced by NUBES_EXECUTION=module"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
SECRET_CODES = ("secretKey",)  # the s3 output that is secret (return_secrets)
# Left out of the comparison: times and log sequence numbers, and each record's random salt (issue 24: a fresh
# salt per record, so the salt differs between any two creates).
TIMING_KEYS = frozenset({"ms", "elapsed", "duration", "start", "end", "delta", "seq", "salt"})


def flow(name: str, xdg: Path) -> list[dict[str, Any]]:
    dummy = {"resource_name": name, "resource_realm": "dummy", "bodymessage": "one", "map_example": {"k": "v1"}}
    modified = {**dummy, "bodymessage": "two"}
    ci_job = {"JOB_ID": "26", "AWX_HOST": "https://awx.example", "NUBES_STATE_PATH": "", "XDG_STATE_HOME": str(xdg)}
    s3 = {"resource_name": name + "-s3", "display_name": name + "-s3", "resource_realm": REALM}
    return [
        {"name": "create", "nubes.cloud.dummy": dummy},
        {"name": "no-op", "nubes.cloud.dummy": dummy},
        {"name": "check and diff", "nubes.cloud.dummy": modified, "check_mode": True, "diff": True},
        {"name": "modify with diff", "nubes.cloud.dummy": modified, "diff": True},
        {"name": "bad choice", "nubes.cloud.dummy": {"resource_name": name, "state": "gone"}},
        {"name": "unknown option", "nubes.cloud.dummy": {**modified, "no_such_option": 1}},
        {"name": "api failure", "nubes.cloud.dummy": {**dummy, "resource_name": name + "-f", "fail_at_start": True}},
        {"name": "warning", "nubes.cloud.dummy": {**dummy, "resource_name": name + "-w"}, "environment": ci_job},
        {
            "name": "module_defaults",
            "nubes.cloud.dummy_info": {},
            "module_defaults": {"nubes.cloud.dummy_info": {"resource_name": name}},
        },
        {"name": "s3", "nubes.cloud.s3": s3},
        {
            "name": "secrets",
            "nubes.cloud.s3_info": {"resource_name": name + "-s3", "return_secrets": True},
            "no_log": True,
        },
        {"name": "secrets refused", "nubes.cloud.s3_info": {"resource_name": name + "-s3", "return_secrets": True}},
        {"name": "delete", "nubes.cloud.dummy": {"resource_name": name, "state": "deleted"}},
        {
            "name": "delete the warned",
            "nubes.cloud.dummy": {"resource_name": name + "-w", "state": "deleted"},
            "environment": ci_job,
        },
        {"name": "s3 gone", "nubes.cloud.s3": {**s3, "state": "absent"}},
    ]


class Placeholders:
    """Replaces a run's own values (names, work directory, uids, generated outputs, times) by placeholders, uids
    numbered in the order they first appear, so two runs of one flow compare equal when they behaved alike."""

    def __init__(self, name: str, workdir: Path, secrets: list[str]) -> None:
        self.name = name
        self.workdir = str(workdir)
        self.secrets = sorted(secrets, key=len, reverse=True)
        self.uids: dict[str, str] = {}

    def _uid(self, match: re.Match[str]) -> str:
        return self.uids.setdefault(match.group(0).lower(), f"<uid-{len(self.uids) + 1}>")

    def text(self, value: str) -> str:
        for secret in self.secrets:
            value = value.replace(secret, "<generated>")
        value = value.replace(self.workdir, "<workdir>").replace(self.name, "<name>")
        return TIME.sub("<time>", UUID.sub(self._uid, value))

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self.text(str(k)): self(v) for k, v in value.items() if k not in TIMING_KEYS}
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def generated_outputs(emu: EmulatorServer, name: str, codes: tuple[str, ...] = ()) -> list[str]:
    """The output values of this run's instances as the emulator holds them (generated per instance): all of them,
    or those of `codes`."""
    values: list[str] = []
    for inst in emu.instances():
        if str(inst.get("displayName", "")).startswith(name):
            out = (inst.get("state") or {}).get("out") or {}
            values += [
                str(v)
                for k, v in out.items()
                if isinstance(v, (str, int)) and len(str(v)) >= 6 and (not codes or k in codes)
            ]
    return values


def run_mode(emu: EmulatorServer, tmp_path: Path, mode: str) -> dict[str, Any]:
    name = f"par-{uuid.uuid4().hex[:8]}"
    workdir = tmp_path / mode
    workdir.mkdir()
    runner = PlaybookRunner(workdir, emu.endpoint, emu.token, extra_env={"NUBES_EXECUTION": MODES[mode]})
    runner.options = ("-vvv",)
    since = emu.last_seq
    results = runner.run(flow(name, workdir / "xdg"))
    log = [
        {k: r.get(k) for k in ("method", "path", "query", "body", "status")}
        for r in emu.requests(since)
        if "/_emulator/" not in r["path"]
    ]
    norm = Placeholders(name, workdir, generated_outputs(emu, name))
    states = [runner.state_path, workdir / "xdg" / "nubes-cloud" / "state.json"]
    return {
        "results": norm(results),
        "log": norm(log),
        "states": [norm(json.loads(p.read_text(encoding="utf-8"))) for p in states],
        "output": runner.output,
        "raw_results": results,
        "secrets": generated_outputs(emu, name, SECRET_CODES),
    }


def test_module_and_in_process_paths_are_identical(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 26 (parity): results, emulator request logs and state files of both paths are identical; each task took
    the path its mode says (-vvv); no generated secret reaches the output on either path (no_log)."""
    emu.configure(op_duration=0.0)  # operations finish at once: the number of polls does not follow the clock
    runs = {mode: run_mode(emu, tmp_path, mode) for mode in MODES}
    module, in_process = runs["module"], runs["in_process"]

    results = module["raw_results"]
    assert [r.get("failed", False) for r in results] == [
        *(False,) * 4,  # create, no-op, check+diff, modify
        True,  # bad choice
        True,  # unknown option
        True,  # api failure
        *(False,) * 4,  # warning, module_defaults, s3, secrets
        True,  # secrets refused
        *(False,) * 3,  # deletes
    ], [r.get("msg") for r in results]
    assert results[1]["changed"] is False and results[2]["changed"] and results[3]["changed"]
    assert results[2]["diff"] and results[3]["diff"]
    warning = "this task runs in AWX/Controller job 26 with state_backend=file"  # caused by the task's environment
    assert module["output"].count(warning) >= 1
    assert in_process["output"].count(warning) == module["output"].count(warning)
    assert results[8]["exists"] is True
    assert module["secrets"] and results[10]["outputs"]["secretKey"] == module["secrets"][0]  # return_secrets

    for part in ("results", "log", "states"):
        assert in_process[part] == module[part], part

    nubes_tasks = len(flow("x", tmp_path))
    assert module["output"].count(MODULE_MARK) == nubes_tasks
    assert IN_PROCESS_MARK not in module["output"]
    assert in_process["output"].count(IN_PROCESS_MARK) == nubes_tasks
    assert "plugins/modules/dummy.py" not in in_process["output"]  # no module file was used for a nubes task
    for run in runs.values():
        leaks = [s for s in run["secrets"] if s in run["output"]]
        assert not leaks, "a generated secret reached the -vvv output"
