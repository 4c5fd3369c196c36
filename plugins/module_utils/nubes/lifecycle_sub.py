# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rules of a sub-resource task, as a pure function of a :class:`SubSituation` (no I/O): P13, P17, P23, P27,
P28 and K4a for the parent. `lifecycle.decide()` is the one entry point.
"""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle_types import (
    GONE,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    TWO_CHOICES,
    Decision,
    SubSituation,
    busy,
    flag,
    refuse,
    unmanaged,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import RUNNING


def decide_subresource(s: SubSituation) -> Decision:
    """P13/P17: a sub-resource of a running parent; identity {parent uid, key}."""
    what = f"the {s.sub}"
    adopt_flag = flag("adopt_existing_on_create", s.adopt)
    if s.foreign_service:
        return refuse(
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
        return refuse(
            "the parent instance does not exist or is deleted; create the parent first (or fix parent_instance_uid "
            "/ parent_resource_name)",
            "P13",
        )
    if s.state == "absent" and not s.exists:
        return Decision((), RECORD_REMOVE if s.recorded else RECORD_KEEP, f"{what} does not exist", rule="P17")
    if s.parent_busy:
        return busy(s.parent_status, adopt_flag)
    if s.parent_status != RUNNING:
        return refuse(
            f"the parent instance is {s.parent_status}; {s.sub} objects change only while it is running "
            "(resume it with adopt_existing_on_create=true on the parent task)",
            "P27",
        )
    if s.state == "absent":
        return Decision((s.delete,), RECORD_REMOVE, f"delete {what}", rule="P13")
    if not s.exists:
        return Decision((s.create,), RECORD_WRITE, f"{what} does not exist: create it", rule="P13")
    if not s.recorded and not s.adopt:
        return refuse(
            unmanaged(
                f"{what} already exists in the parent instance and is not managed by this state", s.ephemeral_state
            ),
            "P28",
            adopt_flag,
            (f"change {s.key_option} to create a new {s.sub}", TWO_CHOICES[1]),
        )
    if s.key_mismatches:
        return refuse(
            f"create-only params of {what} differ between the task and the live one: {', '.join(s.key_mismatches)}. "
            f"They cannot change: delete it (state=absent) and create it again, or restore the old values",
            "P23",
        )
    if s.changed:
        if not s.modify:
            return refuse(
                f"{what} differs from the task in {', '.join(s.changed)}, but the service cannot modify a {s.sub}; "
                "delete it (state=absent) and create it again",
                "P13",
            )
        reason = f"{what} differs from the task in {', '.join(s.changed)}: modify it"
        return Decision((s.modify,), RECORD_WRITE, reason, adopt_flag if not s.recorded else None, rule="P17")
    if not s.recorded:
        return Decision((), RECORD_WRITE, f"adopt the existing {s.sub}", adopt_flag, rule="P13")
    return Decision((), RECORD_KEEP, f"{what} matches the task", rule="P17")
