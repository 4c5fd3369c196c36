"""Integration: concurrent writes keep the reference's order (reference 3.3 step 12, 3.4, 3.5; beyond the reference).

The engine writes the objects of one apply wave, one sub-stage and one kind priority concurrently (bounded by
``EngineContext.max_workers``), and the priorities, sub-stages and waves in sequence; delete waves likewise. This
test proves on the real apiserver that the order in which objects come into (and go out of) existence is the
reference's: the apiserver's watch events carry the etcd revision (``resourceVersion``) of every create and delete,
and etcd3 numbers all writes of the cluster in one sequence, so revisions of different kinds compare. Custom
resources of the set's own CRD cannot be watched from before their type exists; nobody but the engine writes them,
so their ``resourceVersion`` is their creation's (their managedFields prove the single writer).
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest
import urllib3

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig
from tests.integration.reconciler.engine_harness import PREFIX, Component, crd, instance, unique

pytestmark = pytest.mark.cluster

Key = Tuple[str, str, str]  # kind, namespace, name
WATCHED = {  # REST path -> kind, for every built-in kind of the set
    "/api/v1/namespaces": "Namespace",
    "/api/v1/configmaps": "ConfigMap",
    "/api/v1/secrets": "Secret",
    "/api/v1/serviceaccounts": "ServiceAccount",
    "/apis/rbac.authorization.k8s.io/v1/clusterroles": "ClusterRole",
    "/apis/rbac.authorization.k8s.io/v1/roles": "Role",
    "/apis/rbac.authorization.k8s.io/v1/rolebindings": "RoleBinding",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions": "CustomResourceDefinition",
}


class Events:
    """Watches started before the writes they should see; record the etcd revision of every create and of the start
    of every deletion (the first event with a deletionTimestamp, else the DELETED event)."""

    def __init__(self, api: KubeApi) -> None:
        self.api = api
        self.created: Dict[Key, int] = {}
        self.deleting: Dict[Key, int] = {}
        self.established: Dict[str, int] = {}  # CRD name -> revision at which it became Established
        self._responses: List[Any] = []
        self._threads: List[threading.Thread] = []
        self._lock = threading.Lock()

    def watch(self, path: str, kind: str) -> None:
        """Watch a collection from its current revision on."""
        listed = self.api.connection.request("GET", path, query={"limit": 1})
        headers = {"Accept": "application/json"}
        auth = self.api.connection.transport.auth_header()
        if auth:
            headers["Authorization"] = auth
        response = self.api.connection.pool.request(
            "GET",
            f"{self.api.connection.host}{path}?watch=1&resourceVersion={listed['metadata']['resourceVersion']}"
            "&timeoutSeconds=300",
            headers=headers,
            preload_content=False,
            timeout=urllib3.Timeout(connect=10, read=None),
            retries=False,
        )
        assert response.status == 200, response.status
        self._responses.append(response)
        thread = threading.Thread(target=self._read, args=(response, kind), daemon=True)
        thread.start()
        self._threads.append(thread)

    def _read(self, response: Any, kind: str) -> None:
        buffer = b""
        try:
            for chunk in response.stream(4096):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        self._record(kind, json.loads(line))
        except Exception:  # pylint: disable=broad-except  # stop() closes the watch under the reader
            return

    def _record(self, kind: str, event: Dict[str, Any]) -> None:
        obj = event["object"]
        meta = obj.get("metadata") or {}
        key = (kind, meta.get("namespace", ""), meta.get("name", ""))
        revision = int(meta.get("resourceVersion", "0"))
        with self._lock:
            if event["type"] == "ADDED":
                self.created.setdefault(key, revision)
            if meta.get("deletionTimestamp") or event["type"] == "DELETED":
                self.deleting.setdefault(key, revision)
            conditions = (obj.get("status") or {}).get("conditions") or []
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                self.established.setdefault(meta["name"], revision)

    def stop(self) -> None:
        for response in self._responses:
            with contextlib.suppress(RuntimeError, ValueError):  # a watch the server ended is released already
                response.shutdown()
            response.release_conn()
        for thread in self._threads:
            thread.join(timeout=10)


class InFlight:
    """Counts concurrent write requests of a connection (the concurrency is real, not only the order kept)."""

    def __init__(self, api: KubeApi) -> None:
        self.current = 0
        self.most = 0
        self._lock = threading.Lock()
        send: Callable[..., Any] = api.connection._send  # pylint: disable=protected-access

        def counting(method: str, *args: Any) -> Any:
            if method == "GET":
                return send(method, *args)
            with self._lock:
                self.current += 1
                self.most = max(self.most, self.current)
            try:
                return send(method, *args)
            finally:
                with self._lock:
                    self.current -= 1

        api.connection._send = counting  # type: ignore[method-assign,assignment]  # pylint: disable=protected-access


def annotated(obj: Dict[str, Any], **annotations: str) -> Dict[str, Any]:
    obj["metadata"].setdefault("annotations", {}).update(
        {f"{PREFIX}/{k.replace('_', '-')}": v for k, v in annotations.items()}
    )
    return obj


def rbac(kind: str, name: str, namespace: str = "", **extra: Any) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta, **extra}


def core(kind: str, name: str, namespace: str, **extra: Any) -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": namespace}, **extra}


@pytest.fixture
def comp(kubeconfig: str, kube_namespace: str) -> Iterator[Component]:
    component = Component(kubeconfig, kube_namespace)
    component.ctx.max_workers = 8
    yield component
    if component.inventory:
        component.converge_delete(max_seconds=90)


def test_concurrent_waves_keep_the_order_of_waves_kinds_crds_and_namespaces(comp: Component) -> None:
    """Apply: waves in order, each ready before the next starts; in a wave the kind priorities in order (Namespace;
    CRD, Roles; ConfigMaps, Secrets, RoleBindings; the rest), the set's namespace before its members, managed
    instances after their CRD is Established. Delete: the earlier delete wave first, instances before their CRD
    (which waits for them), the other kind priorities in order, the namespace after its members. Objects of one
    priority are written concurrently."""
    group = f"{unique('o')}.example.com"
    inner, ns = unique("ord"), comp.namespace
    rules: Dict[str, Any] = {"rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}
    binding: Dict[str, Any] = {
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "sa-0", "namespace": inner}],
    }
    # Listed against the order they must be written in: the input order must not matter.
    wave0 = [core("ServiceAccount", f"sa-{i}", inner if i % 2 == 0 else ns) for i in range(4)]
    wave0 += [instance(group, "Widget", f"w-{i}", namespace=inner if i % 2 == 0 else ns) for i in range(3)]
    wave0 += [core("ConfigMap", f"cm-{i}", inner if i % 2 == 0 else ns, data={"i": str(i)}) for i in range(12)]
    wave0 += [core("Secret", f"s-{i}", inner, stringData={"i": str(i)}) for i in range(4)]
    wave0 += [
        rbac("RoleBinding", "reader", inner, **binding),
        rbac("ClusterRole", f"{inner}-reader", **rules),
        rbac("Role", "reader", inner, **rules),
        crd(group, "Widget", "widgets"),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": inner}},
    ]
    early = [annotated(core("ConfigMap", f"early-{i}", ns), apply_order="-1", delete_order="-1") for i in range(3)]
    late = [annotated(core("ConfigMap", f"late-{i}", ns), apply_order="1") for i in range(3)]
    late.append(annotated(instance(group, "Widget", "w-late", namespace=ns), apply_order="1"))
    objects = late + wave0 + early

    events = Events(connect_kubeconfig(comp.kubeconfig))  # a pool of its own: the engine's is busy writing
    for path, kind in WATCHED.items():
        events.watch(path, kind)
    writes = InFlight(comp.api)
    widgets: Dict[Key, int] = {}
    try:
        comp.converge(objects)
        for obj in objects:
            if obj["kind"] == "Widget":
                live = comp.get(f"{group}/v1", "Widget", obj["metadata"]["name"], obj["metadata"]["namespace"])
                assert live is not None
                assert [f["manager"] for f in live["metadata"]["managedFields"]] == [comp.ctx.markers.field_manager]
                widgets[("Widget", obj["metadata"]["namespace"], obj["metadata"]["name"])] = int(
                    live["metadata"]["resourceVersion"]
                )
        events.watch(f"/apis/{group}/v1/widgets", "Widget")
        comp.converge_delete()
    finally:
        events.stop()

    created = {**events.created, **widgets}
    deleting = events.deleting

    def keys(selection: List[Dict[str, Any]], *kinds: str) -> List[Key]:
        return [
            (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
            for o in selection
            if not kinds or o["kind"] in kinds
        ]

    def before(first: List[Key], then: List[Key], seen: Dict[Key, int], what: str) -> None:
        missing = [k for k in first + then if k not in seen]
        assert not missing, f"no event for {missing}"
        assert max(seen[k] for k in first) < min(seen[k] for k in then), f"{what}: {first} not all before {then}"

    # waves: every create of a wave before any create of the next; the next starts once the wave is ready
    before(keys(early), keys(wave0), created, "apply wave -1 before 0")
    before(keys(wave0), keys(late), created, "apply wave 0 before 1")
    # kind priorities within wave 0 (regular stage), then its managed instances once the CRD is Established
    priorities = [
        keys(wave0, "Namespace"),
        keys(wave0, "CustomResourceDefinition", "ClusterRole", "Role"),
        keys(wave0, "ConfigMap", "Secret", "RoleBinding"),
        keys(wave0, "ServiceAccount"),
    ]
    for first, then in zip(priorities, priorities[1:]):
        before(first, then, created, "kind priority")
    crd_established = events.established[f"widgets.{group}"]
    assert crd_established < min(created[k] for k in keys(wave0, "Widget")), "instances before their CRD was ready"
    assert all(created[k] > created[("Namespace", "", inner)] for k in keys(wave0) if k[1] == inner)

    # deletion: delete wave -1 first; instances, then the CRD; then the kind priorities; the namespace last
    everything = keys(objects)
    before(keys(early), [k for k in everything if k not in keys(early)], deleting, "delete wave -1 before 0")
    rest = [k for k in everything if k not in keys(early)]
    widget_keys = [k for k in rest if k[0] == "Widget"]
    before(widget_keys, [k for k in rest if k[0] == "CustomResourceDefinition"], deleting, "instances first")
    by_priority = [  # the CRD has priority -1 but waits for its instances (above), so it is not in this chain
        [k for k in rest if k[0] in ("ServiceAccount", "ClusterRole", "Role", "RoleBinding")],
        [k for k in rest if k[0] in ("ConfigMap", "Secret")],
        [("Namespace", "", inner)],
    ]
    for first, then in zip(by_priority, by_priority[1:]):
        before(first, then, deleting, "delete priority")
    assert writes.most > 1, "objects of one kind priority are written concurrently"
