"""The lifecycle decision, table-tested one row per rule: the seed's matrix (P20-P29), key params (P23),
typed identity (K4a, K4b), convergence (P14, P16, P18, P38), busy instances (P27), real deletion
(`state: deleted`) and the sub-resource rules (P13, P17, P28)."""

from __future__ import annotations

from typing import Any, Dict, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import (
    DELETE_PLACEHOLDER,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    TWO_CHOICES,
    InstanceSituation,
    SubSituation,
    decide,
)

Row = Tuple[str, Dict[str, Any], Tuple[str, ...], str, bool]
CHANGED = {"changed": ("resourceCPU",)}
KEY = {"key_mismatches": ("s3Uid",)}

PRESENT: Tuple[Row, ...] = (
    ("P20 status missing -> create", {"status": "missing"}, ("create",), RECORD_WRITE, False),
    ("P20 status deleted -> create", {"status": "deleted"}, ("create",), RECORD_WRITE, False),
    (
        "P20 recorded and deleted -> create anew",
        {"status": "deleted", "lost_uid": "U1"},
        ("create",),
        RECORD_WRITE,
        False,
    ),
    (
        "P21 suspended + adopt + key match -> resume+adopt",
        {"status": "suspended", "adopt": True},
        ("resume",),
        RECORD_WRITE,
        False,
    ),
    (
        "P21 suspended + adopt + params differ -> resume, modify in the same run",
        {"status": "suspended", "adopt": True, **CHANGED},
        ("resume", "modify"),
        RECORD_WRITE,
        False,
    ),
    ("P22 suspended + no adopt -> error", {"status": "suspended"}, (), RECORD_KEEP, True),
    ("P23 suspended + key mismatch -> error", {"status": "suspended", "adopt": True, **KEY}, (), RECORD_KEEP, True),
    ("P23 running + adopt + key mismatch -> error", {"status": "running", "adopt": True, **KEY}, (), RECORD_KEEP, True),
    ("P23 recorded + key mismatch -> error", {"status": "running", "recorded": True, **KEY}, (), RECORD_KEEP, True),
    ("P24 running + adopt -> adopt", {"status": "running", "adopt": True}, (), RECORD_WRITE, False),
    (
        "P24 running + adopt + params differ -> adopt, modify in the same run",
        {"status": "running", "adopt": True, **CHANGED},
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
        "P27 recorded but busy (another task's operation) -> error",
        {"status": "running", "recorded": True, "busy": True},
        (),
        RECORD_KEEP,
        True,
    ),
    (
        "P42 several live instances -> error",
        {"status": "running", "live_matches": 2, "adopt": True},
        (),
        RECORD_KEEP,
        True,
    ),
    ("P16 recorded running, same params -> nothing", {"status": "running", "recorded": True}, (), RECORD_KEEP, False),
    (
        "P38 recorded running, live params differ -> modify",
        {"status": "running", "recorded": True, **CHANGED},
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
        {"status": "running", "recorded": True, "revision_changed": True, **CHANGED},
        ("modify", "redeploy"),
        RECORD_WRITE,
        False,
    ),
    (
        "P16 recorded, revision unchanged -> no redeploy (P18)",
        {"status": "running", "recorded": True},
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
        "K4a an instance of another service -> error",
        {"status": "running", "adopt": True, "foreign_service": "s3 (service 12)"},
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
    """P20, P21, P22, P23, P24, P25, P26, P27, P14, P16, P18, P38, P42, K4a, K4b: one row of the matrix each."""
    decision = decide(InstanceSituation(state="present", **kwargs))
    assert decision.error is error, decision.reason
    assert decision.rule == rule.split()[0]
    if not error:
        assert decision.operations == ops
        assert decision.record == record
    assert decision.reason


def test_conflict_offers_exactly_two_choices() -> None:
    """P28: name exists, no adopt -> exactly the two choices."""
    for status in ("running", "suspended"):
        decision = decide(InstanceSituation(status=status, adopt=False))
        assert decision.choices == TWO_CHOICES
        assert "change resource_name" in decision.choices[0]
        assert "adopt_existing_on_create=true" in decision.choices[1]
        assert decision.flag == "adopt_existing_on_create=false"


def test_acquiring_by_uid_without_the_flag_names_the_uid_not_the_name() -> None:
    """P25/P28 with instance_uid alone (KCC's acquire): the choices are about the uid, not resource_name."""
    decision = decide(InstanceSituation(status="running", named_uid=True))
    assert decision.error and len(decision.choices) == 2
    assert "instance_uid" in decision.choices[0] and "adopt_existing_on_create=true" in decision.choices[1]
    assert not any("resource_name" in choice for choice in decision.choices)


def test_recreating_a_lost_instance_warns_with_its_uid() -> None:
    """P20: a recorded instance that is missing or deleted is created anew, with a warning naming the old uid."""
    decision = decide(InstanceSituation(status="deleted", lost_uid="AAAA-OLD"))
    assert decision.operations == ("create",) and "AAAA-OLD" in decision.warning


def test_foreign_service_names_both_services() -> None:
    """K4a: the error names the other service (the situation carries both)."""
    decision = decide(InstanceSituation(status="running", foreign_service="s3 (service 12), not postgres (service 90)"))
    assert decision.error and "s3 (service 12)" in decision.reason and "postgres (service 90)" in decision.reason


ABSENT: Tuple[Row, ...] = (
    (
        "P29 suspend_on_destroy=true -> suspend",
        {"recorded": True, "status": "running"},
        ("suspend",),
        RECORD_REMOVE,
        False,
    ),
    (
        "P29 suspend_on_destroy=false -> state only",
        {"recorded": True, "status": "missing", "suspend_on_destroy": False},
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
    ("P29 not in state -> left alone", {"status": "missing", "live_matches": 1}, (), RECORD_KEEP, False),
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
    ("P27 busy -> error", {"recorded": True, "status": "running", "busy": True}, (), RECORD_KEEP, True),
    (
        "P26 own placeholder without a delete operation -> removed",
        {"record_creating": True, "status": "not_created", "available": ("create",)},
        (DELETE_PLACEHOLDER,),
        RECORD_REMOVE,
        False,
    ),
    (
        "P26 placeholder the API can delete -> delete operation",
        {"recorded": True, "status": "not_created", "available": ("create", "delete")},
        ("delete",),
        RECORD_REMOVE,
        False,
    ),
    (
        "K4a named uid of another service -> error",
        {"named_uid": True, "status": "running", "foreign_service": "s3"},
        (),
        RECORD_KEEP,
        True,
    ),
)


@pytest.mark.parametrize(("rule", "kwargs", "ops", "record", "error"), ABSENT, ids=[row[0] for row in ABSENT])
def test_absent_matrix(rule: str, kwargs: Dict[str, Any], ops: Tuple[str, ...], record: str, error: bool) -> None:
    """P29: destroy behaviour (suspend, or forget only), placeholders (P26), busy (P27), identity (K4a)."""
    decision = decide(InstanceSituation(state="absent", **kwargs))
    assert decision.error is error, decision.reason
    assert decision.rule == rule.split()[0]
    if not error:
        assert decision.operations == ops
        assert decision.record == record


DELETED: Tuple[Row, ...] = (
    ("P12 running -> delete", {"recorded": True, "status": "running"}, ("delete",), RECORD_REMOVE, False),
    ("P12 suspended -> delete", {"recorded": True, "status": "suspended"}, ("delete",), RECORD_REMOVE, False),
    (
        "P12 failed create -> delete",
        {"recorded": True, "status": "failed", "available": ("delete",)},
        ("delete",),
        RECORD_REMOVE,
        False,
    ),
    (
        "P26 placeholder -> removed",
        {"record_creating": True, "status": "not_created", "available": ("create",)},
        (DELETE_PLACEHOLDER,),
        RECORD_REMOVE,
        False,
    ),
    ("P29 already deleted -> forget", {"recorded": True, "status": "deleted"}, (), RECORD_REMOVE, False),
    ("P12 not deletable -> error", {"recorded": True, "status": "running", "deletable": False}, (), RECORD_KEEP, True),
    ("P27 busy -> error", {"recorded": True, "status": "running", "busy": True}, (), RECORD_KEEP, True),
    ("P29 not in state -> left alone", {"status": "missing", "live_matches": 1}, (), RECORD_KEEP, False),
    ("P12 named by uid -> delete", {"named_uid": True, "status": "running"}, ("delete",), RECORD_REMOVE, False),
)


@pytest.mark.parametrize(("rule", "kwargs", "ops", "record", "error"), DELETED, ids=[row[0] for row in DELETED])
def test_deleted_matrix(rule: str, kwargs: Dict[str, Any], ops: Tuple[str, ...], record: str, error: bool) -> None:
    """P12 state=deleted (beyond the seed): the API's delete operation, whatever suspend_on_destroy says; a
    placeholder is removed (P26); busy is an error (P27); already gone is forgotten (P29)."""
    decision = decide(InstanceSituation(state="deleted", suspend_on_destroy=False, **kwargs))
    assert decision.error is error, decision.reason
    assert decision.rule == rule.split()[0]
    if not error:
        assert decision.operations == ops
        assert decision.record == record


def test_unmanaged_instance_is_left_alone_with_a_warning() -> None:
    """P29: an instance not in the state is left alone, with a warning when one with that name exists."""
    decision = decide(InstanceSituation(state="absent", status="missing", live_matches=1))
    assert decision.operations == () and "left alone" in decision.warning
    assert not decide(InstanceSituation(state="absent", status="missing", live_matches=0)).warning


def test_state_only_removal_names_the_flag_and_warns() -> None:
    """P29/P30: the controlling flag is part of the decision; forgetting warns that the instance keeps running."""
    decision = decide(InstanceSituation(state="absent", recorded=True, suspend_on_destroy=False))
    assert decision.flag == "suspend_on_destroy=false" and decision.action == "forget"
    assert "keeps running" in decision.warning and "state=deleted" in decision.warning


def sub(**kwargs: Any) -> SubSituation:
    base: Dict[str, Any] = {
        "sub": "user",
        "key_option": "username",
        "create": "create_user",
        "modify": "modify_user",
        "delete": "delete_user",
    }
    base.update(kwargs)
    return SubSituation(**base)


SUB: Tuple[Row, ...] = (
    ("P13 missing -> create", {}, ("create_user",), RECORD_WRITE, False),
    ("P17 recorded, same -> nothing", {"exists": True, "recorded": True}, (), RECORD_KEEP, False),
    (
        "P17 recorded, differs -> modify",
        {"exists": True, "recorded": True, "changed": ("role",)},
        ("modify_user",),
        RECORD_WRITE,
        False,
    ),
    ("P28 exists, not recorded, no adopt -> error", {"exists": True}, (), RECORD_KEEP, True),
    ("P13 exists + adopt -> adopt", {"exists": True, "adopt": True}, (), RECORD_WRITE, False),
    (
        "P17 adopt + differs -> modify in the same run",
        {"exists": True, "adopt": True, "changed": ("password",)},
        ("modify_user",),
        RECORD_WRITE,
        False,
    ),
    (
        "P13 no modify operation -> error",
        {"exists": True, "recorded": True, "changed": ("x",), "modify": None},
        (),
        RECORD_KEEP,
        True,
    ),
    (
        "P23 create-only param differs -> error",
        {"exists": True, "recorded": True, "key_mismatches": ("encoding",)},
        (),
        RECORD_KEEP,
        True,
    ),
    ("P13 parent gone -> error", {"parent_status": "deleted"}, (), RECORD_KEEP, True),
    (
        "K4a parent of another service -> error",
        {"foreign_service": "s3 (service 12)", "exists": True},
        (),
        RECORD_KEEP,
        True,
    ),
    ("P27 parent busy -> error", {"parent_busy": True}, (), RECORD_KEEP, True),
    ("P27 parent suspended -> error", {"parent_status": "suspended"}, (), RECORD_KEEP, True),
    (
        "P13 absent, exists -> delete",
        {"state": "absent", "exists": True, "recorded": True},
        ("delete_user",),
        RECORD_REMOVE,
        False,
    ),
    ("P17 absent, missing -> forget", {"state": "absent", "recorded": True}, (), RECORD_REMOVE, False),
    (
        "P17 absent, parent gone -> forget",
        {"state": "absent", "recorded": True, "parent_status": "missing"},
        (),
        RECORD_REMOVE,
        False,
    ),
    (
        "P13 check mode, parent would be created first -> create",
        {"parent_status": "missing", "parent_pending": True},
        ("create_user",),
        RECORD_WRITE,
        False,
    ),
    (
        "P13 check mode, absent, parent not created yet -> nothing",
        {"state": "absent", "parent_status": "missing", "parent_pending": True},
        (),
        RECORD_KEEP,
        False,
    ),
)


@pytest.mark.parametrize(("rule", "kwargs", "ops", "record", "error"), SUB, ids=[row[0] for row in SUB])
def test_subresource_matrix(rule: str, kwargs: Dict[str, Any], ops: Tuple[str, ...], record: str, error: bool) -> None:
    """P13/P17/P23/P27/P28, K4a: sub-resources go through decide() too."""
    decision = decide(sub(**kwargs))
    assert decision.error is error, decision.reason
    assert decision.rule == rule.split()[0]
    if not error:
        assert decision.operations == ops
        assert decision.record == record


def test_subresource_conflict_offers_two_choices() -> None:
    """P28 for sub-resources: change the key, or adopt."""
    decision = decide(sub(exists=True))
    assert decision.choices[0] == "change username to create a new user"
    assert "adopt_existing_on_create=true" in decision.choices[1]


JOB = "AWX/Controller job 7"


def test_lost_record_in_an_awx_job_is_refused_with_the_way_on() -> None:
    """P29/P25/P28 in an AWX/Controller job whose file state dies with its pod (issue 16): a live instance without
    a record is not quietly "not ours" on destroy but an error naming the uid, and every "not managed by this
    state" refusal points at state_backend: kubernetes; a recorded instance is decided as anywhere else."""
    destroy = decide(InstanceSituation(state="absent", live_matches=1, live_uids=("U1",), ephemeral_state=JOB))
    assert destroy.error and "U1" in destroy.reason and JOB in destroy.reason
    assert "state_backend: kubernetes" in destroy.reason and "instance_uid" in destroy.reason
    present = decide(InstanceSituation(status="running", ephemeral_state=JOB))
    assert present.error and present.choices == TWO_CHOICES and "state_backend: kubernetes" in present.reason
    subresource = decide(sub(exists=True, ephemeral_state=JOB))
    assert subresource.error and "state_backend: kubernetes" in subresource.reason
    recorded = decide(InstanceSituation(status="running", recorded=True, ephemeral_state=JOB))
    assert not recorded.error and recorded.operations == ()
    elsewhere = decide(InstanceSituation(state="absent", live_matches=1, live_uids=("U1",)))
    assert not elsewhere.error and elsewhere.warning
