# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of an instance task, as pure functions of an :class:`InstanceSituation` (no I/O): the seed's matrix
P20-P29, key params P23, identity K4a/K4b, convergence P16/P38/P14, busy instances P27, and real deletion
(`state: deleted`, beyond the seed). `lifecycle.decide()` is the one entry point.
"""

from __future__ import annotations

from typing import Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.controller_job import lost_record_hint
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle_types import (
    DELETE_PLACEHOLDER,
    GONE,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    TWO_CHOICES,
    Decision,
    InstanceSituation,
    busy,
    flag,
    refuse,
    unmanaged,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    CREATING,
    DELETED,
    NOT_CREATED,
    RUNNING,
    SUSPENDED,
)


def _converge(s: InstanceSituation) -> Tuple[str, ...]:
    """P38 modify when live params differ (or secrets are to be set); P14/P18 redeploy when git_revision changed."""
    return (("modify",) if s.changed else ()) + (("redeploy",) if s.revision_changed else ())


def _key_mismatch(s: InstanceSituation, flag_: str) -> Decision:
    return refuse(
        "create-only (key) params differ between the task and the live instance: {}. They cannot change on an "
        "existing instance: change resource_name to create a new one, or restore the old values".format(
            ", ".join(s.key_mismatches)
        ),
        "P23",
        flag_,
    )


def _with_revision(s: InstanceSituation, reason: str) -> str:
    """Issue 23: why an adopt, resume or a finished earlier create also redeploys."""
    if s.revision_changed and s.revision_unknown:
        return reason + (
            "; the live instance reports no git_revision, so which one it runs is unknown: redeploy the task's, so "
            "that the record holds only a revision a redeploy applied"
        )
    return reason


def _create_reason(s: InstanceSituation) -> str:
    """Why a create is followed by more (issue 23: one run settles)."""
    reason = "no live instance: create it"
    if "modify" in s.after_create:
        reason += ", then modify it to apply the params that only the modify operation takes"
    if "redeploy" in s.after_create:
        reason += ", then redeploy it to deploy git_revision, which the create operation does not take"
    return reason


def _name_taken(s: InstanceSituation, flag_: str) -> Decision:
    """Issue 14: the API refused this task's create because live instances hold the display name, and the lookup by
    name (looked again) still does not show them: creating again would be refused again, and adopting by name finds
    nothing. The message names them and the two ways on (P28)."""
    holders = ", ".join(s.name_taken_by)
    message = (
        f"the API refuses resource_name: the display name is taken by {holders}, which the lookup by name does not "
        "show; adopt it by instance_uid with adopt_existing_on_create=true, or choose another resource_name"
    )
    choices = (
        "change resource_name to create a new resource",
        f"adopt the holder by setting instance_uid ({holders}) and adopt_existing_on_create=true, and re-run the task",
    )
    return Decision(error=True, reason=message, flag=flag_, choices=choices, rule="P28", message=message)


def decide_present(s: InstanceSituation) -> Decision:
    adopt_flag = flag("adopt_existing_on_create", s.adopt)
    job = "" if s.recorded or s.record_creating else s.ephemeral_state
    if s.foreign_service:
        return refuse(f"instance_uid names an instance of {s.foreign_service}, not of this module's service", "K4a")
    if s.live_matches > 1:
        return refuse(
            f"{s.live_matches} live instances have this resource_name ({', '.join(s.live_uids)}); it is ambiguous "
            "which one the task means. Delete the extra ones in the Cloud Console, or name one with instance_uid",
            "P42",
        )
    if s.status in GONE:
        if s.named_uid:
            return refuse(
                "the instance named by instance_uid is {}; remove instance_uid from the task to create a new "
                "one".format("deleted" if s.status == DELETED else "not found"),
                "K4b",
            )
        if s.name_taken_by:  # issue 14: the create was refused for a holder of the name that the lookup misses
            return _name_taken(s, adopt_flag)
        warning = ""
        if s.lost_uid:
            warning = f"the recorded instance {s.lost_uid} is missing or deleted; a new instance is created"
        return Decision(("create", *s.after_create), RECORD_WRITE, _create_reason(s), warning=warning, rule="P20")
    if s.busy:
        return busy(s.status, adopt_flag)
    if s.record_creating and s.status in (NOT_CREATED, CREATING):
        reason = "this task's earlier create did not finish: continue it"
        return Decision(("create", *s.after_create), RECORD_WRITE, reason, rule="P42")
    if s.record_creating and s.status == RUNNING:
        if s.key_mismatches:
            return _key_mismatch(s, adopt_flag)
        reason = _with_revision(s, "this task's earlier create finished after the run stopped: record it")
        return Decision(_converge(s), RECORD_WRITE, reason, rule="P42")
    if s.status == SUSPENDED:
        if not s.adopt:
            return refuse(
                unmanaged("the instance is suspended; resuming it requires adopt_existing_on_create=true", job),
                "P22",
                adopt_flag,
                TWO_CHOICES,
            )
        if s.key_mismatches:
            return _key_mismatch(s, adopt_flag)
        reason = _with_revision(s, "the instance is suspended and the key params match: resume and adopt it")
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
                return refuse(
                    "the instance named by instance_uid exists and is not managed by this state",
                    "P25",
                    adopt_flag,
                    (
                        "remove instance_uid from the task to create a new instance",
                        "acquire that instance by setting adopt_existing_on_create=true and re-running the task",
                    ),
                )
            return refuse(
                unmanaged(
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
        reason = _with_revision(s, "the instance is running: adopt (import) it")
        return Decision(_converge(s), RECORD_WRITE, reason, adopt_flag, rule="P24")
    if s.status == NOT_CREATED:
        return refuse(
            "an instance with this resource_name exists but was never created successfully; it is not adopted or "
            "re-created automatically. Delete it (state=deleted with its instance_uid) or change resource_name",
            "P26",
            adopt_flag,
        )
    return busy(s.status, adopt_flag)


def decide_destroy(s: InstanceSituation) -> Decision:
    """P29 destroy (`absent`: suspend, or forget only) and real deletion (`deleted`: the delete operation)."""
    if not s.recorded and not s.record_creating and not s.named_uid:
        if s.live_matches and s.ephemeral_state:  # issue 16: an AWX job's lost record must not look like "not ours"
            hint = lost_record_hint(s.ephemeral_state, "or name the instance with instance_uid to destroy it")
            return refuse(
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
        return refuse(f"instance_uid names an instance of {s.foreign_service}, not of this module's service", "K4a")
    if s.state == "deleted":
        return _decide_delete(s)
    sod_flag = flag("suspend_on_destroy", s.suspend_on_destroy)
    # P29: forget only. The instance was not even read (live_read: lifecycle.reads_live decided that no API call is
    # made), so nothing below, which needs its status, applies.
    if not s.live_read or (s.suspendable and not s.suspend_on_destroy):
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
        return busy(s.status)
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
    return refuse(
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
        return refuse(
            "the service has no delete operation; use state=absent to destroy it as the service allows", "P12"
        )
    if s.busy:
        return busy(s.status)
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
