"""Issue 27: what decides that a failed first apply undoes itself (no object of the set in the cluster, C8), the
namespaces a run reports as created, and the message when the clean-up itself fails (on a fake API that denies the
namespace's deletion; the clean-up that works is proved on the real apiserver, tests/integration/component/
test_component_first_apply.py)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component.first_apply import (
    FIRST_APPLY,
    FirstApplyUndo,
    nothing_in_cluster,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.record import ComponentStore
from ansible_collections.nubes.cloud.plugins.module_utils.component.report import Writes
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Forbidden
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers

PREFIX = "component.nubes.cloud"


def _item(kind: str, name: str, phase: str = "ScheduledForApplication", applied: Optional[str] = None) -> InventoryItem:
    namespace = "" if kind == "Namespace" else "t-1"
    return InventoryItem("", "v1", kind, name, namespace, phase=phase, lastAppliedAt=applied)


def test_nothing_in_cluster_while_every_item_is_only_scheduled() -> None:
    """Issue 27, C8: items written ahead and never applied mean nothing of the set is in the cluster; so does an
    empty inventory (the run failed before the first step built it)."""
    assert nothing_in_cluster([], "") is True
    assert nothing_in_cluster([_item("ConfigMap", "a"), _item("Secret", "b")], "t-1") is True


def test_an_applied_or_found_item_is_in_the_cluster() -> None:
    """Issue 27, C8: an item created (Creating), found ready, or written once (lastAppliedAt) is in the cluster."""
    assert nothing_in_cluster([_item("ConfigMap", "a"), _item("Secret", "b", phase="Creating")], "") is False
    assert nothing_in_cluster([_item("ConfigMap", "a", phase="Ready")], "") is False
    assert nothing_in_cluster([_item("ConfigMap", "a", applied="2026-01-01T00:00:00Z")], "") is False


def test_the_own_namespace_counts_only_when_the_run_did_not_create_it() -> None:
    """Issue 27: the component's own namespace as an item of the set, created by this run to hold the record and
    then given its markers, does not count; the same namespace found and adopted (it existed before) does."""
    items = [_item("Namespace", "t-1", phase="Ready", applied="2026-01-01T00:00:00Z"), _item("ConfigMap", "a")]
    assert nothing_in_cluster(items, "t-1") is True
    assert nothing_in_cluster(items, "") is False
    assert nothing_in_cluster(items, "other") is False


def test_writes_name_the_namespaces_the_run_created() -> None:
    """Issue 27: the namespaces a run created (its own, the missing-namespaces policy's), not other objects."""
    writes = Writes()
    writes("created", "Namespace t-1", None, {"metadata": {"name": "t-1"}})
    writes("created", "ConfigMap t-1/a", None, {"metadata": {"name": "a"}})
    writes("created", "Namespace made-1", None, {"metadata": {"name": "made-1"}})
    writes("updated", "Namespace kept", {}, {})
    assert writes.created_namespaces() == ["made-1", "t-1"]


class _Discovery:
    def namespaced_listable(self) -> List[Any]:
        return []


class _DenyingApi:
    """Enough of KubeApi for the clean-up: the namespace is empty, and deleting it is forbidden."""

    def __init__(self) -> None:
        self.discovery = _Discovery()
        self.deleted: List[str] = []

    def get(self, _res: Any, _namespace: str, name: str) -> Optional[Dict[str, Any]]:
        return {"metadata": {"name": name}}

    def delete(self, res: Any, namespace: str, name: str, resource_version: Optional[str] = None) -> bool:
        if res.kind == "Namespace":
            body = {"reason": "Forbidden", "message": f'namespaces "{name}" is forbidden: User "carol" cannot delete'}
            raise Forbidden("DELETE", f"/api/v1/namespaces/{name}", 403, body)
        self.deleted.append(f"{res.kind} {namespace}/{name}")
        return True


def test_a_failed_clean_up_names_what_is_left_and_how_to_remove_it() -> None:
    """Issue 27: when the namespace the run created may not be deleted, the message says so with the server's text,
    names what is left (the namespace and the record in it) and says to run the task with ``state: absent``; the
    record is kept for that run, and the diff still shows the namespace."""
    api = _DenyingApi()
    store = ComponentStore(api, "t-1", "web", PREFIX)  # type: ignore[arg-type]
    store.resource_version = "7"  # the run wrote the record
    writes = Writes()
    writes("created", "Namespace t-1", None, {"metadata": {"name": "t-1"}})
    undo = FirstApplyUndo(api, store, writes, 0.0)  # type: ignore[arg-type]

    said = undo.run(True, Markers(PREFIX), "hashed")

    assert said.startswith(f"{FIRST_APPLY}, but removing what it created failed (")
    assert 'User "carol" cannot delete' in said
    assert "left in the cluster: namespace t-1, the record ConfigMap t-1/cloud.nubes.component.web" in said
    assert said.endswith("run the task with `state: absent` to remove it.")
    assert api.deleted == []
    assert writes.objects()["deleted"] == []
