"""Integration: adoption, update, delete and reconcile policies against the real API server (C15, C17)."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import OwnerConflictError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import Defaults
from tests.integration.reconciler.engine_harness import OWNER_LABEL, Component, configmap

pytestmark = pytest.mark.cluster

READY = ("Ready", "Current")


@pytest.fixture
def comp(kubeconfig: str, kube_namespace: str) -> Component:
    return Component(kubeconfig, kube_namespace)


def _foreign(comp: Component, name: str, owner: str = "") -> Dict[str, Any]:
    """Create an object as someone else would (optionally labelled by another component)."""
    body = configmap(name, {"k": "foreign"})
    body["metadata"]["namespace"] = comp.namespace
    if owner:
        body["metadata"]["labels"] = {OWNER_LABEL: owner}
        body["metadata"]["annotations"] = {OWNER_LABEL: f"uid/other-ns/{owner}"}
    return comp.api.create(comp.resource("v1", "ConfigMap"), comp.namespace, body)


@pytest.mark.parametrize(
    ("policy", "existing_owner", "adopted"),
    [
        ("never", "", False),
        ("never", "other", False),
        ("if-unowned", "", True),
        ("IfUnowned", "other", False),
        ("always", "", True),
        ("Always", "other", True),
    ],
)
def test_adoption_policies(comp: Component, policy: str, existing_owner: str, adopted: bool) -> None:
    """C15: adoption never / if-unowned / always, for unowned and foreign-owned existing objects."""
    created = _foreign(comp, "existing", existing_owner)
    objects = [configmap("existing", {"k": "ours"}, adoption_policy=policy), configmap("fresh")]
    if not adopted:
        with pytest.raises(OwnerConflictError) as err:
            comp.apply(objects)
        assert "existing" in str(err.value)
        if existing_owner:
            assert "owner conflict" in str(err.value) and "uid/other-ns/other" in str(err.value)
        assert comp.inventory == []  # an error leaves the inventory unchanged
        live = comp.get("v1", "ConfigMap", "existing")
        assert live is not None
        assert live["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]  # untouched
        return
    comp.converge(objects)
    assert comp.phases() == {"ConfigMap/existing": READY, "ConfigMap/fresh": READY}
    live = comp.get("v1", "ConfigMap", "existing")
    assert live is not None
    assert live["data"] == {"k": "ours"}
    assert live["metadata"]["labels"][OWNER_LABEL] == comp.ctx.hashed_owner_id


def test_adoption_checked_only_for_new_items_and_our_label_accepted(comp: Component) -> None:
    """C15: adoption is checked only for new items; an object with our label is accepted (inventory lost)."""
    objects = [configmap("a", adoption_policy="never")]
    comp.converge(objects)
    comp.inventory = []  # inventory lost
    comp.persist()
    comp.converge(objects)
    assert comp.phases() == {"ConfigMap/a": READY}


def test_foreign_object_never_touched_and_auto_orphaned(comp: Component) -> None:
    """C15/C8: an object taken by another owner after we created it is not deleted when it leaves the set
    (auto-orphan)."""
    comp.converge([configmap("a"), configmap("b")])
    res = comp.resource("v1", "ConfigMap")
    comp.api.json_patch(
        res,
        comp.namespace,
        "b",
        [{"op": "replace", "path": f"/metadata/labels/{OWNER_LABEL.replace('/', '~1')}", "value": "someone-else"}],
    )
    before = comp.get("v1", "ConfigMap", "b")
    comp.converge([configmap("a")])
    assert comp.phases() == {"ConfigMap/a": READY}
    after = comp.get("v1", "ConfigMap", "b")
    assert after is not None and before is not None
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


@pytest.mark.parametrize("policy", ["recreate", "replace", "ssa-merge", "ssa-override"])
def test_update_policies(comp: Component, policy: str) -> None:
    """C15: every update policy applies a changed object; recreate gives a new uid, the others keep it."""
    comp.converge([configmap("u", {"v": "1"}, update_policy=policy)])
    uid = comp.get("v1", "ConfigMap", "u")["metadata"]["uid"]  # type: ignore[index]
    objects = [configmap("u", {"v": "2"}, update_policy=policy)]
    assert comp.apply(objects) is False
    assert comp.phases() == {"ConfigMap/u": ("Updating", "InProgress")}  # digest changed: InProgress
    comp.converge(objects)
    live = comp.get("v1", "ConfigMap", "u")
    assert live is not None and live["data"] == {"v": "2"}
    assert (live["metadata"]["uid"] != uid) is (policy == "recreate")
    assert comp.phases() == {"ConfigMap/u": READY}


@pytest.mark.parametrize(("policy", "extra_kept"), [("ssa-merge", True), ("ssa-override", False), ("replace", False)])
def test_takeover_from_kubectl_server_side_apply(comp: Component, kubectl: Any, policy: str, extra_kept: bool) -> None:
    """C15: ssa-override takes over fields of a `kubectl apply --server-side` manager; ssa-merge leaves them."""
    comp.converge([configmap("t", {"mine": "1"}, update_policy=policy)])
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "t", "namespace": comp.namespace},
        "data": {"extra": "x"},
    }
    kubectl.apply(json.dumps(manifest), field_manager="kubectl")
    assert comp.get("v1", "ConfigMap", "t")["data"] == {"mine": "1", "extra": "x"}  # type: ignore[index]
    assert comp.apply([configmap("t", {"mine": "1"}, update_policy=policy)]) is True  # digest unchanged: no write
    comp.converge([configmap("t", {"mine": "2"}, update_policy=policy)])
    live = comp.get("v1", "ConfigMap", "t")
    assert live is not None
    expected = {"mine": "2", "extra": "x"} if extra_kept else {"mine": "2"}
    assert live["data"] == expected
    managers = {(e["manager"], e["operation"]) for e in live["metadata"]["managedFields"]}
    if policy == "ssa-override":
        assert ("component.nubes.cloud", "Apply") in managers
        assert not any(m.startswith("kubectl") for m, _op in managers)


@pytest.mark.parametrize(
    ("policy", "kept_on_removal", "kept_on_delete"),
    [
        ("delete", False, False),
        ("orphan", True, True),
        ("orphan-on-apply", True, False),
        ("orphan-on-delete", False, True),
    ],
)
def test_delete_policies(comp: Component, policy: str, kept_on_removal: bool, kept_on_delete: bool) -> None:
    """C15: delete / orphan / orphan-on-apply / orphan-on-delete, on removal from the set and on deletion."""
    comp.converge([configmap("base"), configmap("gone", delete_policy=policy), configmap("stay", delete_policy=policy)])
    comp.converge([configmap("base"), configmap("stay", delete_policy=policy)])
    assert "ConfigMap/gone" not in comp.phases()
    assert (comp.get("v1", "ConfigMap", "gone") is not None) is kept_on_removal
    comp.converge_delete()
    assert comp.inventory == []
    assert comp.get("v1", "ConfigMap", "base") is None
    assert (comp.get("v1", "ConfigMap", "stay") is not None) is kept_on_delete


def test_last_known_delete_policy_counts(comp: Component) -> None:
    """C15/C8: the inventory's last known delete policy counts: an orphan object removed from the set is kept."""
    comp.converge([configmap("x", delete_policy="orphan")])
    comp.converge([])
    assert comp.get("v1", "ConfigMap", "x") is not None


def test_component_default_policies(kubeconfig: str, kube_namespace: str) -> None:
    """C15: component-level defaults (any spelling) apply to objects without annotations."""
    comp = Component(
        kubeconfig, kube_namespace, defaults=Defaults(delete_policy="OrphanOnDelete", update_policy="Replace")
    )
    comp.converge([configmap("d")])
    assert comp.item("ConfigMap", "d").deletePolicy == "OrphanOnDelete"
    assert comp.item("ConfigMap", "d").updatePolicy == "Replace"
    comp.converge_delete()
    assert comp.get("v1", "ConfigMap", "d") is not None


def test_reconcile_once(comp: Component) -> None:
    """C15/C17: reconcile-policy once: applied exactly once; later changes are ignored until the policy changes."""
    comp.converge([configmap("o", {"v": "1"}, reconcile_policy="once")])
    assert comp.item("ConfigMap", "o").digest == "__once__"
    rv = comp.get("v1", "ConfigMap", "o")["metadata"]["resourceVersion"]  # type: ignore[index]
    assert comp.apply([configmap("o", {"v": "2"}, reconcile_policy="once")]) is True
    comp.clock.advance(7 * 24 * 3600)  # never force-reapplied either
    assert comp.apply([configmap("o", {"v": "2"}, reconcile_policy="once")]) is True
    live = comp.get("v1", "ConfigMap", "o")
    assert live is not None and live["data"] == {"v": "1"} and live["metadata"]["resourceVersion"] == rv
    # Switching to on-object-change changes the digest: one update.
    comp.converge([configmap("o", {"v": "2"})])
    assert comp.get("v1", "ConfigMap", "o")["data"] == {"v": "2"}  # type: ignore[index]


def test_component_change_policy(kubeconfig: str, kube_namespace: str) -> None:
    """C15/C17: on-object-or-component-change: a new component digest reapplies the object."""
    comp = Component(kubeconfig, kube_namespace, component_digest="rev1")
    objects = [configmap("c", reconcile_policy="on-object-or-component-change"), configmap("plain")]
    comp.converge(objects)
    assert comp.item("ConfigMap", "c").digest.endswith("@rev1")
    comp.component_digest = "rev2"
    comp.ctx = comp.new_context()
    assert comp.apply(objects) is False
    assert comp.phases() == {"ConfigMap/c": ("Updating", "InProgress"), "ConfigMap/plain": READY}
    comp.converge(objects)
    assert comp.get("v1", "ConfigMap", "c")["metadata"]["annotations"]["component.nubes.cloud/digest"].endswith("@rev2")  # type: ignore[index]


def test_force_reapply_after_interval(comp: Component) -> None:
    """C17 (drift detection mode disabled, component-operator-runtime's behaviour): a converged object is
    re-applied once its reapply interval has passed, undoing an edit that the digest cannot see (reference 5.3);
    a forced re-apply the server finds a no-op leaves the object Ready (issue 25: no change reported)."""
    comp.ctx.drift_mode = "disabled"
    objects = [configmap("r", {"v": "1"}, reapply_interval="10m"), configmap("default-interval")]
    comp.converge(objects)
    res = comp.resource("v1", "ConfigMap")
    comp.api.json_patch(res, comp.namespace, "r", [{"op": "replace", "path": "/data/v", "value": "edited"}])
    assert comp.apply(objects) is True  # an edit that leaves the digest annotation alone is not seen
    assert comp.get("v1", "ConfigMap", "r")["data"] == {"v": "edited"}  # type: ignore[index]
    comp.clock.advance(11 * 60)
    patches = comp.api.calls.snapshot().get("PATCH", 0)
    assert comp.apply(objects) is False
    assert comp.api.calls.snapshot().get("PATCH", 0) == patches + 1  # exactly one write: "r"
    assert comp.phases() == {"ConfigMap/r": ("Updating", "Current"), "ConfigMap/default-interval": READY}
    assert comp.apply(objects) is True
    assert comp.get("v1", "ConfigMap", "r")["data"] == {"v": "1"}  # type: ignore[index]
    comp.clock.advance(3600)  # the default interval (60 min) for the other one
    patches = comp.api.calls.snapshot().get("PATCH", 0)
    changes = comp.api.calls.changes
    assert comp.apply(objects) is True  # the forced re-apply changed nothing: still Ready
    assert comp.api.calls.snapshot().get("PATCH", 0) == patches + 2  # both are due now, both were sent
    assert comp.api.calls.changes == changes  # and counted as no change
    assert comp.phases() == {"ConfigMap/r": READY, "ConfigMap/default-interval": READY}


def test_live_drift_corrected_on_the_next_step(comp: Component) -> None:
    """Issue 25 / C17 (drift detection mode enabled, the default): an edit that leaves the digest annotation alone is
    found and written back on the next step, without waiting for the reapply interval; the other object is not
    written, and a step after that writes nothing."""
    objects = [configmap("r", {"v": "1"}), configmap("other")]
    comp.converge(objects)
    res = comp.resource("v1", "ConfigMap")
    comp.api.json_patch(res, comp.namespace, "r", [{"op": "replace", "path": "/data/v", "value": "edited"}])
    patches = comp.api.calls.snapshot().get("PATCH", 0)
    assert comp.apply(objects) is False
    assert comp.api.calls.snapshot().get("PATCH", 0) == patches + 1  # exactly one write: "r"
    assert comp.phases() == {"ConfigMap/r": ("Updating", "Current"), "ConfigMap/other": READY}
    assert comp.apply(objects) is True
    assert comp.get("v1", "ConfigMap", "r")["data"] == {"v": "1"}  # type: ignore[index]
    writes = comp.api.calls.writes
    assert comp.apply(objects) is True
    assert comp.api.calls.writes == writes


def test_drift_of_digest_annotation(comp: Component) -> None:
    """C17: a changed digest annotation on the live object makes the engine rewrite it (reference 5.3)."""
    comp.converge([configmap("d", {"v": "1"})])
    res = comp.resource("v1", "ConfigMap")
    comp.api.json_patch(
        res,
        comp.namespace,
        "d",
        [
            {"op": "replace", "path": "/metadata/annotations/component.nubes.cloud~1digest", "value": "tampered"},
            {"op": "replace", "path": "/data/v", "value": "edited"},
        ],
    )
    assert comp.apply([configmap("d", {"v": "1"})]) is False
    assert comp.phases() == {"ConfigMap/d": ("Updating", "Current")}
    assert comp.apply([configmap("d", {"v": "1"})]) is True
    live = comp.get("v1", "ConfigMap", "d")
    assert live is not None and live["data"] == {"v": "1"}
    assert live["metadata"]["annotations"]["component.nubes.cloud/digest"] == comp.item("ConfigMap", "d").digest
