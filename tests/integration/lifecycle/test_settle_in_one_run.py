"""One run settles, and the result tells the truth about what it wrote (issue 23). Real ansible-playbook against
the session emulator; every assertion about the cloud reads the emulator's admin API or its request log."""

from __future__ import annotations

from typing import Any

from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, unique
from tests.integration.modules.playbook import PlaybookRunner, write_calls

S3_SERVICE_ID = 12


def s3_task(name: str, **extra: Any) -> dict[str, Any]:
    return {"resource_name": name, "display_name": name, "resource_realm": REALM, **extra}


def test_a_create_past_wait_timeout_fails_with_changed_true(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Ansible's convention: a task that wrote to the cloud reports changed=true, also when it then fails. A create
    whose operation outlives wait_timeout created an instance (the emulator lists it), so the failed result says
    changed; the next run waits for the same operation and creates nothing more."""
    name = unique("settle-timeout")
    emu.configure(durations={"s3.create": 4})
    seq = emu.last_seq
    timed_out = playbook.one("s3", s3_task(name, wait_timeout=1))
    assert timed_out.get("failed"), timed_out
    assert timed_out["changed"] is True, timed_out
    assert write_calls(emu.requests(since=seq)), "the create was sent"
    assert len(deck.live_named(emu, S3_SERVICE_ID, name)) == 1
    settled = playbook.one("s3", s3_task(name))
    assert not settled.get("failed"), settled.get("msg")
    (live,) = deck.live_named(emu, S3_SERVICE_ID, name)  # the same instance, not a second one
    assert live["instanceUid"].lower() == settled["instance_uid"].lower()
    assert deck.instance(emu, live["instanceUid"])["explainedStatus"] == "running"


def test_a_task_refused_before_any_write_fails_with_changed_false(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """The other side of the convention: bad input fails before any write, and the result says changed=false."""
    seq = emu.last_seq
    refused = playbook.one("s3_bucket", {"resource_name": unique("settle-bad"), "bucket_name": "", "s3_user_uid": ""})
    assert refused.get("failed") and refused["changed"] is False, refused
    assert write_calls(emu.requests(since=seq)) == []
