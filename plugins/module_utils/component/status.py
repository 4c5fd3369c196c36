# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Component status and states: the seed's status shape (C3, C5, C6, C7, C8), the Ready condition and the record.

A module-driven component has no ``metadata.generation``; the record keeps its own: +1 whenever the component
digest (spec, source, placement, policies) changes, so observedGeneration/appliedGeneration keep their meaning.

A Helm chart's delete phase is kept in the record too, as Helm keeps a release's hooks: ``deleteHooks`` (the
``pre-delete`` and ``post-delete`` sets of the last apply), and while ``state: absent`` runs them, the step it is in
(``deletePhase``) and the hooks' own inventory (``deleteHooksInventory``, persisted write-ahead like ``inventory``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

# Component states and Ready reasons (reference 1.3), exact spelling.
STATE_READY = "Ready"
STATE_PENDING = "Pending"
STATE_PROCESSING = "Processing"
STATE_DELETION_PENDING = "DeletionPending"
STATE_DELETING = "Deleting"
STATE_ERROR = "Error"

REASON_READY = "Ready"
REASON_PROCESSING = "Processing"
REASON_RESTARTING = "Restarting"
REASON_FIRST_SEEN = "FirstSeen"
REASON_SUSPENDED = "Suspended"
REASON_TIMEOUT = "Timeout"
REASON_RETRYING = "Retrying"
REASON_DELETION_RETRYING = "DeletionRetrying"
REASON_ERROR = "Error"
REASON_DELETION_BLOCKED = "DeletionBlocked"
REASON_DELETION_PROCESSING = "DeletionProcessing"
REASON_NAMESPACE_STUCK = "NamespaceCannotFinalise"  # issue 25: the created namespace's deletion does not finish


@dataclass
class ComponentStatus:
    """The part of the component status a run maintains (C5, C6, C7)."""

    state: str = STATE_PENDING
    ready_status: str = "Unknown"
    reason: str = REASON_FIRST_SEEN
    message: str = "First seen"
    processing_since: Optional[str] = None
    last_transition_time: Optional[str] = None
    last_applied_at: Optional[str] = None

    def set(self, state: str, reason: str, message: str, now: str) -> None:
        """Change state; the Ready condition follows (True for Ready, False for Error, Unknown otherwise)."""
        ready = "True" if state == STATE_READY else "False" if state == STATE_ERROR else "Unknown"
        if ready != self.ready_status or self.last_transition_time is None:
            self.last_transition_time = now
        self.state, self.ready_status, self.reason, self.message = state, ready, reason, message

    def to_dict(self) -> Dict[str, Any]:
        """Status fields with their JSON names."""
        data: Dict[str, Any] = {
            "state": self.state,
            "conditions": [
                {
                    "type": "Ready",
                    "status": self.ready_status,
                    "reason": self.reason,
                    "message": self.message,
                    "lastTransitionTime": self.last_transition_time,
                }
            ],
        }
        if self.processing_since:
            data["processingSince"] = self.processing_since
        if self.last_applied_at:
            data["lastAppliedAt"] = self.last_applied_at
        return data


def _copied(value: Any) -> Any:
    """A copy of a status value (lists of flat dicts at most two levels deep): the record hands out and keeps
    values nobody else changes, without paying ``copy.deepcopy`` for a large inventory on every step."""
    if isinstance(value, list):
        return [dict(entry) if isinstance(entry, dict) else entry for entry in value]
    if isinstance(value, dict):
        return dict(value)
    return value


STATUS_FIELDS = (
    "observedGeneration",
    "appliedGeneration",
    "lastObservedAt",
    "lastAppliedAt",
    "processingDigest",
    "processingSince",
    "lastProcessingDigest",
    "revision",
    "conditions",
    "state",
    "inventory",
)
# persisted only when set, so records of components without them stay as they were
OPTIONAL_FIELDS = ("createdNamespace", "deleteHooks", "deletePhase", "deleteHooksInventory")


@dataclass
class ComponentRecord:
    """Everything persisted for one component."""

    generation: int = 0
    observedGeneration: int = -1
    appliedGeneration: int = 0
    lastObservedAt: Optional[str] = None
    lastAppliedAt: Optional[str] = None
    processingDigest: str = ""
    processingSince: Optional[str] = None
    lastProcessingDigest: str = ""
    revision: int = 0
    conditions: List[Dict[str, Any]] = field(default_factory=list)
    state: str = ""
    inventory: List[Dict[str, Any]] = field(default_factory=list)
    placement: Dict[str, str] = field(default_factory=dict)
    createdNamespace: bool = False
    deleteHooks: Dict[str, List[Dict[str, Any]]] = field(default_factory=dict)
    deletePhase: str = ""
    deleteHooksInventory: List[Dict[str, Any]] = field(default_factory=list)

    def status(self) -> Dict[str, Any]:
        """The status returned to the task (C5): every field, absent timestamps as null."""
        return {name: _copied(getattr(self, name)) for name in STATUS_FIELDS}

    def to_dict(self) -> Dict[str, Any]:
        """Persisted form (status fields plus generation and placement; the other fields only when set)."""
        data = self.status()
        data["generation"] = self.generation
        data["placement"] = dict(self.placement)
        for name in OPTIONAL_FIELDS:
            value = getattr(self, name)
            if value:
                data[name] = copy.deepcopy(value)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ComponentRecord:
        """Inverse of ``to_dict``; unknown keys are ignored."""
        record = cls()
        for name in (*STATUS_FIELDS, "generation", "placement"):
            if name in data and data[name] is not None:
                setattr(record, name, _copied(data[name]))
        for name in OPTIONAL_FIELDS:  # a Helm chart's delete hooks are whole manifests: copied in depth (rare, small)
            if name in data and data[name] is not None:
                setattr(record, name, copy.deepcopy(data[name]))
        return record

    def comparable(self) -> Dict[str, Any]:
        """Persisted form without the observation time: equal means nothing worth a write changed."""
        data = self.to_dict()
        data.pop("lastObservedAt", None)
        return data

    def component_status(self) -> ComponentStatus:
        """The engine run loop's view of this status."""
        ready = self.ready_condition()
        status = ComponentStatus()
        if ready:
            status.state = self.state or STATE_PENDING
            status.ready_status = str(ready.get("status", "Unknown"))
            status.reason = str(ready.get("reason", ""))
            status.message = str(ready.get("message", ""))
            status.last_transition_time = ready.get("lastTransitionTime")
        status.processing_since = self.processingSince
        status.last_applied_at = self.lastAppliedAt
        return status

    def ready_condition(self) -> Optional[Dict[str, Any]]:
        """The Ready condition (C6), if any."""
        for condition in self.conditions:
            if condition.get("type") == "Ready":
                return condition
        return None

    def absorb(self, status: ComponentStatus, inventory: List[Dict[str, Any]], now: str) -> None:
        """Take the run loop's status and inventory (C5-C8)."""
        data = status.to_dict()
        self.state = data["state"]
        self.conditions = data["conditions"]
        self.processingSince = data.get("processingSince")
        if status.state == STATE_READY:
            self.appliedGeneration = self.generation
            self.lastAppliedAt = data.get("lastAppliedAt") or now
        self.inventory = inventory
        self.observedGeneration = self.generation
        self.lastObservedAt = now

    def set_state(self, state: str, reason: str, message: str, now: str) -> None:
        """Set state and Ready condition directly (first sight, suspension, restart)."""
        status = self.component_status()
        status.set(state, reason, message, now)
        data = status.to_dict()
        self.state, self.conditions = data["state"], data["conditions"]
