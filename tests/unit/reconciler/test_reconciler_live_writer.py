"""Unit tests: live reads with few calls (LiveReader) and the object as written (desired_body)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import CallCounter, ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.live import LiveReader
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.writer import desired_body

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
    """3.1: owner label (hash), owner annotation (plain), digest annotation; finalizer only on CRDs/APIServices."""
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
    assert body["metadata"]["finalizers"] == ["other/f", "p/finalizer"]
    assert crd["metadata"]["finalizers"] == ["other/f"], "the desired object's lists are not appended to"
