# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What `lifecycle.decide()` takes and returns: the situations a task found (every fact a rule needs, identity,
busy, skipped-read and taken-name facts included) and the :class:`Decision`; plus the pieces of a decision that the
instance rules (lifecycle_instance.py) and the sub-resource rules (lifecycle_sub.py) share. No I/O.
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
    PENDING,
    RUNNING,
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
    status: str = MISSING  # the live status (models.*); MISSING when nothing was found (or nothing was read)
    identity_conflict: str = ""  # K4a/K4b: the task's identity contradicts the record (the seed's exact words)
    identity_rule: str = ""  # K4a or K4b: which one
    live_read: bool = True  # P29: False when the instance was not read at all (lifecycle.reads_live: forget only)
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
    name_taken_by: Tuple[str, ...] = ()  # issue 14: live holders of the name the API named on refusing a create
    adopt: bool = False
    key_mismatches: Tuple[str, ...] = ()  # create-only params whose live value differs from the task's
    changed: Tuple[str, ...] = ()  # modifiable params (and secrets to set) that differ from the live ones
    revision_changed: bool = False
    revision_unknown: bool = False  # issue 23: the task gives git_revision; nothing says which one is deployed
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
    message: str = ""  # a refusal whose words a rule prescribes (K4b): the task's `msg` is exactly this

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


def flag(name: str, value: bool) -> str:
    return "{}={}".format(name, "true" if value else "false")


def refuse(reason: str, rule: str, flag_: Optional[str] = None, choices: Tuple[str, ...] = ()) -> Decision:
    return Decision(error=True, reason=reason, rule=rule, flag=flag_, choices=choices)


def busy(status: str, flag_: Optional[str] = None) -> Decision:
    """P27: creating / pending / failed -> error at once (only this task's own operation is waited for)."""
    what = {CREATING: "still being created", FAILED: "failed", PENDING: "in a transitional state"}.get(status, status)
    return refuse(
        f"the instance is {what}, or an operation that this task did not start is pending or in progress on it; "
        "it cannot be used until that finishes. Wait for it (Cloud Console), fix it there, or delete it "
        "(state=deleted), then re-run",
        "P27",
        flag_,
    )


def unmanaged(reason: str, job: str) -> str:
    """A live resource without a record: in a job whose file state dies with its pod, the record is likely lost."""
    return f"{reason}; {lost_record_hint(job)}" if job else reason


def in_flight(operation: str) -> Decision:
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
