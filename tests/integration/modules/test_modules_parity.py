"""Issue 26, parity: the same playbook run on the module path (NUBES_EXECUTION=module) and in the controller's process
(the default for a local target) gives identical registered results, identical emulator request logs (method, path,
query, body), identical state files and an identical exported playbook, once the run's own names, uids, generated
secrets and times are replaced by placeholders.

The flow covers create, no-op, check+diff, modify with diff, invalid input (a bad choice, an unknown option, no
identity), an API failure, a warning that only the task's `environment:` causes (on a task that succeeds and
on one that fails), module_defaults of one module and of the action group `group/nubes.cloud.nubes` (api_endpoint,
wait_timeout) with the token from the task's `environment:` (the option's env fallback), no_log with return_secrets,
a return_secrets refusal, a sub-resource (postgres + postgres_user), a create with `wait: false` and an
operation_info task that waits for it, estate_export, and deletes. Each run's -vvv output says which path every
nubes.cloud task took. No shipped module emits a deprecation (no deprecated option or alias, no module.deprecate
call), so deprecations are not part of the flow.

The test has its own emulator: estate_export reads every live postgres, and other tests' must not be among them.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from tests.emulator import EmulatorServer
from tests.emulator.settings import operation_id_offset_from_env
from tests.integration.modules.playbook import PlaybookRunner

REALM = "k8s-3.ext.nubes.ru"
MODES = {"module": "module", "in_process": ""}  # NUBES_EXECUTION for each mode ("" unsets it)
IN_PROCESS_MARK = "runs in the controller's process"
MODULE_MARK = "runs as a module: forced by NUBES_EXECUTION=module"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
DIGEST = re.compile(r"\$pbkdf2-sha256\$[^\s\"']+")  # issue 24: a fresh salt per digest
SECRET_CODES = ("secretKey",)  # the s3 output that is secret (return_secrets)
# Left out of the comparison: times and log sequence numbers, and each record's random salt (issue 24: a fresh
# salt per record, so the salt differs between any two creates).
TIMING_KEYS = frozenset({"ms", "elapsed", "duration", "start", "end", "delta", "seq", "salt"})
ENV_USER = "parity-env"  # the user of the token that only the task's environment holds
USER_PASSWORD = "S3cret-pass-1"
AWX_WARNING = "this task runs in AWX/Controller job 26 with state_backend=file"  # caused by the task's environment
DEAD_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there: the group's api_endpoint must win over the env


def registered(steps: list[dict[str, Any]], name: str) -> str:
    """The variable PlaybookRunner registers the result of the step named `name` in (r<index>)."""
    return f"r{[s['name'] for s in steps].index(name)}"


def flow(name: str, workdir: Path, endpoint: str, env_token: str) -> list[dict[str, Any]]:
    dummy = {"resource_name": name, "resource_realm": "dummy", "bodymessage": "one", "map_example": {"k": "v1"}}
    modified = {**dummy, "bodymessage": "two"}
    xdg = str(workdir / "xdg")
    ci_job = {"JOB_ID": "26", "AWX_HOST": "https://awx.example", "NUBES_STATE_PATH": "", "XDG_STATE_HOME": xdg}
    s3 = {"resource_name": name + "-s3", "display_name": name + "-s3", "resource_realm": REALM}
    group = {"api_endpoint": endpoint, "wait_timeout": 321}
    steps: list[dict[str, Any]] = [
        {"name": "create", "nubes.cloud.dummy": dummy},
        {"name": "no-op", "nubes.cloud.dummy": dummy},
        {"name": "check and diff", "nubes.cloud.dummy": modified, "check_mode": True, "diff": True},
        {"name": "modify with diff", "nubes.cloud.dummy": modified, "diff": True},
        {"name": "bad choice", "nubes.cloud.dummy": {"resource_name": name, "state": "gone"}},
        {"name": "unknown option", "nubes.cloud.dummy": {**modified, "no_such_option": 1}},
        {"name": "no identity", "nubes.cloud.dummy": {"resource_realm": "dummy"}},
        {"name": "api failure", "nubes.cloud.dummy": {**dummy, "resource_name": name + "-f", "fail_at_start": True}},
        {"name": "warning", "nubes.cloud.dummy": {**dummy, "resource_name": name + "-w"}, "environment": ci_job},
        {
            "name": "warned failure",
            "nubes.cloud.dummy": {**dummy, "resource_name": name + "-f2", "fail_at_start": True},
            "environment": {**ci_job, "JOB_ID": "27"},  # its own warning text: ansible-core shows a warning once
        },
        {
            "name": "module_defaults",
            "nubes.cloud.dummy_info": {},
            "module_defaults": {"nubes.cloud.dummy_info": {"resource_name": name}},
        },
        {
            "name": "group defaults",
            "nubes.cloud.dummy": {**dummy, "resource_name": name + "-g"},
            "module_defaults": {"group/nubes.cloud.nubes": group},
            "environment": {"NUBES_API_ENDPOINT": DEAD_ENDPOINT, "NUBES_API_TOKEN": env_token},
        },
        {"name": "s3", "nubes.cloud.s3": s3},
        {
            "name": "secrets",
            "nubes.cloud.s3_info": {"resource_name": name + "-s3", "return_secrets": True},
            "no_log": True,
        },
        {"name": "secrets refused", "nubes.cloud.s3_info": {"resource_name": name + "-s3", "return_secrets": True}},
    ]
    pg = {"resource_name": name + "-pg", "resource_realm": REALM, "resource_cpu": 500}
    pg["s3_uid"] = "{{ " + registered(steps, "s3") + ".instance_uid }}"
    user = {"parent_resource_name": name + "-pg", "username": "app", "password": USER_PASSWORD, "role": "readwrite"}
    export = {"services": ["postgres"], "dest": str(workdir / "estate.yml")}
    steps += [
        {"name": "postgres", "nubes.cloud.postgres": pg},
        {"name": "postgres user", "nubes.cloud.postgres_user": user},
        {"name": "export", "nubes.cloud.estate_export": export},
        {"name": "no wait", "nubes.cloud.dummy": {**dummy, "resource_name": name + "-o", "wait": False}},
    ]
    steps += [
        {
            "name": "wait for it",
            "nubes.cloud.operation_info": {"operations": "{{ [" + registered(steps, "no wait") + "] }}", "wait": True},
        },
        {"name": "delete", "nubes.cloud.dummy": {"resource_name": name, "state": "deleted"}},
        {
            "name": "delete the warned",
            "nubes.cloud.dummy": {"resource_name": name + "-w", "state": "deleted"},
            "environment": ci_job,
        },
        {"name": "postgres gone", "nubes.cloud.postgres": {"resource_name": name + "-pg", "state": "deleted"}},
        *(
            {"name": f"delete {suffix}", "nubes.cloud.dummy": {"resource_name": name + suffix, "state": "deleted"}}
            for suffix in ("-g", "-o")
        ),
        {"name": "s3 gone", "nubes.cloud.s3": {**s3, "state": "absent"}},
    ]
    return steps


FAILING = ("bad choice", "unknown option", "no identity", "api failure", "warned failure", "secrets refused")


class Placeholders:
    """Replaces a run's own values (names, work directory, uids, generated outputs, times, salted digests) by
    placeholders, uids numbered in the order they first appear, so two runs of one flow compare equal when they
    behaved alike."""

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
        value = value.replace(self.name.replace("-", "_"), "<name>")  # in estate_export's variable names
        return DIGEST.sub("<digest>", TIME.sub("<time>", UUID.sub(self._uid, value)))

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


def returned_outputs(value: Any) -> list[str]:
    """The values under every `outputs` key of the registered results: generated per instance, also for the
    instances the flow deletes (the emulator keeps no outputs of those)."""
    if isinstance(value, list):
        return [text for item in value for text in returned_outputs(item)]
    if not isinstance(value, dict):
        return []
    outputs = value["outputs"] if isinstance(value.get("outputs"), dict) else {}
    found = [str(v) for v in outputs.values() if isinstance(v, (str, int)) and len(str(v)) >= 6]
    return found + [text for key, item in value.items() if key != "outputs" for text in returned_outputs(item)]


def run_mode(emu: EmulatorServer, tmp_path: Path, mode: str, env_token: str) -> dict[str, Any]:
    name = f"par-{uuid.uuid4().hex[:8]}"
    workdir = tmp_path / mode
    workdir.mkdir()
    runner = PlaybookRunner(workdir, emu.endpoint, emu.token, extra_env={"NUBES_EXECUTION": MODES[mode]})
    runner.options = ("-vvv",)
    since = emu.last_seq
    results = runner.run(flow(name, workdir, emu.endpoint, env_token))
    log = [
        {k: r.get(k) for k in ("method", "path", "query", "body", "status")}
        for r in emu.requests(since)
        if "/_emulator/" not in r["path"]
    ]
    norm = Placeholders(name, workdir, generated_outputs(emu, name) + returned_outputs(results))
    states = [runner.state_path, workdir / "xdg" / "nubes-cloud" / "state.json"]
    export = (workdir / "estate.yml").read_text(encoding="utf-8")
    return {
        "results": norm(results),
        "log": norm(log),
        "states": [norm(json.loads(p.read_text(encoding="utf-8"))) for p in states],
        "export": norm(export),
        "raw_export": export,
        "output": runner.output,
        "raw_results": results,
        "secrets": generated_outputs(emu, name, SECRET_CODES),
        "group defaults by": {
            o["updaterLogin"]
            for o in emu.operations()
            if o["displayName"] == name + "-g" and o["operation"] == "create"
        },
    }


def test_module_and_in_process_paths_are_identical(tmp_path: Path) -> None:
    """Issue 26 (parity): results, emulator request logs, state files and the exported playbook of both paths are
    identical; warnings come out alike; the action group's module_defaults and the task's environment apply on both;
    each task took the path its mode says (-vvv); no generated secret or password reaches the output (no_log)."""
    # operations finish at once: the number of polls does not follow the clock
    with EmulatorServer(seed=26, op_duration=0.0, operation_id_offset=operation_id_offset_from_env()) as emu:
        env_token = emu.mint_token(username=ENV_USER)
        runs = {mode: run_mode(emu, tmp_path, mode, env_token) for mode in MODES}
    module, in_process = runs["module"], runs["in_process"]

    steps = [s["name"] for s in flow("x", tmp_path, "", "")]
    results = dict(zip(steps, module["raw_results"]))
    failed = {name for name, result in results.items() if result.get("failed")}
    assert failed == set(FAILING), {name: r.get("msg") for name, r in results.items()}
    assert results["no-op"]["changed"] is False and results["check and diff"]["changed"]
    assert results["check and diff"]["diff"] and results["modify with diff"]["diff"]
    assert results["module_defaults"]["exists"] is True
    assert module["secrets"] and results["secrets"]["outputs"]["secretKey"] == module["secrets"][0]  # return_secrets
    assert results["postgres user"]["changed"] and results["postgres user"]["operations"] == ["create_user"]
    assert results["export"]["tasks"] == 2 and "nubes.cloud.postgres_user:" in module["raw_export"]
    assert results["no wait"]["changed"] and results["wait for it"]["finished"] is True
    assert [o["status"] for o in results["wait for it"]["operations"]] == ["succeeded"]

    # the group's api_endpoint won over the task environment's (nothing listens there), wait_timeout came with it,
    # and the token came from the task's environment (the API recorded its user as the operation's updater)
    grouped = results["group defaults"]
    assert grouped["changed"] and grouped["operation"]["timeout"] == 321
    assert module["group defaults by"] == in_process["group defaults by"] == {ENV_USER}

    for warning in (AWX_WARNING, AWX_WARNING.replace("job 26", "job 27")):  # of a task that succeeds, that fails
        assert module["output"].count(warning) >= 1, warning
        assert in_process["output"].count(warning) == module["output"].count(warning), warning

    for part in ("results", "log", "states", "export"):
        assert in_process[part] == module[part], part

    assert module["output"].count(MODULE_MARK) == len(steps)
    assert IN_PROCESS_MARK not in module["output"]
    assert in_process["output"].count(IN_PROCESS_MARK) == len(steps)
    assert "plugins/modules/dummy.py" not in in_process["output"]  # no module file was used for a nubes task
    for run in runs.values():
        leaks = [s for s in [*run["secrets"], USER_PASSWORD] if s in run["output"]]
        assert not leaks, "a generated secret or a password reached the -vvv output"
