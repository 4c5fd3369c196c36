# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inventory items with the JSON field names of reference 3.2 (C8)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

# (group, kind, namespace, name): items match objects on GroupKind + namespace + name; the version is ignored.
ObjectKey = Tuple[str, str, str, str]


@dataclass(frozen=True)
class TypeInfo:
    """A (group, version, kind) triple; ``*`` is a wildcard in managed types."""

    group: str
    version: str
    kind: str

    def to_dict(self) -> Dict[str, str]:
        """JSON form ``{group, version, kind}``."""
        return {"group": self.group, "version": self.version, "kind": self.kind}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TypeInfo:
        """Inverse of ``to_dict``."""
        return cls(str(data.get("group", "")), str(data.get("version", "")), str(data.get("kind", "")))


@dataclass
class InventoryItem:
    """One dependent object the component tracks (reference 3.2)."""

    group: str
    version: str
    kind: str
    name: str
    namespace: str = ""
    adoptionPolicy: str = ""
    reconcilePolicy: str = ""
    updatePolicy: str = ""
    deletePolicy: str = ""
    applyOrder: int = 0
    deleteOrder: int = 0
    managedTypes: List[TypeInfo] = field(default_factory=list)
    digest: str = ""
    phase: str = ""
    status: str = ""
    lastAppliedAt: Optional[str] = None

    @property
    def key(self) -> ObjectKey:
        """Identity of the item: group, kind, namespace, name."""
        return (self.group, self.kind, self.namespace, self.name)

    @property
    def api_version(self) -> str:
        """``group/version`` or ``version`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    def describe(self) -> str:
        """Human-readable reference for messages, e.g. ``Deployment apps/web in namespace default``."""
        gk = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{gk} {self.namespace}/{self.name}" if self.namespace else f"{gk} {self.name}"

    def copy(self) -> InventoryItem:
        """An independent copy (TypeInfo values are immutable, so copying the list suffices)."""
        return replace(self, managedTypes=list(self.managedTypes))

    def to_dict(self) -> Dict[str, Any]:
        """JSON form; ``namespace`` and ``managedTypes`` are omitted when empty (omitempty)."""
        data: Dict[str, Any] = {"group": self.group, "version": self.version, "kind": self.kind}
        if self.namespace:
            data["namespace"] = self.namespace
        data.update(
            {
                "name": self.name,
                "adoptionPolicy": self.adoptionPolicy,
                "reconcilePolicy": self.reconcilePolicy,
                "updatePolicy": self.updatePolicy,
                "deletePolicy": self.deletePolicy,
                "applyOrder": self.applyOrder,
                "deleteOrder": self.deleteOrder,
            }
        )
        if self.managedTypes:
            data["managedTypes"] = [t.to_dict() for t in self.managedTypes]
        data.update({"digest": self.digest, "phase": self.phase, "status": self.status})
        if self.lastAppliedAt:
            data["lastAppliedAt"] = self.lastAppliedAt
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InventoryItem:
        """Read an item persisted by ``to_dict``."""
        return cls(
            group=str(data.get("group", "")),
            version=str(data.get("version", "")),
            kind=str(data["kind"]),
            name=str(data["name"]),
            namespace=str(data.get("namespace", "") or ""),
            adoptionPolicy=str(data.get("adoptionPolicy", "")),
            reconcilePolicy=str(data.get("reconcilePolicy", "")),
            updatePolicy=str(data.get("updatePolicy", "")),
            deletePolicy=str(data.get("deletePolicy", "")),
            applyOrder=int(data.get("applyOrder", 0)),
            deleteOrder=int(data.get("deleteOrder", 0)),
            managedTypes=[TypeInfo.from_dict(t) for t in data.get("managedTypes") or []],
            digest=str(data.get("digest", "")),
            phase=str(data.get("phase", "")),
            status=str(data.get("status", "")),
            lastAppliedAt=data.get("lastAppliedAt") or None,
        )


def inventory_to_list(inventory: List[InventoryItem]) -> List[Dict[str, Any]]:
    """Serialise a whole inventory (what the caller persists)."""
    return [item.to_dict() for item in inventory]


def inventory_from_list(data: Optional[Sequence[Mapping[str, Any]]]) -> List[InventoryItem]:
    """Load a persisted inventory; None means empty."""
    return [InventoryItem.from_dict(entry) for entry in data or []]


def find_item(inventory: List[InventoryItem], key: ObjectKey) -> Optional[InventoryItem]:
    """The item with this identity, or None."""
    for item in inventory:
        if item.key == key:
            return item
    return None
