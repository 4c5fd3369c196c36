"""A map param's create-only sub-key settles in one run (issue 23, P41, P23). Real ansible-playbook against the
session emulator; every assertion about the cloud reads the emulator's admin API or its request log."""

from __future__ import annotations

import json
from typing import Any

from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls


def live_tls(emu: EmulatorServer, uid: str) -> dict[str, Any]:
    """The live `tlsSettings` object of a PostgreSQL instance (the emulator holds it as an object or its JSON)."""
    value = deck.instance(emu, uid)["state"]["params"].get("tlsSettings")
    parsed = json.loads(value) if isinstance(value, str) and value else value
    return parsed if isinstance(parsed, dict) else {}


def modifies_of(emu: EmulatorServer, uid: str) -> list[dict[str, Any]]:
    return [op for op in emu.operations() if op["instanceUid"].lower() == uid.lower() and op["operation"] == "modify"]


def test_a_create_only_sub_key_settles_and_a_change_of_it_is_refused(
    emu: EmulatorServer, playbook: PlaybookRunner, s3_uids: list[str]
) -> None:
    """Issue 23 (P41, P16, P23): `tls_settings.s3_backup_uid` is in the create operation's dataDescriptor of
    `tlsSettings` only. The create sets it live; the second run is changed=false with zero writes (the old code sent
    a modify on every run). A change of `tls_settings.type` is one modify (which drops the create-only sub-key, the
    emulator replaces the object; the result warns, the diff shows it), and the next run writes nothing. A different
    `s3_backup_uid` while the live one is set is refused before any write, naming the sub-option."""
    name = unique("settle-tls")
    tls = {"type": "self-signed", "s3_backup_uid": s3_uids[1]}
    task = {"resource_name": name, "s3_uid": s3_uids[0], "resource_realm": REALM, "tls_settings": tls}
    created = playbook.one("postgres", task)
    assert not created.get("failed"), created.get("msg")
    uid = created["instance_uid"]
    assert str(live_tls(emu, uid).get("s3BackupUid", "")).lower() == s3_uids[1].lower(), live_tls(emu, uid)

    seq = emu.last_seq
    again = playbook.one("postgres", task)
    assert again["changed"] is False and write_calls(emu.requests(since=seq)) == [], again

    seq = emu.last_seq
    refused = playbook.one("postgres", {**task, "tls_settings": {**tls, "s3_backup_uid": s3_uids[0]}})
    assert refused.get("failed") and refused["changed"] is False, refused
    assert "tls_settings.s3_backup_uid" in refused["msg"] and "create-only" in refused["msg"], refused["msg"]
    assert write_calls(emu.requests(since=seq)) == []

    external = {**task, "tls_settings": {**tls, "type": "external"}}
    changed = playbook.one("postgres", external, diff=True)
    assert not changed.get("failed") and changed["operations"] == ["modify"], changed.get("msg")
    assert len(modifies_of(emu, uid)) == 1
    assert live_tls(emu, uid).get("type") == "external" and not live_tls(emu, uid).get("s3BackupUid")
    before, after = changed["diff"]["before"]["tls_settings"], changed["diff"]["after"]["tls_settings"]
    assert before.get("s3BackupUid") and "s3BackupUid" not in after, (before, after)  # the diff shows it going

    seq = emu.last_seq
    settled = playbook.one("postgres", external)
    assert settled["changed"] is False and write_calls(emu.requests(since=seq)) == [], settled
    warnings = settled.get("warnings", [])
    assert any("tls_settings.s3_backup_uid" in w and "create only" in w for w in warnings), warnings
    assert len(modifies_of(emu, uid)) == 1
