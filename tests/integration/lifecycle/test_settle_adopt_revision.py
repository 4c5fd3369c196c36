"""An adopt never records a git_revision it did not deploy (issue 23, P14, P24). Real ansible-playbook against the
session emulator; every assertion about the cloud reads the emulator's admin API, its operation log or request log,
and the record is read from the state file."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from ansible_collections.nubes.cloud.plugins.modules import flask
from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, in_process, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

FLASK_SERVICE_ID = 89


def operation_names(emu: EmulatorServer, uid: str) -> list[str]:
    return [op["operation"] for op in emu.operations() if op["instanceUid"].lower() == uid.lower()]


def test_adopting_an_app_that_reports_no_revision_redeploys_the_tasks(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path
) -> None:
    """Issue 23 (P14, P24): a flask instance created elsewhere (another workspace's state file) without a redeploy
    reports no git revision live. Adopting it with `git_revision: v1` cannot know what runs, so the same task
    redeploys v1 (one redeploy in the operation log, the reason says why); live and record then hold v1, and the
    second run writes nothing. The old code recorded v1 without deploying it."""
    name = unique("settle-adopt-rev")
    app = {"resource_name": name, "domain": name, "resource_realm": REALM, "git_path": "https://git.example.com/a.git"}
    uid = str(in_process(emu, flask, tmp_path / "elsewhere.json", **app)["instance_uid"])
    assert not deck.instance(emu, uid)["state"]["params"].get("gitRevision")
    assert operation_names(emu, uid) == ["create"]

    adopted = playbook.one("flask", {**app, "git_revision": "v1", "adopt_existing_on_create": True})
    assert not adopted.get("failed") and adopted["operations"] == ["redeploy"], adopted.get("msg")
    assert adopted["instance_uid"].lower() == uid.lower()
    assert "reports no git_revision" in adopted["diagnostics"], adopted["diagnostics"]
    assert operation_names(emu, uid) == ["create", "redeploy"]
    assert deck.instance(emu, uid)["state"]["params"]["gitRevision"] == "v1"
    store = StateStore(FileBackend(str(playbook.state_path)), "default")
    record = store.get(ResourceRef("flask", FLASK_SERVICE_ID, "default", name))
    assert record is not None and record.git_revision == "v1"

    seq = emu.last_seq
    again = playbook.one("flask", {**app, "git_revision": "v1"})
    assert again["changed"] is False and write_calls(emu.requests(since=seq)) == [], again
    assert operation_names(emu, uid) == ["create", "redeploy"]
