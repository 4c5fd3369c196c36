"""Diagnostics format (P30) and the conflict choices (P28)."""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.diagnostics import DETAIL_FIELDS, render, summary
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import InstanceSituation as Situation
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import decide
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance

UID = "AAAAAAAA-0000-0000-0000-000000000001"


def test_diagnostics_layout() -> None:
    """P30: multiline, reason and controlling flag in the body, then one line per detail field in order."""
    instance = Instance({"instanceUid": UID, "explainedStatus": "Running", "operationIsPending": True})
    decision = decide(Situation(status="running", adopt=False))
    text = render("nubes.cloud.postgres", decision, "db1", 90, instance, "running")
    lines = text.splitlines()
    assert lines[0] == "nubes.cloud.postgres: cannot apply"
    assert lines[1].startswith("Reason: an instance with this resource_name already exists")
    assert "Controlling flag: adopt_existing_on_create=false" in lines
    assert lines[-7:] == [
        "resource_name: db1",
        "service_id: 90",
        "instance_uid: " + UID,
        "status: running",
        "status_raw: Running",
        "operation_pending: true",
        "operation_in_progress: false",
    ]
    assert [line.split(":")[0] for line in lines[-7:]] == list(DETAIL_FIELDS)


def test_conflict_diagnostics_offer_two_choices() -> None:
    """P28: exactly two numbered choices: change resource_name, or adopt and re-run."""
    decision = decide(Situation(status="suspended", adopt=False))
    text = render("nubes.cloud.redis", decision, "cache", 91, None, "suspended")
    numbered = [line.strip() for line in text.splitlines() if line.strip()[:2] in ("1.", "2.", "3.")]
    assert numbered == [
        "1. change resource_name to create a new resource;",
        "2. import/adopt the existing one by setting adopt_existing_on_create=true and re-running the task;",
    ]


def test_diagnostics_without_instance() -> None:
    """P30: fields are printed even when there is no instance yet."""
    text = render("nubes.cloud.s3", decide(Situation(status="missing")), "b", 12, None, "missing")
    assert "instance_uid: \n" in text and text.endswith("operation_in_progress: false")
    assert "decision: create" in text.splitlines()[0]


def test_refusal_summary_is_one_line_naming_target_reason_and_flag() -> None:
    """P30/P28: a refused task's msg is one line (target, reason, flag, and the two choices in one sentence); the
    multi-line text stays in the diagnostics only."""
    decision = decide(Situation(status="running", adopt=False))
    text = summary("nubes.cloud.postgres", decision, "'db1' (instance_uid " + UID + ")")
    assert "\n" not in text
    assert text.startswith("nubes.cloud.postgres: cannot apply to 'db1' (instance_uid " + UID + "): an instance")
    assert "(adopt_existing_on_create=false)" in text
    assert text.endswith(
        ". Either change resource_name to create a new resource, or import/adopt the existing one by setting "
        "adopt_existing_on_create=true and re-running the task"
    )
    busy = summary("nubes.cloud.redis", decide(Situation(status="running", busy=True, recorded=True)), "'c'")
    assert busy.endswith("See the diagnostics for the details")
