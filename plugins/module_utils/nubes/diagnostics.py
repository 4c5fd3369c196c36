# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lifecycle diagnostics in the seed's format (P30, P28), and the one-line message of a refused task.

Multiline and human-readable: a headline, the decision reason and the controlling flag in the body,
the two choices when a name conflict blocks creation (P28), then one line each for resource_name,
service_id, instance_uid, status, status_raw, operation_pending, operation_in_progress.

A refused task fails with :func:`summary` as its `msg` and the diagnostics under `diagnostics`, so the multi-line
text is printed once (ansible-core 2.19+ repeats `msg` in its own error line; issue 16).
"""

from __future__ import annotations

from typing import List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lifecycle import Decision
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance

DETAIL_FIELDS = (
    "resource_name",
    "service_id",
    "instance_uid",
    "status",
    "status_raw",
    "operation_pending",
    "operation_in_progress",
)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def render(
    module: str,
    decision: Decision,
    resource_name: str,
    service_id: int,
    instance: Optional[Instance],
    status: str,
    extra: Optional[List[str]] = None,
) -> str:
    """The diagnostics text (P30)."""
    headline = "{}: {}".format(module, "cannot apply" if decision.error else f"decision: {decision.action}")
    lines = [headline, "Reason: {}.".format(decision.reason.rstrip("."))]
    if decision.flag:
        lines.append(f"Controlling flag: {decision.flag}")
    if decision.choices:  # P28: exactly two choices
        lines.append("Choose one:")
        for number, choice in enumerate(decision.choices, 1):
            lines.append(f"  {number}. {choice};")
    lines.extend(extra or [])
    values = {
        "resource_name": resource_name,
        "service_id": str(service_id),
        "instance_uid": instance.uid if instance else "",
        "status": status,
        "status_raw": instance.status_raw if instance else "",
        "operation_pending": _bool(bool(instance and instance.operation_pending)),
        "operation_in_progress": _bool(bool(instance and instance.operation_in_progress)),
    }
    lines.extend(f"{field}: {values[field]}" for field in DETAIL_FIELDS)
    return "\n".join(lines)


def summary(module: str, decision: Decision, target: str) -> str:
    """The one-line `msg` of a refused task: what could not be applied and why; the P30 lines (flag, choices,
    details) are in `diagnostics`. A refusal whose words a rule prescribes (K4b) is those words alone."""
    if decision.message:
        return decision.message
    text = "{}: cannot apply to {}: {}".format(module, target, decision.reason.rstrip("."))
    if decision.flag:
        text += f" ({decision.flag})"
    if decision.choices:  # P28: always two, named in one sentence; `diagnostics` keeps the numbered format
        first, second = decision.choices
        return f"{text}. Either {first}, or {second}"
    return text + ". See the diagnostics for the details"
