# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lifecycle decision as a pure function (no I/O): the seed's matrix (P20-P29) and convergence.

Inputs describe what the runner found; the output names the operations to run, what to do with the
record, and why (for diagnostics, P30). "Key params" are the params marked `immutable` in the spec.
"""

from __future__ import annotations

from typing import Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    CREATING,
    DELETED,
    FAILED,
    MISSING,
    NOT_CREATED,
    PENDING,
    RUNNING,
    SUSPENDED,
)

TWO_CHOICES = (
    "change resource_name to create a new resource",
    "import/adopt the existing one by setting adopt_existing_on_create=true and re-running the task",
)

RECORD_KEEP = "keep"
RECORD_WRITE = "write"
RECORD_REMOVE = "remove"


class Situation:
    """What the runner knows when it decides."""

    def __init__(
        self,
        state: str = "present",
        status: str = MISSING,
        recorded: bool = False,
        record_creating: bool = False,
        live_matches: int = 0,
        adopt: bool = False,
        key_params_match: bool = True,
        params_changed: bool = False,
        revision_changed: bool = False,
        suspendable: bool = True,
        deletable: bool = True,
        suspend_on_destroy: bool = True,
        named_uid: bool = False,
        live_uids: Tuple[str, ...] = (),
    ) -> None:
        self.state = state
        self.status = status
        self.recorded = recorded
        self.record_creating = record_creating
        self.live_matches = live_matches
        self.adopt = adopt
        self.key_params_match = key_params_match
        self.params_changed = params_changed
        self.revision_changed = revision_changed
        self.suspendable = suspendable
        self.deletable = deletable
        self.suspend_on_destroy = suspend_on_destroy
        self.named_uid = named_uid
        self.live_uids = live_uids


class Decision:
    """operations to run (in order), the record action, and the reason / controlling flag."""

    def __init__(
        self,
        operations: Tuple[str, ...] = (),
        record: str = RECORD_KEEP,
        reason: str = "",
        flag: Optional[str] = None,
        error: bool = False,
        choices: Tuple[str, ...] = (),
        warning: str = "",
        rule: str = "",
    ) -> None:
        self.operations = operations
        self.record = record
        self.reason = reason
        self.flag = flag
        self.error = error
        self.choices = choices
        self.warning = warning
        self.rule = rule

    @property
    def action(self) -> str:
        if self.error:
            return "error"
        if self.operations:
            return "+".join(self.operations)
        return {RECORD_WRITE: "adopt", RECORD_REMOVE: "forget"}.get(self.record, "none")

    def __repr__(self) -> str:
        return f"Decision({self.action}, record={self.record}, rule={self.rule})"


def _flag(name: str, value: bool) -> str:
    return "{}={}".format(name, "true" if value else "false")


def _converge(s: Situation) -> Tuple[str, ...]:
    """modify when params differ (P38), redeploy when git_revision changed (P14/P18)."""
    ops: Tuple[str, ...] = ()
    if s.params_changed:
        ops += ("modify",)
    if s.revision_changed:
        ops += ("redeploy",)
    return ops


def decide(s: Situation) -> Decision:
    return decide_present(s) if s.state == "present" else decide_absent(s)


def decide_present(s: Situation) -> Decision:
    adopt_flag = _flag("adopt_existing_on_create", s.adopt)
    if s.live_matches > 1:
        return Decision(
            error=True,
            reason=f"{s.live_matches} live instances have this resource_name"
            + (f" ({', '.join(s.live_uids)})" if s.live_uids else "")
            + "; it is ambiguous which one the task means. Delete the extra ones in the Cloud Console, or name one "
            "with instance_uid",
            rule="P42",
        )
    if s.status in (MISSING, DELETED):
        if s.named_uid:
            return Decision(
                error=True,
                reason="the instance named by instance_uid is %s; remove instance_uid from the task to create a new "
                "one" % ("deleted" if s.status == DELETED else "not found"),
                rule="K4b",
            )
        return Decision(("create",), RECORD_WRITE, "no live instance has this resource_name: create it", rule="P20")
    if s.record_creating and s.status in (NOT_CREATED, CREATING):
        return Decision(("create",), RECORD_WRITE, "this task's earlier create did not finish: continue it", rule="P42")
    if s.record_creating and s.status == RUNNING:
        return Decision(
            _converge(s),
            RECORD_WRITE,
            "this task's earlier create finished after the run stopped: record it",
            rule="P42",
        )
    if s.status == SUSPENDED:
        if not s.adopt:
            return Decision(
                error=True,
                reason="the instance is suspended; resuming it requires adopt_existing_on_create=true",
                flag=adopt_flag,
                choices=TWO_CHOICES,
                rule="P22",
            )
        if not s.key_params_match:
            return Decision(
                error=True,
                reason="the instance is suspended but its key (create-only) params differ from the task; it cannot be "
                "resumed as this resource. Change resource_name, or make the key params match",
                flag=adopt_flag,
                rule="P23",
            )
        return Decision(
            ("resume", *_converge(s)),
            RECORD_WRITE,
            "the instance is suspended and the key params match: resume and adopt it",
            flag=adopt_flag,
            rule="P21",
        )
    if s.status == RUNNING:
        if s.recorded:
            ops = _converge(s)
            if not ops:
                return Decision((), RECORD_KEEP, "the recorded instance is running and matches the task", rule="P16")
            return Decision(ops, RECORD_WRITE, "the recorded instance differs from the task", rule="P38")
        if not s.adopt:
            return Decision(
                error=True,
                reason="an instance with this resource_name already exists and is running; it is not managed by this "
                "state",
                flag=adopt_flag,
                choices=TWO_CHOICES,
                rule="P25",
            )
        if not s.key_params_match:
            return Decision(
                error=True,
                reason="the running instance's key (create-only) params differ from the task; it cannot be adopted",
                flag=adopt_flag,
                rule="P23",
            )
        return Decision(
            _converge(s), RECORD_WRITE, "the instance is running: adopt (import) it", flag=adopt_flag, rule="P24"
        )
    if s.status == NOT_CREATED:
        return Decision(
            error=True,
            reason="an instance with this resource_name exists but was never created successfully; it is not "
            "adopted or re-created automatically. Delete it in the Cloud Console or change resource_name",
            flag=adopt_flag,
            rule="P26",
        )
    return Decision(
        error=True,
        reason="the instance is {}; it cannot be used until it is running or suspended. Fix it in the Cloud Console "
        "or wait, then re-run".format(
            {CREATING: "still being created", PENDING: "in a transitional state", FAILED: "failed"}.get(
                s.status, s.status
            )
        ),
        flag=adopt_flag,
        rule="P27",
    )


def decide_absent(s: Situation) -> Decision:
    """P29: suspend, state-only removal, or delete; an instance not in the state is left alone."""
    if not s.recorded and not s.named_uid:
        if s.live_matches:
            return Decision(
                warning="an instance with this resource_name exists but is not in the state; it is left alone (name "
                "it with instance_uid to destroy it)",
                reason="the instance is not managed by this state",
                rule="P29",
            )
        return Decision(reason="nothing to destroy", rule="P29")
    sod_flag = _flag("suspend_on_destroy", s.suspend_on_destroy)
    if s.suspendable:
        if not s.suspend_on_destroy:
            return Decision(
                (),
                RECORD_REMOVE,
                "suspend_on_destroy is false: remove from the state only, no API call",
                flag=sod_flag,
                rule="P29",
            )
        if s.status == RUNNING:
            return Decision(
                ("suspend",),
                RECORD_REMOVE,
                "suspend_on_destroy is true: suspend the instance",
                flag=sod_flag,
                rule="P29",
            )
        if s.status in (SUSPENDED, MISSING, DELETED):
            return Decision((), RECORD_REMOVE, f"the instance is already {s.status}", flag=sod_flag, rule="P29")
        return Decision(
            error=True,
            reason=f"the instance is {s.status} and cannot be suspended; fix it in the Cloud Console or "
            "set suspend_on_destroy=false to only forget it",
            flag=sod_flag,
            rule="P29",
        )
    if s.status in (MISSING, DELETED):
        return Decision((), RECORD_REMOVE, "the instance is already gone", rule="P29")
    if s.deletable:
        return Decision(("delete",), RECORD_REMOVE, "the service cannot be suspended: delete the instance", rule="P29")
    return Decision(
        (),
        RECORD_REMOVE,
        "the service has no delete or suspend operation: remove from the state only",
        warning="the instance %s keeps running; the service offers no way to destroy it through the API",
        rule="P29",
    )
