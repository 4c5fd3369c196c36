# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lifecycle decision as a pure function (no I/O): every rule of instance and sub-resource tasks.

`decide(situation)` takes what the task found live (an :class:`InstanceSituation` or a :class:`SubSituation`,
lifecycle_types.py) and names the operations to run, what to do with the record, and why (for the diagnostics,
P30). Nothing is patched onto a decision afterwards. Rules: the seed's matrix P20-P29, key params P23, identity
K1/K4a/K4b, convergence P16/P38/P14, sub-resources P13/P17/P28, busy instances P27 (this task's own operation still
running: reported, never started twice), a create the API refused for a display name that the lookup does not
show (issue 14), and real deletion (`state: deleted`, beyond the seed). The instance rules
are in lifecycle_instance.py, the sub-resource rules in lifecycle_sub.py.

Two rules must be known before there is a situation, because they say what the find step may read; they are
decided here too, as pure functions the find step calls: whether the live instance is read at all (P29,
:func:`reads_live`) and what is done with the record's own operation (P27, :func:`own_operation_step`).
"""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle_instance import (
    decide_destroy,
    decide_present,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle_sub import decide_subresource
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle_types import (
    DELETE_PLACEHOLDER,
    RECORD_KEEP,
    RECORD_REMOVE,
    RECORD_WRITE,
    TWO_CHOICES,
    Decision,
    InstanceSituation,
    Situation,
    SubSituation,
    in_flight,
)

__all__ = [
    "DELETE_PLACEHOLDER",
    "OWN_REPORT",
    "OWN_REUSE",
    "OWN_SETTLE",
    "OWN_WAIT",
    "RECORD_KEEP",
    "RECORD_REMOVE",
    "RECORD_WRITE",
    "TWO_CHOICES",
    "Decision",
    "InstanceSituation",
    "Situation",
    "SubSituation",
    "decide",
    "own_operation_step",
    "reads_live",
]

OWN_REUSE = "reuse"  # never started: nothing was applied; this run's same operation reuses it
OWN_REPORT = "report"  # still running, wait=false: reported as in flight, nothing started next to it
OWN_WAIT = "wait"  # still running, wait=true: waited for
OWN_SETTLE = "settle"  # finished: what it applied is recorded (or, when it failed, that it did not)


def decide(s: Situation) -> Decision:
    if isinstance(s, InstanceSituation) and s.identity_conflict:
        # K4a/K4b: the task names another identity than the record holds; decided before anything was read. The
        # seed gives the words (`cannot change resource identity (old=..., new=...)`): they are the whole message.
        return Decision(error=True, reason=s.identity_conflict, rule=s.identity_rule, message=s.identity_conflict)
    if s.in_flight:
        return in_flight(s.in_flight)
    if isinstance(s, SubSituation):
        return decide_subresource(s)
    if s.state == "present":
        return decide_present(s)
    return decide_destroy(s)


def reads_live(state: str, suspendable: bool, suspend_on_destroy: bool, identified: bool) -> bool:
    """P29: `absent` with suspend_on_destroy=false on a suspendable service only forgets the record: the instance it
    names (`identified`: by the record or instance_uid) is not even read, so the task makes no API call at all. The
    situation then says `live_read=False`, and decide() forgets it."""
    return not (state == "absent" and suspendable and not suspend_on_destroy and identified)


def own_operation_step(started: bool, finished: bool, wait: bool) -> str:
    """P27: what a task does with the operation its own record started and has not settled (an interrupted or
    `wait: false` run of this task). Only this one is ever waited for; another task's operation makes the instance
    busy, an error at once. Never started: reused (OWN_REUSE). Running: waited for with wait=true (OWN_WAIT), else
    reported as in flight (OWN_REPORT; the situation's `in_flight`, so decide() starts nothing next to it, P16).
    Finished: its outcome recorded (OWN_SETTLE)."""
    if not started:
        return OWN_REUSE
    if finished:
        return OWN_SETTLE
    return OWN_WAIT if wait else OWN_REPORT
