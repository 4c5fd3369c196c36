"""Integration, property-based: random sequences of desired sets converge to exactly the desired objects.

After each converged apply: exactly the desired objects carry our owner label, with the desired content; objects
orphaned on purpose (their last delete policy was orphan) are kept without any mark of the component (issue 25);
objects removed with delete policy delete are gone; foreign objects are never changed or deleted (reference 3.3, C8,
C15).
"""

from __future__ import annotations

from typing import Any, Dict, List, Set, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig
from tests.integration.reconciler.engine_harness import OWNER_LABEL, Component, configmap, unique

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

NAMES = [f"obj-{i}" for i in range(6)]
UPDATE = ["recreate", "replace", "ssa-merge", "ssa-override"]
DELETE = ["delete", "orphan", "orphan-on-apply", "orphan-on-delete"]

RECONCILE = ["on-object-change", "on-object-or-component-change"]

Spec = Tuple[int, str, str, int, str]  # data value, update policy, delete policy, apply order, reconcile policy
desired_sets = st.dictionaries(
    st.sampled_from(NAMES),
    st.tuples(
        st.integers(0, 2),
        st.sampled_from(UPDATE),
        st.sampled_from(DELETE),
        st.integers(0, 1),
        st.sampled_from(RECONCILE),
    ),
    max_size=5,
)


def manifests(desired: Dict[str, Spec]) -> List[Dict[str, Any]]:
    return [
        configmap(
            name,
            {"v": str(value)},
            update_policy=upd,
            delete_policy=dele,
            apply_order=str(order),
            reconcile_policy=rec,
        )
        for name, (value, upd, dele, order, rec) in sorted(desired.items())
    ]


def _foreign(api: KubeApi, namespace: str) -> Dict[str, str]:
    """Two foreign objects: one unowned, one owned by another component. Returns name -> resourceVersion."""
    res = api.discovery.resource("", "v1", "ConfigMap")
    assert res is not None
    versions = {}
    for name, labels in (("foreign-free", {}), ("foreign-owned", {OWNER_LABEL: "another-component"})):
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "labels": labels},
            "data": {"a": "b"},
        }
        versions[name] = api.create(res, namespace, body)["metadata"]["resourceVersion"]
    return versions


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=st.lists(st.tuples(desired_sets, st.booleans()), min_size=1, max_size=4))
def test_random_desired_sets_converge(kubeconfig: str, sequence: List[Tuple[Dict[str, Spec], bool]]) -> None:
    """C8/C15: random add/remove/modify/policy-change sequences (and component revisions): owned objects == desired;
    deliberate orphans kept without our label and annotations (issue 25); foreign objects untouched."""
    api = connect_kubeconfig(kubeconfig)
    ns_res = api.discovery.resource("", "v1", "Namespace")
    assert ns_res is not None
    namespace = unique("prop")
    api.create(ns_res, "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    try:
        foreign = _foreign(api, namespace)
        comp = Component(kubeconfig, namespace)
        orphaned: Set[str] = set()
        previous: Dict[str, Spec] = {}
        for revision, (desired, bump) in enumerate(sequence):
            if bump:  # a new component digest: on-object-or-component-change objects are re-applied
                comp.component_digest = f"rev-{revision}"
                comp.ctx = comp.new_context()
            for name, spec in previous.items():
                if name not in desired and spec[2] in ("orphan", "orphan-on-apply"):
                    orphaned.add(name)
            orphaned -= set(desired)
            comp.converge(manifests(desired))
            owned = set(comp.owned("v1", "ConfigMap"))
            assert owned == set(desired)
            for name in orphaned:  # issue 25: kept, with no mark of the component left on it
                live = comp.get("v1", "ConfigMap", name)
                assert live is not None
                marks = {**(live["metadata"].get("labels") or {}), **(live["metadata"].get("annotations") or {})}
                assert not [key for key in marks if key.startswith("component.nubes.cloud/")], marks
            assert {i.name for i in comp.inventory} == set(desired)
            assert all((i.phase, i.status) == ("Ready", "Current") for i in comp.inventory)
            for name, (value, *_rest) in desired.items():
                live = comp.get("v1", "ConfigMap", name)
                assert live is not None and live["data"] == {"v": str(value)}
                digest = live["metadata"]["annotations"]["component.nubes.cloud/digest"]
                assert digest == comp.item("ConfigMap", name).digest
            for name in set(NAMES) - set(desired) - orphaned:
                assert comp.get("v1", "ConfigMap", name) is None
            for name, version in foreign.items():
                live = comp.get("v1", "ConfigMap", name)
                assert live is not None and live["metadata"]["resourceVersion"] == version
            previous = desired
    finally:
        api.delete(ns_res, "", namespace)
