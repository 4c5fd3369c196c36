"""Unit tests of the component record (status shape, C5-C8), its ConfigMap form, and connection helpers."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any, Dict, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore, record_name
from ansible_collections.nubes.cloud.plugins.module_utils.component.report import MASK, clean
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import STATUS_FIELDS, ComponentStatus
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import kubeconfig_dict, sensitive_values
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem


def _item(name: str, digest: str = "") -> InventoryItem:
    return InventoryItem("", "v1", "ConfigMap", name, "ns", digest=digest, phase="Ready", status="Current")


class _FakeCalls:
    def snapshot(self) -> Dict[str, int]:
        return {}


class _MemoryApi:
    """Just enough of KubeApi for the store: one ConfigMap kept in memory."""

    def __init__(self) -> None:
        self.objects: Dict[str, Dict[str, Any]] = {}
        self.version = 0
        self.calls = _FakeCalls()

    def get(self, res: Any, namespace: str, name: str) -> Optional[Dict[str, Any]]:
        return json.loads(json.dumps(self.objects[name])) if name in self.objects else None

    def _store(self, body: Dict[str, Any]) -> Dict[str, Any]:
        self.version += 1
        body = json.loads(json.dumps(body))
        body["metadata"]["resourceVersion"] = str(self.version)
        self.objects[body["metadata"]["name"]] = body
        return body

    def create(self, res: Any, namespace: str, body: Dict[str, Any], field_manager: Optional[str] = None) -> Any:
        return self._store(body)

    def replace(self, res: Any, namespace: str, name: str, body: Dict[str, Any], field_manager: Any = None) -> Any:
        return self._store(body)


def test_status_has_the_seed_fields() -> None:
    """C5: the returned status has exactly the seed's fields."""
    assert set(ComponentStatus().status()) == set(STATUS_FIELDS)
    assert len(STATUS_FIELDS) == 11


def test_set_state_keeps_one_ready_condition() -> None:
    """C6, C7: one Ready condition: True for Ready, False for Error, Unknown otherwise; its lastTransitionTime moves
    only when its status changes (reference 1.2)."""
    status = ComponentStatus()
    status.set_state("Processing", "Processing", "busy", "2026-01-01T00:00:00Z")
    status.set_state("Pending", "Retrying", "conflict", "2026-01-01T00:00:01Z")
    assert status.conditions == [
        {
            "type": "Ready",
            "status": "Unknown",
            "reason": "Retrying",
            "message": "conflict",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
        }
    ]
    status.set_state("Ready", "Ready", "done", "2026-01-01T00:00:02Z")
    assert (status.state, status.reason, status.message) == ("Ready", "Ready", "done")
    assert status.conditions[0]["status"] == "True" and status.conditions[0]["lastTransitionTime"].endswith("02Z")
    status.set_state("Error", "Timeout", "late", "2026-01-01T00:00:03Z")
    assert (status.conditions[0]["status"], len(status.conditions)) == ("False", 1)


def test_store_round_trip_writes_only_on_change() -> None:
    """C3, C8: the record survives a save/load; an unchanged record (apart from lastObservedAt) is not rewritten."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "web", "component.nubes.cloud")  # type: ignore[arg-type]
    record = ComponentStatus(generation=1, state="Ready", inventory=[_item("a")])
    assert store.save(record) is True
    record.lastObservedAt = "2026-01-01T00:00:00Z"
    assert store.save(record) is False
    record.inventory[0].phase = "Updating"  # the reconciler changes its items in place: that is a change
    assert store.save(record) is True
    body = api.objects["cloud.nubes.component.web"]
    assert body["metadata"]["labels"]["component.nubes.cloud/component"] == "web"
    loaded = ComponentStore(api, "ns", "web", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None and loaded.inventory == record.inventory and loaded.state == "Ready"


def test_large_inventory_is_compressed() -> None:
    """Large inventories go gzip-compressed into binaryData and load back."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "big", "component.nubes.cloud")  # type: ignore[arg-type]
    inventory = [_item(f"object-{i:05d}", digest="x" * 64) for i in range(2000)]
    store.save(ComponentStatus(inventory=inventory))
    body = api.objects["cloud.nubes.component.big"]
    assert "inventory" not in body["data"]
    packed = json.loads(gzip.decompress(base64.b64decode(body["binaryData"]["inventory.gz"])))
    assert packed == [item.to_dict() for item in inventory]
    loaded = ComponentStore(api, "ns", "big", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None and loaded.inventory == inventory


def test_a_corrupt_inventory_is_a_clear_error() -> None:
    """An inventory entry without its kind is reported as a corrupt record, with what to do."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "bad", "component.nubes.cloud")  # type: ignore[arg-type]
    store.save(ComponentStatus(inventory=[_item("a")]))
    api.objects["cloud.nubes.component.bad"]["data"]["inventory"] = json.dumps([{"name": "a"}])
    with pytest.raises(ComponentError, match="is corrupt; inspect it with kubectl, fix or delete it"):
        ComponentStore(api, "ns", "bad", "component.nubes.cloud").load()  # type: ignore[arg-type]


def test_record_name() -> None:
    """The record's name is the reversed prefix plus the component name."""
    assert record_name("component.nubes.cloud", "web") == "cloud.nubes.component.web"


def test_kubeconfig_forms_and_secret_values() -> None:
    """C11: a kubeconfig as text or dict; its secrets are collected for masking."""
    text = "apiVersion: v1\nclusters: []\nusers:\n  - name: u\n    user:\n      token: abc123\n"
    data = kubeconfig_dict(text)
    assert data is not None and data["users"][0]["user"]["token"] == "abc123"
    assert kubeconfig_dict(data) == data
    assert sensitive_values(data) == ["abc123"]


def test_clean_masks_secret_data() -> None:
    """Diff output: Secret values masked, server bookkeeping removed."""
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s", "resourceVersion": "5", "managedFields": []},
        "data": {"password": "c2VjcmV0"},
    }
    cleaned = clean(secret)
    assert cleaned == {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"password": MASK}}


def test_delete_hooks_are_kept_in_a_data_key_of_their_own() -> None:
    """C8: a Helm chart's delete hooks, the deletion's step and the hooks' inventory survive a save/load; the hooks
    have their own data key (compressed when large), and records without them keep their old form."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "shop", "component.nubes.cloud")  # type: ignore[arg-type]
    plain = ComponentStatus(generation=1, inventory=[_item("a")])
    store.save(plain)
    body = api.objects["cloud.nubes.component.shop"]
    assert sorted(body["data"]) == ["inventory", "status", "version"]
    assert not {"deleteHooks", "deletePhase", "deleteHooksInventory"} & set(json.loads(body["data"]["status"]))

    hook = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bye"}, "data": {"x": "y" * 100}}
    record = ComponentStatus(
        generation=1,
        deleteHooks={"pre-delete": [hook], "post-delete": [hook] * 1000},
        deletePhase="post-delete",
        deleteHooksInventory=[_item("bye")],
    )
    store.save(record)
    body = api.objects["cloud.nubes.component.shop"]
    assert "deleteHooks" not in body["data"] and "deleteHooks.gz" in body["binaryData"]
    loaded = ComponentStore(api, "ns", "shop", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None
    assert (loaded.deleteHooks, loaded.deletePhase, loaded.deleteHooksInventory) == (
        record.deleteHooks,
        "post-delete",
        [_item("bye")],
    )
    assert "deleteHooks" not in loaded.status()  # C5: the returned status keeps the seed's fields
