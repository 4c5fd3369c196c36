"""The API's placeholder defaults are never applied (issue 23, "Placeholders"). Real ansible-playbook against the
session emulator; every assertion about the cloud reads the emulator's admin API or its request log."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

PLACEHOLDER_ENV = {"param": "value"}  # flask and lucee: the API's jsonEnv default, `{ "param": "value" }`


def parsed(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) and value.strip() else value


def sent_values(emu: EmulatorServer, uid: str, operation: str) -> dict[str, Any]:
    """The values the last `operation` of the instance received, as the emulator recorded them."""
    ops = [o for o in emu.operations() if o["instanceUid"].lower() == uid.lower() and o["operation"] == operation]
    return {p["svcOperationCfsParam"]: p["paramValue"] for p in ops[-1]["cfsParams"] if p["paramValue"] is not None}


@pytest.mark.parametrize("module", ["flask", "lucee"])
def test_an_app_created_without_json_env_never_gets_the_placeholder(
    emu: EmulatorServer, playbook: PlaybookRunner, module: str
) -> None:
    """Issue 23 (placeholders; P35, P38): an app created without `json_env` does not get the API's placeholder
    `{ "param": "value" }`: the create sends the empty object (the type's zero value, P35), so the live jsonEnv
    is not the placeholder; the second run is changed=false with zero writes."""
    name = unique(f"ph-{module}")
    app = {"resource_name": name, "domain": name, "resource_realm": REALM, "git_path": "https://git.example.com/a.git"}
    created = playbook.one(module, app)
    assert not created.get("failed"), created.get("msg")
    uid = created["instance_uid"]
    assert parsed(sent_values(emu, uid, "create").get("jsonEnv")) == {}
    live = deck.instance(emu, uid)["state"]["params"]
    assert parsed(live.get("jsonEnv")) != PLACEHOLDER_ENV, live
    seq = emu.last_seq
    again = playbook.one(module, app)
    assert not again.get("failed") and again["changed"] is False, again
    assert write_calls(emu.requests(since=seq)) == []


def test_a_json_env_set_elsewhere_is_kept_and_never_replaced_by_the_placeholder(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Issue 23 (placeholders; P35, P38): a live jsonEnv that came from somewhere else is no drift for a task that
    leaves `json_env` out (changed=false, zero writes), and flask's modify, which requires jsonEnv, sends the live
    value, never the placeholder."""
    name = unique("ph-flask-live")
    app = {"resource_name": name, "domain": name, "resource_realm": REALM, "git_path": "https://git.example.com/a.git"}
    uid = playbook.one("flask", app)["instance_uid"]
    assert parsed(deck.instance(emu, uid)["state"]["params"].get("jsonEnv")) != PLACEHOLDER_ENV
    emu.platform_change(uid, {"jsonEnv": {"LOG_LEVEL": "debug"}})
    seq = emu.last_seq
    kept = playbook.one("flask", app)
    assert not kept.get("failed") and kept["changed"] is False, kept
    assert write_calls(emu.requests(since=seq)) == []
    modified = playbook.one("flask", {**app, "resource_cpu": 400})
    assert modified["operations"] == ["modify"], modified.get("msg")
    assert parsed(sent_values(emu, uid, "modify")["jsonEnv"]) == {"LOG_LEVEL": "debug"}
    assert parsed(deck.instance(emu, uid)["state"]["params"]["jsonEnv"]) == {"LOG_LEVEL": "debug"}
