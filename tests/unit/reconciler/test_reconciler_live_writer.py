"""Unit tests: live reads with few calls (LiveReader) and the object as written (desired_body)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import CallCounter, ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.writer import desired_body, release

CM = ResourceInfo("", "v1", "ConfigMap", "configmaps", True)


class StubApi:
    """Records calls; ``objects`` is the cluster: (namespace, name) -> object."""

    def __init__(self, objects: Dict[Tuple[str, str], Dict[str, Any]]) -> None:
        self.objects = objects
        self.calls = CallCounter()
        self.log: List[str] = []

    def list(self, res: ResourceInfo, namespace: str, label_selector: Optional[str] = None, **_kw: Any) -> List[Any]:
        self.log.append(f"LIST {namespace} {label_selector}")
        key, value = label_selector.split("=") if label_selector else ("", "")
        return [
            o
            for (ns, _name), o in self.objects.items()
            if ns == namespace and (not key or o["metadata"].get("labels", {}).get(key) == value)
        ]

    def get(self, res: ResourceInfo, namespace: str, name: str) -> Optional[Dict[str, Any]]:
        self.log.append(f"GET {namespace}/{name}")
        return self.objects.get((namespace, name))


def obj(name: str, owner: str = "") -> Dict[str, Any]:
    labels = {"p/owner-id": owner} if owner else {}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns", "labels": labels}}


def test_one_list_serves_owned_objects_and_get_only_for_the_rest() -> None:
    """Performance by design: one LIST per type and namespace; GET only when the LIST cannot answer."""
    api = StubApi({("ns", "mine"): obj("mine", "me"), ("ns", "theirs"): obj("theirs", "other")})
    reader = LiveReader(api, "p/owner-id=me")  # type: ignore[arg-type]
    with ThreadPoolExecutor(2) as pool:
        reader.prefetch([(CM, "ns"), (CM, "ns")], pool)
    assert reader.get(CM, "ns", "mine") is not None
    assert reader.get(CM, "ns", "absent", owned_only=True) is None  # trusted: no GET
    assert reader.get(CM, "ns", "theirs") is not None  # not ours: confirmed by GET
    assert reader.get(None, "ns", "x") is None  # unknown type: absent
    assert api.log == ["LIST ns p/owner-id=me", "GET ns/theirs"]


def test_unfiltered_list_is_complete() -> None:
    """An unfiltered (adoption) LIST answers absence without GETs."""
    api = StubApi({("ns", "theirs"): obj("theirs", "other")})
    reader = LiveReader(api, "p/owner-id=me")  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        reader.prefetch([(CM, "ns")], pool, unfiltered=True)
    assert reader.get(CM, "ns", "theirs") is not None
    assert reader.get(CM, "ns", "absent") is None
    assert api.log == ["LIST ns None"]


class Ctx:
    """Just what desired_body reads."""

    class markers:
        owner_label = "p/owner-id"
        digest_annotation = "p/digest"
        finalizer = "p/finalizer"

    hashed_owner_id = "hash"
    owner_id = "uid/ns/comp"


def test_desired_body_markers_and_finalizer() -> None:
    """3.1: owner label (hash), owner annotation (plain), digest annotation; issue 25: no engine finalizer, also
    not on CRDs/APIServices (their own finalizers are kept)."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "labels": {"x": "y"}}}
    body = desired_body(manifest, "d1", "", "ConfigMap", Ctx)  # type: ignore[arg-type]
    assert body["metadata"]["labels"] == {"x": "y", "p/owner-id": "hash"}
    assert body["metadata"]["annotations"] == {"p/owner-id": "uid/ns/comp", "p/digest": "d1"}
    assert "finalizers" not in body["metadata"]
    assert manifest["metadata"] == {"name": "a", "labels": {"x": "y"}}  # input untouched
    crd: Dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "w", "finalizers": ["other/f"]},
    }
    body = desired_body(crd, "d2", "apiextensions.k8s.io", "CustomResourceDefinition", Ctx)  # type: ignore[arg-type]
    assert body["metadata"]["finalizers"] == ["other/f"]
    assert crd["metadata"]["finalizers"] == ["other/f"], "the desired object is not changed"


class PatchApi:
    """Records JSON patches; the first ``conflicts`` answer 409 and the object is read again."""

    def __init__(self, fresh: Dict[str, Any], conflicts: int = 0) -> None:
        self.fresh, self.conflicts = fresh, conflicts
        self.patches: List[List[Dict[str, Any]]] = []

    def json_patch(self, _res: Any, _ns: str, _name: str, ops: List[Dict[str, Any]], field_manager: str) -> Any:
        assert field_manager == "p"
        self.patches.append(ops)
        if len(self.patches) <= self.conflicts:
            raise ApiError("PATCH", "/x", 409, {"message": "conflict"})
        return {}

    def get(self, _res: Any, _ns: str, _name: str) -> Dict[str, Any]:
        return self.fresh


def test_release_removes_every_mark_of_the_component() -> None:
    """Issue 25: an object orphaned on purpose loses the engine's finalizer and every label and annotation under
    its prefix in one JSON patch (a '/' in a key escaped as ~1); other labels, annotations and finalizers stay; on a
    conflict the object is read again and the patch rebuilt."""
    live = {
        "metadata": {
            "name": "widgets.x",
            "finalizers": ["other/f", "p/finalizer"],
            "labels": {"p/owner-id": "hash", "app": "x"},
            "annotations": {"p/owner-id": "uid/ns/c", "p/digest": "d", "p/delete-policy": "orphan", "note": "n"},
        }
    }
    api = PatchApi(live, conflicts=1)
    assert release(api, CM, live, Markers("p")) is True  # type: ignore[arg-type]
    assert len(api.patches) == 2 and api.patches[0] == api.patches[1]
    assert api.patches[1] == [
        {"op": "test", "path": "/metadata/finalizers", "value": ["other/f", "p/finalizer"]},
        {"op": "replace", "path": "/metadata/finalizers", "value": ["other/f"]},
        {"op": "remove", "path": "/metadata/labels/p~1owner-id"},
        {"op": "remove", "path": "/metadata/annotations/p~1delete-policy"},
        {"op": "remove", "path": "/metadata/annotations/p~1digest"},
        {"op": "remove", "path": "/metadata/annotations/p~1owner-id"},
    ]
    unmarked = {"metadata": {"name": "a", "labels": {"app": "x"}}}
    assert release(PatchApi(unmarked), CM, unmarked, Markers("p")) is False  # type: ignore[arg-type]
