# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lifecycle decision as a pure function (no I/O): every rule of instance and sub-resource tasks.

`decide(situation)` takes what the task found live (an :class:`InstanceSituation` or a
:class:`SubSituation`) and names the operations to run, what to do with the record, and why (for the
diagnostics, P30). Nothing is patched onto a decision afterwards. Rules: the seed's matrix P20-P29, key
params P23, identity K1/K4a/K4b, convergence P16/P38/P14, sub-resources P13/P17/P28, busy instances P27
(this task's own operation still running: reported, never started twice), and real deletion (`state: deleted`,
beyond the seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple, Union

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.controller_job import lost_record_hint
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
DELETE_PLACEHOLDER = "delete_placeholder"  # `DELETE /instances/{uid}`: a placeholder no operation ran on
GONE = (MISSING, DELETED)


@dataclass(frozen=True)
class InstanceSituation:
    """What an instance task found, live, when it decides."""

    state: str = "present"  # present | absent | deleted
    status: str = MISSING  # the live status (models.*); MISSING when nothing was found
    in_flight: str = ""  # P27: this record's own operation, still running and not waited for (wait=false)
    busy: bool = False  # an operation this task did not start is pending or running (P27)
    available: Optional[Tuple[str, ...]] = None  # availableOperations of the live instance, when the API said
    foreign_service: str = ""  # K4a: the live instance belongs to this other service
    recorded: bool = False  # the record holds this very instance
    record_creating: bool = False  # the record's own create has not finished
    lost_uid: str = ""  # P20: the uid of a recorded instance that is missing or deleted
    named_uid: bool = False  # the task gave instance_uid
    live_matches: int = 0  # live instances with the resource_name (no id known)
    live_uids: Tuple[str, ...] = ()
    adopt: bool = False
    key_mismatches: Tuple[str, ...] = ()  # create-only params whose live value differs from the task's
    changed: Tuple[str, ...] = ()  # modifiable params (and secrets to set) that differ from the live ones
    revision_changed: bool = False
    after_create: Tuple[str, ...] = ()  # issue 23: what a create is followed by so that one run settles
    suspendable: bool = True
    deletable: bool = True
    suspend_on_destroy: bool = True
    ephemeral_state: str = ""  # the AWX/Controller job whose file state dies with its pod (controller_job.py)


@dataclass(frozen=True)
class SubSituation:
    """What a sub-resource task found in its parent, live, when it decides (P13, P17)."""

    sub: str
    key_option: str
    state: str = "present"
    parent_status: str = RUNNING
    in_flight: str = ""  # P27: this record's own operation on the parent, still running (wait=false)
    parent_busy: bool = False
    foreign_service: str = ""  # K4a: the parent uid names an instance of this other service
    parent_pending: bool = False  # check mode: the parent would be created by an earlier task (issue 16)
    exists: bool = False
    recorded: bool = False
    adopt: bool = False
    changed: Tuple[str, ...] = ()
    key_mismatches: Tuple[str, ...] = ()  # create-only params of the sub-resource that differ live
    create: str = ""
    modify: Optional[str] = None
    delete: str = ""
    ephemeral_state: str = ""


@dataclass(frozen=True)
class Decision:
    """Operations to run (in order), the record action, the reason and the controlling flag."""

    operations: Tuple[str, ...] = ()
    record: str = RECORD_KEEP
    reason: str = ""
    flag: Optional[str] = None
    error: bool = False
    choices: Tuple[str, ...] = ()
    warning: str = ""
    rule: str = ""
    in_flight: bool = False  # P27: nothing is started; the task reports its own operation that still runs

    @property
    def action(self) -> str:
        if self.error:
            return "error"
        if self.in_flight:
            return "in_flight"
        if self.operations:
            return "+".join(self.operations)
        return {RECORD_WRITE: "adopt", RECORD_REMOVE: "forget"}.get(self.record, "none")


Situation = Union[InstanceSituation, SubSituation]


def _flag(name: str, value: bool) -> str:
    return "{}={}".format(name, "true" if value else "false")


def _error(reason: str, rule: str, flag: Optional[str] = None, choices: Tuple[str, ...] = ()) -> Decision:
    return Decision(error=True, reason=reason, rule=rule, flag=flag, choices=choices)


def decide(s: Situation) -> Decision:
    if s.in_flight:
        return _in_flight(s.in_flight)
    if isinstance(s, SubSituation):
        return decide_subresource(s)
    if s.state == "present":
        return decide_present(s)
    return decide_destroy(s)


def _converge(s: InstanceSituation) -> Tuple[str, ...]:
    """P38 modify when live params differ (or secrets are to be set); P14/P18 redeploy when git_revision changed."""
    return (("modify",) if s.changed else ()) + (("redeploy",) if s.revision_changed else ())


def _busy(status: str, flag: Optional[str] = None) -> Decision:
    """P27: creating / pending / failed -> error at once (only this task's own operation is waited for)."""
    what = {CREATING: "still being created", FAILED: "failed", PENDING: "in a transitional state"}.get(status, status)
    return _error(
        f"the instance is {what}, or an operation that this task did not start is pending or in progress on it; "
        "it cannot be used until that finishes. Wait for it (Cloud Console), fix it there, or delete it "
        "(state=deleted), then re-run",
        "P27",
        flag,
    )


def _unmanaged(reason: str, job: str) -> str:
    """A live resource without a record: in a job whose file state dies with its pod, the record is likely lost."""
    return f"{reason}; {lost_record_hint(job)}" if job else reason


def _in_flight(operation: str) -> Decision:
    """P27 with wait=false: the operation an earlier run of this task started is still running. It is reported, not
    waited for, and nothing is started next to it (P16: a re-run never starts a second one); once it has finished,
    the next run goes on from the live state."""
    return Decision(
        reason=f"the {operation} operation an earlier run of this task started is still running; wait=false: it is "
        "reported, not waited for, and nothing else is started (wait for it with nubes.cloud.operation_info, or "
        "re-run with wait=true)",
        rule="P27",
        in_flight=True,
    )


def _key_mismatch(s: InstanceSituation, flag: str) -> Decision:
    return _error(
        "create-only (key) params differ between the task and the live instance: {}. They cannot change on an "
        "existing instance: change resource_name to create a new one, or restore the old values".format(
            ", ".join(s.key_mismatches)
        ),
        "P23",
        flag,
    )


def _create_reason(s: InstanceSituation) -> str:
    """Why a create is followed by more (issue 23: one run settles)."""
    reason = "no live instance: create it"
    if "modify" in s.after_create:
        reason += ", then modify it to apply the params that only the modify operation takes"
    if "redeploy" in s.after_create:
        reason += ", then redeploy it to deploy git_revision, which the create operation does not take"
    return reason


def decide_present(s: InstanceSituation) -> Decision:
    adopt_flag = _flag("adopt_existing_on_create", s.adopt)
    job = "" if s.recorded or s.record_creating else s.ephemeral_state
    if s.foreign_service:
        return _error(f"instance_uid names an instance of {s.foreign_service}, not of this module's service", "K4a")
    if s.live_matches > 1:
        return _error(
            f"{s.live_matches} live instances have this resource_name ({', '.join(s.live_uids)}); it is ambiguous "
            "which one the task means. Delete the extra ones in the Cloud Console, or name one with instance_uid",
            "P42",
        )
    if s.status in GONE:
        if s.named_uid:
            return _error(
                "the instance named by instance_uid is {}; remove instance_uid from the task to create a new "
                "one".format("deleted" if s.status == DELETED else "not found"),
                "K4b",
            )
        warning = ""
        if s.lost_uid:
            warning = f"the recorded instance {s.lost_uid} is missing or deleted; a new instance is created"
        return Decision(("create", *s.after_create), RECORD_WRITE, _create_reason(s), warning=warning, rule="P20")
    if s.busy:
        return _busy(s.status, adopt_flag)
    if s.record_creating and s.status in (NOT_CREATED, CREATING):
        reason = "this task's earlier create did not finish: continue it"
        return Decision(("create", *s.after_create), RECORD_WRITE, reason, rule="P42")
    if s.record_creating and s.status == RUNNING:
        if s.key_mismatches:
            return _key_mismatch(s, adopt_flag)
        reason = "this task's earlier create finished after the run stopped: record it"
        return Decision(_converge(s), RECORD_WRITE, reason, rule="P42")
    if s.status == SUSPENDED:
        if not s.adopt:
            return _error(
                _unmanaged("the instance is suspended; resuming it requires adopt_existing_on_create=true", job),
                "P22",
                adopt_flag,
                TWO_CHOICES,
            )
        if s.key_mismatches:
            return _key_mismatch(s, adopt_flag)
        reason = "the instance is suspended and the key params match: resume and adopt it"
        return Decision(("resume", *_converge(s)), RECORD_WRITE, reason, adopt_flag, rule="P21")
    if s.status == RUNNING:
        if s.recorded:
            if s.key_mismatches:
                return _key_mismatch(s, adopt_flag)
            ops = _converge(s)
            if not ops:
                return Decision((), RECORD_KEEP, "the recorded instance is running and matches the task", rule="P16")
            rule = "P14" if s.revision_changed else "P38"
            return Decision(ops, RECORD_WRITE, "the live instance differs from the task", rule=rule)
        if not s.adopt:
            if s.named_uid:
                return _error(
                    "the instance named by instance_uid exists and is not managed by this state",
                    "P25",
                    adopt_flag,
                    (
                        "remove instance_uid from the task to create a new instance",
                        "acquire that instance by setting adopt_existing_on_create=true and re-running the task",
                    ),
                )
            return _error(
                _unmanaged(
                    "an instance with this resource_name already exists and is running; it is not managed by this "
                    "state",
                    job,
                ),
                "P25",
                adopt_flag,
                TWO_CHOICES,
            )
        if s.key_mismatches:
            return _key_mismatch(s, adopt_flag)
        return Decision(
            _converge(s), RECORD_WRITE, "the instance is running: adopt (import) it", adopt_flag, rule="P24"
        )
    if s.status == NOT_CREATED:
        return _error(
            "an instance with this resource_name exists but was never created successfully; it is not adopted or "
            "re-created automatically. Delete it (state=deleted with its instance_uid) or change resource_name",
            "P26",
            adopt_flag,
        )
    return _busy(s.status, adopt_flag)


def decide_destroy(s: InstanceSituation) -> Decision:
    """P29 destroy (`absent`: suspend, or forget only) and real deletion (`deleted`: the delete operation)."""
    if not s.recorded and not s.record_creating and not s.named_uid:
        if s.live_matches and s.ephemeral_state:  # issue 16: an AWX job's lost record must not look like "not ours"
            hint = lost_record_hint(s.ephemeral_state, "or name the instance with instance_uid to destroy it")
            return _error(
                f"an instance with this resource_name exists ({', '.join(s.live_uids)}) but this job has no record of "
                f"it, so it cannot tell whether the instance is its to destroy; {hint}",
                "P29",
            )
        if s.live_matches:
            return Decision(
                warning="an instance with this resource_name exists but is not in the state; it is left alone (name "
                "it with instance_uid to destroy it)",
                reason="the instance is not managed by this state",
                rule="P29",
            )
        return Decision(reason="nothing to destroy", rule="P29")
    if s.foreign_service:
        return _error(f"instance_uid names an instance of {s.foreign_service}, not of this module's service", "K4a")
    if s.state == "deleted":
        return _decide_delete(s)
    sod_flag = _flag("suspend_on_destroy", s.suspend_on_destroy)
    if s.suspendable and not s.suspend_on_destroy:
        return Decision(
            (),
            RECORD_REMOVE,
            "suspend_on_destroy is false: remove from the state only, no API call; the instance keeps running",
            flag=sod_flag,
            warning="suspend_on_destroy=false only forgets the instance: it keeps running (and billing) in the "
            "cloud. Use state=deleted to delete it",
            rule="P29",
        )
    if s.status in GONE:
        return Decision((), RECORD_REMOVE, f"the instance is already {s.status}", rule="P29")
    if s.busy:
        return _busy(s.status)
    if s.status == NOT_CREATED:
        return _remove_placeholder(s)
    if not s.suspendable:
        if s.deletable:
            return Decision(
                ("delete",), RECORD_REMOVE, "the service cannot be suspended: delete the instance", rule="P29"
            )
        return Decision(
            (),
            RECORD_REMOVE,
            "the service has no delete or suspend operation: remove from the state only",
            warning="the instance keeps running; the service offers no way to destroy it through the API",
            rule="P29",
        )
    if s.status == RUNNING:
        return Decision(
            ("suspend",), RECORD_REMOVE, "suspend_on_destroy is true: suspend the instance", sod_flag, rule="P29"
        )
    if s.status == SUSPENDED:
        return Decision((), RECORD_REMOVE, "the instance is already suspended", sod_flag, rule="P29")
    return _error(
        f"the instance is {s.status} and cannot be suspended; delete it with state=deleted, or set "
        "suspend_on_destroy=false to only forget it",
        "P29",
        sod_flag,
    )


def _decide_delete(s: InstanceSituation) -> Decision:
    """`state: deleted` (beyond the seed): the API's delete operation, for running, suspended, failed and
    placeholder instances alike."""
    if s.status in GONE:
        return Decision((), RECORD_REMOVE, f"the instance is already {s.status}", rule="P29")
    if not s.deletable:
        return _error(
            "the service has no delete operation; use state=absent to destroy it as the service allows", "P12"
        )
    if s.busy:
        return _busy(s.status)
    if s.status == NOT_CREATED or (s.available is not None and "delete" not in s.available):
        return _remove_placeholder(s)
    return Decision(("delete",), RECORD_REMOVE, "state=deleted: delete the instance", rule="P12")


def _remove_placeholder(s: InstanceSituation) -> Decision:
    """A placeholder (no successful create): the delete operation when the API offers it, else
    `DELETE /instances/{uid}` (allowed while no operation has run on it)."""
    if s.available is not None and "delete" in s.available:
        return Decision(
            ("delete",), RECORD_REMOVE, "the instance was never created: delete the placeholder", rule="P26"
        )
    reason = "the instance was never created: remove the placeholder"
    return Decision((DELETE_PLACEHOLDER,), RECORD_REMOVE, reason, rule="P26")


def decide_subresource(s: SubSituation) -> Decision:
    """P13/P17: a sub-resource of a running parent; identity {parent uid, key}."""
    what = f"the {s.sub}"
    adopt_flag = _flag("adopt_existing_on_create", s.adopt)
    if s.foreign_service:
        return _error(
            f"the parent instance is an instance of {s.foreign_service}; give the uid of one of this service", "K4a"
        )
    if s.parent_pending:  # only in check mode: a real run has the parent's uid or fails before deciding
        if s.state == "absent":
            return Decision((), RECORD_KEEP, "the parent instance does not exist yet", rule="P13")
        reason = f"the parent instance would be created by an earlier task (check mode): create {what} after it"
        return Decision((s.create,), RECORD_WRITE, reason, rule="P13")
    if s.parent_status in GONE:
        if s.state == "absent":
            return Decision((), RECORD_REMOVE if s.recorded else RECORD_KEEP, "the parent instance is gone", rule="P17")
        return _error(
            "the parent instance does not exist or is deleted; create the parent first (or fix parent_instance_uid "
            "/ parent_resource_name)",
            "P13",
        )
    if s.state == "absent" and not s.exists:
        return Decision((), RECORD_REMOVE if s.recorded else RECORD_KEEP, f"{what} does not exist", rule="P17")
    if s.parent_busy:
        return _busy(s.parent_status, adopt_flag)
    if s.parent_status != RUNNING:
        return _error(
            f"the parent instance is {s.parent_status}; {s.sub} objects change only while it is running "
            "(resume it with adopt_existing_on_create=true on the parent task)",
            "P27",
        )
    if s.state == "absent":
        return Decision((s.delete,), RECORD_REMOVE, f"delete {what}", rule="P13")
    if not s.exists:
        return Decision((s.create,), RECORD_WRITE, f"{what} does not exist: create it", rule="P13")
    if not s.recorded and not s.adopt:
        return _error(
            _unmanaged(
                f"{what} already exists in the parent instance and is not managed by this state", s.ephemeral_state
            ),
            "P28",
            adopt_flag,
            (f"change {s.key_option} to create a new {s.sub}", TWO_CHOICES[1]),
        )
    if s.key_mismatches:
        return _error(
            f"create-only params of {what} differ between the task and the live one: {', '.join(s.key_mismatches)}. "
            f"They cannot change: delete it (state=absent) and create it again, or restore the old values",
            "P23",
        )
    if s.changed:
        if not s.modify:
            return _error(
                f"{what} differs from the task in {', '.join(s.changed)}, but the service cannot modify a {s.sub}; "
                "delete it (state=absent) and create it again",
                "P13",
            )
        reason = f"{what} differs from the task in {', '.join(s.changed)}: modify it"
        return Decision((s.modify,), RECORD_WRITE, reason, adopt_flag if not s.recorded else None, rule="P17")
    if not s.recorded:
        return Decision((), RECORD_WRITE, f"adopt the existing {s.sub}", adopt_flag, rule="P13")
    return Decision((), RECORD_KEEP, f"{what} matches the task", rule="P17")
