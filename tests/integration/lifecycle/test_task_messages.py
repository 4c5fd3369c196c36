"""What a user reads (issue 16): a refused task prints its message once, and a redeploy shows its git_revision
change in diff mode. Real ansible-playbook against the session emulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible_collections.nubes.cloud.plugins.modules import s3
from tests.emulator import EmulatorServer
from tests.integration.lifecycle.conftest import REALM, in_process, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("failed"), result.get("msg")
    return result


def test_refusal_prints_its_message_once(emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path) -> None:
    """P28/P30: a refused task fails with a one-line `msg` (what, which instance, why, the controlling flag, and the
    two choices in one whole sentence; issue 23) and the multi-line diagnostics once; ansible-core's error line
    repeats only the one line."""
    name = unique("msg-s3")
    uid = in_process(emu, s3, tmp_path / "elsewhere.json", resource_name=name, display_name=name, resource_realm=REALM)[
        "instance_uid"
    ]
    seq = emu.last_seq
    refused = playbook.one("s3", {"resource_name": name, "display_name": name, "resource_realm": REALM})
    assert refused.get("failed") and write_calls(emu.requests(since=seq)) == []
    msg = refused["msg"]
    assert "\n" not in msg and uid in msg and "adopt_existing_on_create=false" in msg, msg
    assert msg.endswith(
        "(adopt_existing_on_create=false). Either change resource_name to create a new resource, or import/adopt "
        "the existing one by setting adopt_existing_on_create=true and re-running the task"
    ), msg
    lines = refused["diagnostics"].splitlines()
    assert lines[0] == "nubes.cloud.s3: cannot apply" and "Choose one:" in lines
    for field in ("resource_name", "service_id", "instance_uid", "status", "status_raw", "operation_pending"):
        assert any(line.startswith(field + ": ") for line in lines), field
    printed = playbook.output
    assert printed.count("Choose one:") == 1, printed
    assert printed.count("Controlling flag: adopt_existing_on_create=false") == 1, printed
    assert printed.count("operation_in_progress: false") == 1, printed


def test_redeploy_shows_git_revision_in_diff(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P14/P18: diff mode shows git_revision: the create's, then the redeploy's change (check mode and real run),
    and nothing else changes; an unchanged revision shows no difference."""
    name = unique("msg-app")
    app = {"resource_name": name, "domain": name, "resource_realm": REALM, "git_path": "https://git.example.com/a.git"}
    created = ok(playbook.one("flask", {**app, "git_revision": "v1"}, diff=True))
    assert created["diff"]["before"] == {} and created["diff"]["after"]["git_revision"] == "v1"

    seq = emu.last_seq
    planned = ok(playbook.one("flask", {**app, "git_revision": "v2"}, check=True, diff=True))
    assert planned["changed"] and planned["operations"] == ["redeploy"] and write_calls(emu.requests(since=seq)) == []
    assert planned["diff"]["before"]["git_revision"] == "v1" and planned["diff"]["after"]["git_revision"] == "v2"
    changed = {k for k in planned["diff"]["after"] if planned["diff"]["after"][k] != planned["diff"]["before"].get(k)}
    assert changed == {"git_revision"}
    assert "-    git_revision: v1" in playbook.output and "+    git_revision: v2" in playbook.output

    redeployed = ok(playbook.one("flask", {**app, "git_revision": "v2"}, diff=True))
    assert redeployed["operations"] == ["redeploy"]
    assert redeployed["diff"]["before"]["git_revision"] == "v1" and redeployed["diff"]["after"]["git_revision"] == "v2"

    again = ok(playbook.one("flask", {**app, "git_revision": "v2"}, diff=True))
    assert not again["changed"] and again["diff"]["before"] == again["diff"]["after"]
