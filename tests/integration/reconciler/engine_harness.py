"""Helpers for the engine's integration tests: a component context against the real test cluster.

No fakes: every call goes to the kube-apiserver started by tests/cluster/up. Only the engine's clock is
controllable (to test the force-reapply interval without sleeping).
"""

from __future__ import annotations

import datetime
import json
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import ResourceInfo
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import apply_waves, delete_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import (
    InventoryItem,
    TypeInfo,
    inventory_from_list,
    inventory_to_list,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import owner_id
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults

PREFIX = "component.nubes.cloud"
OWNER_LABEL = f"{PREFIX}/owner-id"
DIGEST = f"{PREFIX}/digest"


def unique(prefix: str) -> str:
    """A DNS-1123 name unique to this test run."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class FakeClock:
    """The engine's clock, starting now; ``advance`` moves it forward."""

    def __init__(self) -> None:
        self.now = datetime.datetime.now(datetime.timezone.utc)

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += datetime.timedelta(seconds=seconds)


class Component:
    """One component under test: its context, its inventory (persisted as JSON like a module would)."""

    def __init__(
        self,
        kubeconfig: str,
        namespace: str,
        name: Optional[str] = None,
        defaults: Optional[Defaults] = None,
        additional_managed_types: Sequence[TypeInfo] = (),
        component_digest: str = "",
    ) -> None:
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.name = name or unique("comp")
        self.clock = FakeClock()
        self.defaults = defaults or Defaults()
        self.additional = list(additional_managed_types)
        self.component_digest = component_digest
        self.api = connect_kubeconfig(kubeconfig)
        self.owner_id = owner_id(self.api.cluster_uid(), namespace, self.name)
        self.ctx = self.new_context()
        self.inventory: List[InventoryItem] = []
        self.saved: List[Dict[str, Any]] = []

    def new_context(self) -> EngineContext:
        return EngineContext(
            api=self.api,
            namespace=self.namespace,
            owner_id=self.owner_id,
            component_digest=self.component_digest,
            defaults=self.defaults,
            additional_managed_types=self.additional,
            clock=self.clock,
        )

    # steps -------------------------------------------------------------------------------------------------
    def apply(self, objects: Sequence[Dict[str, Any]]) -> bool:
        done = apply_waves.apply(self.inventory, objects, self.ctx)
        self.persist()
        return done

    def delete(self) -> bool:
        done = delete_waves.delete(self.inventory, self.ctx)
        self.persist()
        return done

    def persist(self) -> None:
        self.saved = json.loads(json.dumps(inventory_to_list(self.inventory)))

    def restart(self) -> None:
        """A new process: fresh connection, context and inventory loaded from what was persisted last."""
        self.api = connect_kubeconfig(self.kubeconfig)
        self.ctx = self.new_context()
        self.inventory = inventory_from_list(self.saved)

    def converge(self, objects: Sequence[Dict[str, Any]], max_seconds: float = 90.0) -> int:
        """Apply until done; returns the number of calls."""
        return self._loop(lambda: self.apply(objects), max_seconds)

    def apply_until(self, objects: Sequence[Dict[str, Any]], predicate: Any, max_seconds: float = 60.0) -> int:
        """Apply (retrying retriable errors) until ``predicate()`` holds after a call that returned False."""
        return self._loop(lambda: self.apply(objects) is False and bool(predicate()), max_seconds)

    def converge_delete(self, max_seconds: float = 90.0) -> int:
        def step() -> bool:
            ok, message = delete_waves.is_deletion_allowed(self.inventory, self.ctx)
            assert ok, message
            return self.delete()

        return self._loop(step, max_seconds)

    @staticmethod
    def _loop(step: Any, max_seconds: float) -> int:
        deadline = time.monotonic() + max_seconds
        calls = 0
        while True:
            calls += 1
            try:
                if step():
                    return calls
            except KubeError as exc:  # retried like the component's reconcile does (conflicts, storage initialising)
                if not exc.retriable:
                    raise
            if time.monotonic() > deadline:
                raise AssertionError(f"not converged after {calls} calls")
            time.sleep(0.2 if calls < 10 else 0.5)

    # inspection ------------------------------------------------------------------------------------------
    def phases(self) -> Dict[str, Tuple[str, str]]:
        """``{"Kind/name": (phase, status)}`` of the inventory."""
        return {f"{i.kind}/{i.name}": (i.phase, i.status) for i in self.inventory}

    def item(self, kind: str, name: str) -> InventoryItem:
        for item in self.inventory:
            if item.kind == kind and item.name == name:
                return item
        raise AssertionError(f"{kind}/{name} not in inventory: {self.phases()}")

    def resource(self, api_version: str, kind: str) -> ResourceInfo:
        group, _sep, version = api_version.rpartition("/")
        res = self.api.discovery.resource(group, version, kind)
        if res is None:
            self.api.discovery.reset_misses()
            self.api.discovery.invalidate(group, version)
            res = self.api.discovery.resource(group, version, kind)
        assert res is not None, f"{api_version} {kind} not served"
        return res

    def get(self, api_version: str, kind: str, name: str, namespace: Optional[str] = None) -> Optional[Dict[str, Any]]:
        res = self.resource(api_version, kind)
        return self.api.get(res, self.namespace if namespace is None else namespace, name)

    def owned(self, api_version: str, kind: str, namespace: Optional[str] = None) -> List[str]:
        """Names of objects of a kind carrying this component's owner label."""
        res = self.resource(api_version, kind)
        ns = (self.namespace if namespace is None else namespace) if res.namespaced else ""
        items = self.api.list(res, ns, label_selector=f"{OWNER_LABEL}={self.ctx.hashed_owner_id}")
        return sorted(item["metadata"]["name"] for item in items)


def configmap(name: str, data: Optional[Dict[str, str]] = None, **annotations: str) -> Dict[str, Any]:
    """A ConfigMap manifest; keyword arguments become engine annotations (``apply_order="1"``)."""
    meta: Dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = {f"{PREFIX}/{k.replace('_', '-')}": v for k, v in annotations.items()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {"k": "v"}}


def crd(group: str, kind: str, plural: str, scope: str = "Namespaced", **annotations: str) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": f"{plural}.{group}"}
    if annotations:
        meta["annotations"] = {f"{PREFIX}/{k.replace('_', '-')}": v for k, v in annotations.items()}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": meta,
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "scope": scope,
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                }
            ],
        },
    }


def instance(group: str, kind: str, name: str, namespace: Optional[str] = None, **spec: Any) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": f"{group}/v1", "kind": kind, "metadata": meta, "spec": spec or {"size": 1}}
