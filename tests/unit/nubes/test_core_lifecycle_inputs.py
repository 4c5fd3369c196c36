"""The facts that used to be decided outside `lifecycle.decide()` are its inputs now (issue 23, task steps that
return values): an identity conflict (K4a, K4b), a skipped live read (P29), this record's own operation (P27), and
a display name the API says is taken by an instance the lookup does not show (issue 14)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import diagnostics, identity
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    OWN_REPORT,
    OWN_REUSE,
    OWN_SETTLE,
    OWN_WAIT,
    RECORD_KEEP,
    RECORD_REMOVE,
    InstanceSituation,
    decide,
    own_operation_step,
    reads_live,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record

RECORDED = "AAAAAAAA-0000-0000-0000-000000000001"
OTHER = "BBBBBBBB-0000-0000-0000-000000000002"
K4B = f'cannot change resource identity (old="{RECORDED}", new="{OTHER}")'


@pytest.mark.parametrize("state", ["present", "absent", "deleted"])
def test_identity_conflict_is_refused_by_decide_with_the_seeds_words(state: str) -> None:
    """K4b: a task whose instance_uid differs from the recorded one is refused by decide(), for every state and
    before anything else (even this record's own operation in flight), and the one-line message is exactly the
    seed's `cannot change resource identity (old=..., new=...)`."""
    situation = InstanceSituation(
        state=state, identity_conflict=K4B, identity_rule="K4b", live_read=False, recorded=True, in_flight="modify"
    )
    decision = decide(situation)
    assert decision.error and decision.rule == "K4b" and decision.operations == ()
    assert decision.record == RECORD_KEEP
    assert diagnostics.summary("nubes.cloud.postgres", decision, "'db'") == K4B
    assert K4B in diagnostics.render("nubes.cloud.postgres", decision, "db", 90, None, "unknown (not read)")


def test_identity_is_resolved_to_a_value_with_its_conflict() -> None:
    """K4a/K4b: identity.resolve returns the id to use, or the conflict and its rule, for the situation (no raise)."""
    ref = identity.ResourceRef("postgres", 90, "default", "db", OTHER)
    assert identity.resolve(ref, Record(instance_uid=RECORDED)) == identity.Resolved(OTHER, K4B, "K4b")
    assert identity.resolve(ref, Record(instance_uid=OTHER.lower())) == identity.Resolved(OTHER)
    unnamed = identity.ResourceRef("postgres", 90, "default", "db")
    moved = identity.resolve(unnamed, Record(instance_uid=RECORDED, service_id=91))
    assert moved.rule == "K4a" and "immutable parent fields" in moved.conflict
    assert identity.resolve(unnamed, Record(instance_uid=RECORDED, service_id=90)) == identity.Resolved(RECORDED)
    assert identity.resolve(unnamed, None) == identity.Resolved()


def test_parent_field_conflict_is_refused_as_k4a() -> None:
    """K4a: a record of another service or workspace under the same name is refused by decide() with rule K4a."""
    conflict = identity.resolve(
        identity.ResourceRef("postgres", 90, "default", "db"), Record(instance_uid=RECORDED, workspace="prod")
    )
    decision = decide(InstanceSituation(identity_conflict=conflict.conflict, identity_rule=conflict.rule))
    assert decision.error and decision.rule == "K4a" and "workspace='prod'" in decision.reason


@pytest.mark.parametrize(
    ("kwargs", "read"),
    [
        ({"state": "absent", "suspendable": True, "suspend_on_destroy": False, "identified": True}, False),
        ({"state": "absent", "suspendable": True, "suspend_on_destroy": False, "identified": False}, True),
        ({"state": "absent", "suspendable": True, "suspend_on_destroy": True, "identified": True}, True),
        ({"state": "absent", "suspendable": False, "suspend_on_destroy": False, "identified": True}, True),
        ({"state": "deleted", "suspendable": True, "suspend_on_destroy": False, "identified": True}, True),
        ({"state": "present", "suspendable": True, "suspend_on_destroy": False, "identified": True}, True),
    ],
)
def test_only_a_forget_only_destroy_skips_the_live_read(kwargs: Dict[str, Any], read: bool) -> None:
    """P29: the live instance is not read (no API call at all) only for `absent` with suspend_on_destroy=false on a
    suspendable service, when the record or instance_uid names the instance."""
    assert reads_live(**kwargs) is read


def test_a_skipped_read_is_decided_as_forget_only() -> None:
    """P29: with `live_read=False` decide() forgets the record and starts nothing, whatever the (unread) status says;
    the decision says the instance keeps running."""
    for status in ("missing", "running", "suspended", "failed"):
        decision = decide(InstanceSituation(state="absent", status=status, recorded=True, live_read=False))
        assert not decision.error and decision.operations == () and decision.record == RECORD_REMOVE
        assert decision.rule == "P29" and "keeps running" in decision.warning


@pytest.mark.parametrize(
    ("started", "finished", "wait", "step"),
    [
        (False, False, True, OWN_REUSE),
        (False, False, False, OWN_REUSE),
        (True, False, True, OWN_WAIT),
        (True, False, False, OWN_REPORT),
        (True, True, True, OWN_SETTLE),
        (True, True, False, OWN_SETTLE),
    ],
)
def test_own_operation_step(started: bool, finished: bool, wait: bool, step: str) -> None:
    """P27: this record's own operation is reused when it never started, waited for (wait=true) or reported in
    flight (wait=false) while it runs, and settled once it finished."""
    assert own_operation_step(started, finished, wait) == step


def test_own_operation_in_flight_and_a_busy_instance_are_inputs() -> None:
    """P27: the record's own operation still running (wait=false) is reported and nothing is started; an operation
    this task did not start makes the instance busy, an error at once naming what to do."""
    reported = decide(InstanceSituation(status="running", recorded=True, busy=True, in_flight="modify"))
    assert reported.in_flight and reported.operations == () and not reported.error
    refused = decide(InstanceSituation(status="running", recorded=True, busy=True))
    assert refused.error and refused.rule == "P27" and "Wait for it" in refused.reason


HOLDER = "CCCCCCCC-0000-0000-0000-000000000003"
NAME_TAKEN = (
    f"the API refuses resource_name: the display name is taken by {HOLDER}, which the lookup by name does not show; "
    "adopt it by instance_uid with adopt_existing_on_create=true, or choose another resource_name"
)


@pytest.mark.parametrize("adopt", [False, True])
def test_a_name_the_api_says_is_taken_is_refused_by_decide(adopt: bool) -> None:
    """Issue 14, P28: a create the API refused for a live holder of the display name, which the lookup by name
    (looked again) does not show, is refused by decide() with or without adopt_existing_on_create: the one-line
    message names the holder and both ways on, the diagnostics the two choices and the flag, and nothing is sent
    again. Without that fact the same situation creates (P20); a holder the lookup shows is the matrix's (P24/P25)."""
    taken = InstanceSituation(status="missing", adopt=adopt, name_taken_by=(HOLDER,))
    decision = decide(taken)
    assert decision.error and decision.operations == () and decision.record == RECORD_KEEP and decision.rule == "P28"
    assert diagnostics.summary("nubes.cloud.s3", decision, "'b9'") == NAME_TAKEN
    rendered = diagnostics.render("nubes.cloud.s3", decision, "b9", 12, None, "missing")
    assert f"Controlling flag: adopt_existing_on_create={'true' if adopt else 'false'}" in rendered
    assert len(decision.choices) == 2 and HOLDER in decision.choices[1]
    assert decide(replace(taken, name_taken_by=())).operations == ("create",)
    shown = replace(taken, status="running", live_matches=1, live_uids=(HOLDER,))
    assert decide(shown).rule == ("P24" if adopt else "P25")
