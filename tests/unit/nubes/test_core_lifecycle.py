"""The lifecycle decision, table-tested line by line against the seed's matrix (P20-P29) and convergence."""

from __future__ import annotations

from typing import Any, Dict, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    TWO_CHOICES,
    Situation,
    decide,
)

# (rule, situation kwargs, expected operations, expected record action, error?)
PRESENT: Tuple[Tuple[str, Dict[str, Any], Tuple[str, ...], str, bool], ...] = (
    ("P20 status missing -> create", {"status": "missing"}, ("create",), RECORD_WRITE, False),
    ("P20 status deleted -> create", {"status": "deleted"}, ("create",), RECORD_WRITE, False),
    (
        "P21 suspended + adopt + key match -> resume+adopt",
        {"status": "suspended", "adopt": True},
        ("resume",),
        RECORD_WRITE,
        False,
    ),
    (
        "P21 suspended + adopt + params differ -> resume, modify",
        {"status": "suspended", "adopt": True, "params_changed": True},
        ("resume", "modify"),
        RECORD_WRITE,
        False,
    ),
    ("P22 suspended + no adopt -> error", {"status": "suspended"}, (), RECORD_KEEP, True),
    (
        "P23 suspended + key mismatch -> error",
        {"status": "suspended", "adopt": True, "key_params_match": False},
        (),
        RECORD_KEEP,
        True,
    ),
    ("P24 running + adopt -> adopt", {"status": "running", "adopt": True}, (), RECORD_WRITE, False),
    (
        "P24 running + adopt + params differ -> adopt, modify",
        {"status": "running", "adopt": True, "params_changed": True},
        ("modify",),
        RECORD_WRITE,
        False,
    ),
    ("P25 running + no adopt -> error", {"status": "running"}, (), RECORD_KEEP, True),
    ("P26 not created -> error", {"status": "not_created", "adopt": True}, (), RECORD_KEEP, True),
    ("P27 creating -> error", {"status": "creating", "adopt": True}, (), RECORD_KEEP, True),
    ("P27 pending -> error", {"status": "pending", "adopt": True}, (), RECORD_KEEP, True),
    ("P27 failed -> error", {"status": "failed", "adopt": True}, (), RECORD_KEEP, True),
    (
        "P42 several live instances -> error",
        {"status": "running", "live_matches": 2, "adopt": True},
        (),
        RECORD_KEEP,
        True,
    ),
    ("P16 recorded running, same params -> nothing", {"status": "running", "recorded": True}, (), RECORD_KEEP, False),
    (
        "P38 recorded running, params differ -> modify",
        {"status": "running", "recorded": True, "params_changed": True},
        ("modify",),
        RECORD_WRITE,
        False,
    ),
    (
        "P14 recorded running, git_revision changed -> redeploy",
        {"status": "running", "recorded": True, "revision_changed": True},
        ("redeploy",),
        RECORD_WRITE,
        False,
    ),
    (
        "P14 both changed -> modify then redeploy",
        {"status": "running", "recorded": True, "params_changed": True, "revision_changed": True},
        ("modify", "redeploy"),
        RECORD_WRITE,
        False,
    ),
    (
        "P18 recorded, revision unchanged -> no redeploy",
        {"status": "running", "recorded": True, "revision_changed": False},
        (),
        RECORD_KEEP,
        False,
    ),
    (
        "K4b named uid that is gone -> error (never create under a named id)",
        {"status": "missing", "named_uid": True},
        (),
        RECORD_KEEP,
        True,
    ),
    (
        "P42 own create interrupted -> continue create",
        {"status": "not_created", "record_creating": True},
        ("create",),
        RECORD_WRITE,
        False,
    ),
    (
        "P42 own create finished meanwhile -> record it",
        {"status": "running", "record_creating": True},
        (),
        RECORD_WRITE,
        False,
    ),
)


@pytest.mark.parametrize(("rule", "kwargs", "ops", "record", "error"), PRESENT, ids=[row[0] for row in PRESENT])
def test_present_matrix(rule: str, kwargs: Dict[str, Any], ops: Tuple[str, ...], record: str, error: bool) -> None:
    """P20-P27, P14, P16, P18, P38: one row of the seed's matrix each."""
    decision = decide(Situation(state="present", **kwargs))
    assert decision.error is error, decision.reason
    if not error:
        assert decision.operations == ops
        assert decision.record == record
    assert decision.reason


def test_conflict_offers_exactly_two_choices() -> None:
    """P28: name exists, no adopt -> exactly the two choices."""
    for status in ("running", "suspended"):
        decision = decide(Situation(status=status, adopt=False))
        assert decision.choices == TWO_CHOICES
        assert len(decision.choices) == 2
        assert "change resource_name" in decision.choices[0]
        assert "adopt_existing_on_create=true" in decision.choices[1]
        assert decision.flag == "adopt_existing_on_create=false"


ABSENT: Tuple[Tuple[str, Dict[str, Any], Tuple[str, ...], str, bool], ...] = (
    (
        "P29 suspend_on_destroy=true -> suspend",
        {"recorded": True, "status": "running"},
        ("suspend",),
        RECORD_REMOVE,
        False,
    ),
    (
        "P29 suspend_on_destroy=false -> state only",
        {"recorded": True, "status": "running", "suspend_on_destroy": False},
        (),
        RECORD_REMOVE,
        False,
    ),
    ("P29 already suspended -> forget", {"recorded": True, "status": "suspended"}, (), RECORD_REMOVE, False),
    (
        "P29 non-suspendable -> delete",
        {"recorded": True, "status": "running", "suspendable": False},
        ("delete",),
        RECORD_REMOVE,
        False,
    ),
    (
        "P29 non-suspendable already deleted -> forget",
        {"recorded": True, "status": "deleted", "suspendable": False},
        (),
        RECORD_REMOVE,
        False,
    ),
    (
        "P29 not in state -> left alone",
        {"recorded": False, "status": "running", "live_matches": 1},
        (),
        RECORD_KEEP,
        False,
    ),
    (
        "P29 not in state but named by uid -> suspend",
        {"named_uid": True, "status": "running"},
        ("suspend",),
        RECORD_REMOVE,
        False,
    ),
    ("P29 failed instance cannot be suspended -> error", {"recorded": True, "status": "failed"}, (), RECORD_KEEP, True),
    (
        "P29 neither deletable nor suspendable -> forget",
        {"recorded": True, "status": "running", "suspendable": False, "deletable": False},
        (),
        RECORD_REMOVE,
        False,
    ),
)


@pytest.mark.parametrize(("rule", "kwargs", "ops", "record", "error"), ABSENT, ids=[row[0] for row in ABSENT])
def test_absent_matrix(rule: str, kwargs: Dict[str, Any], ops: Tuple[str, ...], record: str, error: bool) -> None:
    """P29: destroy behaviour."""
    decision = decide(Situation(state="absent", **kwargs))
    assert decision.error is error, decision.reason
    if not error:
        assert decision.operations == ops
        assert decision.record == record


def test_unmanaged_instance_is_left_alone_with_a_warning() -> None:
    """P29: an instance not in the state is left alone, with a warning when one with that name exists."""
    decision = decide(Situation(state="absent", status="missing", live_matches=1))
    assert decision.operations == () and "left alone" in decision.warning
    assert not decide(Situation(state="absent", status="missing", live_matches=0)).warning


def test_state_only_removal_names_the_flag() -> None:
    """P29/P30: the controlling flag is part of the decision."""
    decision = decide(Situation(state="absent", recorded=True, suspend_on_destroy=False))
    assert decision.flag == "suspend_on_destroy=false"
