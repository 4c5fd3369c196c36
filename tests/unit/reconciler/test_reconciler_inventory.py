"""Unit tests: inventory items and their JSON form (reference 3.2, C8)."""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import (
    InventoryItem,
    TypeInfo,
    inventory_from_list,
    inventory_to_list,
)


def test_json_field_names_and_omitempty() -> None:
    """C8 / 3.2: the JSON field names; namespace and managedTypes omitted when empty."""
    item = InventoryItem(
        group="", version="v1", kind="Namespace", name="n", digest="d", phase="Ready", status="Current"
    )
    assert list(item.to_dict()) == [
        "group",
        "version",
        "kind",
        "name",
        "adoptionPolicy",
        "reconcilePolicy",
        "updatePolicy",
        "deletePolicy",
        "applyOrder",
        "deleteOrder",
        "digest",
        "phase",
        "status",
    ]


def test_round_trip() -> None:
    """C8: a persisted inventory loads back equal."""
    item = InventoryItem(
        group="apiextensions.k8s.io",
        version="v1",
        kind="CustomResourceDefinition",
        name="widgets.example.com",
        namespace="",
        adoptionPolicy="IfUnowned",
        reconcilePolicy="OnObjectChange",
        updatePolicy="SsaOverride",
        deletePolicy="Delete",
        applyOrder=-1,
        deleteOrder=2,
        managedTypes=[TypeInfo("example.com", "*", "Widget")],
        digest="abc",
        phase="Ready",
        status="Current",
        lastAppliedAt="2026-11-29T16:00:00Z",
    )
    data = inventory_to_list([item])
    assert data[0]["managedTypes"] == [{"group": "example.com", "version": "*", "kind": "Widget"}]
    assert inventory_from_list(data) == [item]
    assert inventory_from_list(None) == []
    assert item.describe() == "CustomResourceDefinition.apiextensions.k8s.io widgets.example.com"
