# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component's one status type (component-operator-runtime's ``component.Status``): the seed's status fields
(C3, C5, C6, C7, C8), the Ready condition, and what this module keeps in the record besides.

A module-driven component has no ``metadata.generation``; the status keeps its own: +1 whenever the component
digest (spec, source, placement, policies) changes, so observedGeneration/appliedGeneration keep their meaning.

A Helm chart's delete phase is kept in the record too, as Helm keeps a release's hooks: ``deleteHooks`` (the
``pre-delete`` and ``post-delete`` sets of the last apply), and while ``state: absent`` runs them, the step it is in
(``deletePhase``) and the hooks' own inventory (``deleteHooksInventory``, persisted write-ahead like ``inventory``).

The inventories are the reconciler's own items, changed in place by its steps: what is persisted is what the
reconciler works on, with no copy to keep in step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import (
    InventoryItem,
    inventory_from_list,
    inventory_to_list,
)

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
INVENTORY_FIELDS = ("inventory", "deleteHooksInventory")
# persisted only when set, so records of components without them stay as they were
OPTIONAL_FIELDS = ("createdNamespace", "deleteHooks", "deletePhase", "deleteHooksInventory")


def ready_status_of(state: str) -> str:
    """C6/C7: the Ready condition's status for a state: True for Ready, False for Error, Unknown otherwise."""
    return "True" if state == STATE_READY else "False" if state == STATE_ERROR else "Unknown"


@dataclass
class ComponentStatus:
    """Everything a run maintains and persists for one component (C3, C5-C8)."""

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
    inventory: List[InventoryItem] = field(default_factory=list)
    placement: Dict[str, str] = field(default_factory=dict)
    createdNamespace: bool = False
    deleteHooks: Dict[str, List[Dict[str, Any]]] = field(default_factory=dict)
    deletePhase: str = ""
    deleteHooksInventory: List[InventoryItem] = field(default_factory=list)

    def set_state(self, state: str, reason: str, message: str, now: str) -> None:
        """C6, C7: set the state; the one Ready condition follows (True for Ready, False for Error, Unknown
        otherwise), its lastTransitionTime moving only when its status changes (reference 1.2)."""
        ready = ready_status_of(state)
        old = self.ready_condition() or {}
        since = old.get("lastTransitionTime") if old.get("status") == ready else None
        self.state = state
        self.conditions = [
            {"type": "Ready", "status": ready, "reason": reason, "message": message, "lastTransitionTime": since or now}
        ]

    def ready_condition(self) -> Optional[Dict[str, Any]]:
        """The Ready condition (C6), if any."""
        for condition in self.conditions:
            if condition.get("type") == "Ready":
                return condition
        return None

    @property
    def reason(self) -> str:
        """The Ready condition's reason ("" before the first state)."""
        return str((self.ready_condition() or {}).get("reason") or "")

    @property
    def message(self) -> str:
        """The Ready condition's message ("" before the first state)."""
        return str((self.ready_condition() or {}).get("message") or "")

    def observe(self, now: str) -> None:
        """C5: every reconcile that writes status observes the current generation (reference 1.2)."""
        self.observedGeneration = self.generation
        self.lastObservedAt = now

    def status(self) -> Dict[str, Any]:
        """The status returned to the task (C5): every field, absent timestamps as null."""
        data: Dict[str, Any] = {}
        for name in STATUS_FIELDS:
            value = getattr(self, name)
            data[name] = inventory_to_list(value) if name in INVENTORY_FIELDS else copy.deepcopy(value)
        return data

    def to_dict(self) -> Dict[str, Any]:
        """Persisted form (status fields plus generation and placement; the other fields only when set)."""
        data = self.status()
        data["generation"] = self.generation
        data["placement"] = dict(self.placement)
        for name in OPTIONAL_FIELDS:
            value = getattr(self, name)
            if value:
                data[name] = inventory_to_list(value) if name in INVENTORY_FIELDS else copy.deepcopy(value)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ComponentStatus:
        """Inverse of ``to_dict``; unknown keys are ignored."""
        status = cls()
        for name in (*STATUS_FIELDS, *OPTIONAL_FIELDS, "generation", "placement"):
            value = data.get(name)
            if value is None:
                continue
            setattr(status, name, inventory_from_list(value) if name in INVENTORY_FIELDS else copy.deepcopy(value))
        return status

    def comparable(self) -> Dict[str, Any]:
        """Persisted form without the observation time: equal means nothing worth a write changed."""
        data = self.to_dict()
        data.pop("lastObservedAt", None)
        return data
