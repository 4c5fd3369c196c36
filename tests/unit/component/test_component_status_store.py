"""Unit tests of the component record (status shape, C5-C8), its ConfigMap form, and connection helpers."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore, record_name
from ansible_collections.nubes.cloud.plugins.module_utils.component.report import MASK, clean
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import (
    STATUS_FIELDS,
    ComponentRecord,
    ComponentStatus,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import kubeconfig_dict, sensitive_values


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
    assert set(ComponentRecord().status()) == set(STATUS_FIELDS)
    assert len(STATUS_FIELDS) == 11


def test_absorb_ready_sets_applied_generation_and_condition() -> None:
    """C6, C7: Ready gives Ready=True and appliedGeneration = generation; Error gives False."""
    record = ComponentRecord(generation=3)
    status = ComponentStatus()
    status.set("Ready", "Ready", "done", "2026-01-01T00:00:00Z")
    record.absorb(status, [{"kind": "ConfigMap"}], "2026-01-01T00:00:01Z")
    assert (record.state, record.observedGeneration, record.appliedGeneration) == ("Ready", 3, 3)
    assert record.conditions[0]["status"] == "True"
    status.set("Error", "Timeout", "late", "2026-01-01T00:00:02Z")
    record.generation = 4
    record.absorb(status, [], "2026-01-01T00:00:03Z")
    assert (record.state, record.appliedGeneration, record.conditions[0]["status"]) == ("Error", 3, "False")


def test_store_round_trip_writes_only_on_change() -> None:
    """C3, C8: the record survives a save/load; an unchanged record (apart from lastObservedAt) is not rewritten."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "web", "component.nubes.cloud")  # type: ignore[arg-type]
    record = ComponentRecord(generation=1, state="Ready", inventory=[{"kind": "ConfigMap", "name": "a"}])
    assert store.save(record) is True
    record.lastObservedAt = "2026-01-01T00:00:00Z"
    assert store.save(record) is False
    body = api.objects["cloud.nubes.component.web"]
    assert body["metadata"]["labels"]["component.nubes.cloud/component"] == "web"
    loaded = ComponentStore(api, "ns", "web", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None and loaded.inventory == record.inventory and loaded.state == "Ready"


def test_large_inventory_is_compressed() -> None:
    """Large inventories go gzip-compressed into binaryData and load back."""
    api = _MemoryApi()
    store = ComponentStore(api, "ns", "big", "component.nubes.cloud")  # type: ignore[arg-type]
    inventory: List[Dict[str, Any]] = [
        {"kind": "ConfigMap", "name": f"object-{i:05d}", "digest": "x" * 64} for i in range(2000)
    ]
    store.save(ComponentRecord(inventory=inventory))
    body = api.objects["cloud.nubes.component.big"]
    assert "inventory" not in body["data"]
    packed = json.loads(gzip.decompress(base64.b64decode(body["binaryData"]["inventory.gz"])))
    assert packed == inventory
    loaded = ComponentStore(api, "ns", "big", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None and loaded.inventory == inventory


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
    plain = ComponentRecord(generation=1, inventory=[{"kind": "ConfigMap", "name": "a"}])
    store.save(plain)
    body = api.objects["cloud.nubes.component.shop"]
    assert sorted(body["data"]) == ["inventory", "status", "version"]
    assert not {"deleteHooks", "deletePhase", "deleteHooksInventory"} & set(json.loads(body["data"]["status"]))

    hook = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bye"}, "data": {"x": "y" * 100}}
    record = ComponentRecord(
        generation=1,
        deleteHooks={"pre-delete": [hook], "post-delete": [hook] * 1000},
        deletePhase="post-delete",
        deleteHooksInventory=[{"kind": "ConfigMap", "name": "bye"}],
    )
    store.save(record)
    body = api.objects["cloud.nubes.component.shop"]
    assert "deleteHooks" not in body["data"] and "deleteHooks.gz" in body["binaryData"]
    loaded = ComponentStore(api, "ns", "shop", "component.nubes.cloud").load()  # type: ignore[arg-type]
    assert loaded is not None
    assert (loaded.deleteHooks, loaded.deletePhase, loaded.deleteHooksInventory) == (
        record.deleteHooks,
        "post-delete",
        [{"kind": "ConfigMap", "name": "bye"}],
    )
    assert "deleteHooks" not in loaded.status()  # C5: the returned status keeps the seed's fields
