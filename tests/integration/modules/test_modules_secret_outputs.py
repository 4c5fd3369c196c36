"""Secret outputs are opt-in (issue 16): the S3 secret key and the PostgreSQL admin password reach a registered
result only with `return_secrets: true` on a `no_log` task, and never the output (at -vvvv, with --diff), the state
file or the state lock names. Real ansible-playbook against the emulator; the secrets are read from the emulator's
admin API, not from the module."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, api_gets, write_calls

REALM = "k8s-3.ext.nubes.ru"
pytestmark = pytest.mark.slow


def live_out(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    inst = next(i for i in emu.instances() if i["instanceUid"].lower() == uid.lower())
    out: dict[str, Any] = inst["state"]["out"]
    return out


def test_secret_outputs_only_with_return_secrets_and_no_log(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Without the opt-in nothing changes (no secret in the result); with it, a no_log task's registered result
    holds the secret outputs of s3 and postgres (instance and info modules), and nothing else does."""
    name = f"sec-{uuid.uuid4().hex[:8]}"
    s3 = {"resource_name": name, "display_name": name, "resource_realm": REALM}
    pg = {"resource_name": f"{name}-pg", "s3_uid": "{{ r0.instance_uid }}", "resource_realm": REALM}
    playbook.options = ("-vvvv",)
    results = playbook.run(
        [
            {"name": "s3", "nubes.cloud.s3": s3},
            {"name": "postgres", "nubes.cloud.postgres": pg},
            {"name": "s3 keys", "nubes.cloud.s3_info": {"resource_name": name, "return_secrets": True}, "no_log": True},
            {
                "name": "postgres admin password (and a modify, in diff mode)",
                "nubes.cloud.postgres": {**pg, "resource_cpu": 1000, "return_secrets": True},
                "no_log": True,
            },
            {"name": "listed with secrets", "nubes.cloud.postgres_info": {"return_secrets": True}, "no_log": True},
            {"name": "s3 again, without the opt-in", "nubes.cloud.s3_info": {"resource_name": name}},
        ],
        diff=True,
    )
    failed = [(i, r.get("msg")) for i, r in enumerate(results) if r.get("failed")]
    assert not failed, failed
    s3_out, pg_out = live_out(emu, results[0]["instance_uid"]), live_out(emu, results[1]["instance_uid"])
    secrets = {"secretKey": s3_out["secretKey"], "adminPass": pg_out["adminPass"], "standbyPass": pg_out["standbyPass"]}
    assert all(len(value) >= 8 for value in secrets.values())

    assert "secretKey" not in results[0]["outputs"] and "adminPass" not in results[1]["outputs"]  # no opt-in
    assert results[2]["outputs"]["secretKey"] == secrets["secretKey"]
    assert results[2]["outputs"]["accessKey"] == s3_out["accessKey"]  # the pair is usable
    assert results[3]["changed"] and results[3]["operations"] == ["modify"]
    assert results[3]["outputs"]["adminPass"] == secrets["adminPass"]
    assert results[3]["instance"]["outputs"]["standbyPass"] == secrets["standbyPass"]
    listed = {i["instance_uid"]: i for i in results[4]["instances"]}
    assert listed[results[1]["instance_uid"]]["outputs"]["adminPass"] == secrets["adminPass"]
    assert "secretKey" not in results[5]["outputs"]

    state = playbook.state_path
    places = {
        "output at -vvvv with --diff": playbook.output,
        "state file": state.read_text(encoding="utf-8"),
        "state lock names": " ".join(p.name for p in state.parent.rglob("*")),
        "results without the opt-in": str([results[i] for i in (0, 1, 5)]),
        "diff of the modify": str(results[3]["diff"]),
    }
    assert len(playbook.output) > 10_000  # -vvvv really was verbose
    leaks = [(code, where) for code, value in secrets.items() for where, text in places.items() if value in text]
    assert not leaks, leaks


def test_return_secrets_without_no_log_is_refused_before_any_call(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """The opt-in on a task without no_log fails with the way on, before any API call."""
    seq = emu.last_seq
    refused = playbook.one("s3_info", {"resource_name": "anything", "return_secrets": True})
    assert refused.get("failed") and "no_log: true" in refused["msg"], refused
    log = emu.requests(since=seq)
    assert write_calls(log) == [] and api_gets(log) == []


def test_return_secrets_in_an_async_task_is_refused_before_any_call(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 24: an async task would write the secret outputs in clear to the async job file on the managed host,
    out of reach of the sealing action plugin: the task is refused, naming async and the way on, before any API
    call. Without return_secrets the same async task still runs."""
    name = f"async-{uuid.uuid4().hex[:8]}"
    info: dict[str, Any] = {"resource_name": name}
    seq = emu.last_seq
    refused = playbook.run(
        [
            {
                "name": "s3 keys in async",
                "nubes.cloud.s3_info": {**info, "return_secrets": True},
                "no_log": True,
                "async": 60,
                "poll": 1,
            }
        ]
    )[0]
    assert refused.get("failed") and "async" in refused["msg"] and "wait: false" in refused["msg"], refused
    assert emu.requests(since=seq) == []
    allowed = playbook.run([{"name": "s3 in async", "nubes.cloud.s3_info": info, "async": 60, "poll": 1}])[0]
    assert not allowed.get("failed") and allowed["exists"] is False, allowed
    assert len(api_gets(emu.requests(since=seq))) >= 1
