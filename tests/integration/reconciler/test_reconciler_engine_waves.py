"""Integration: apply waves, purge orders, write-ahead and crash recovery against the real API server."""

from __future__ import annotations

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.reconcile import Target, run
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import apply_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler
from tests.integration.reconciler.engine_harness import OWNER_LABEL, Component, configmap

pytestmark = pytest.mark.cluster

SA = ("ScheduledForApplication", "InProgress")
CREATING = ("Creating", "InProgress")
READY = ("Ready", "Current")


@pytest.fixture
def comp(kubeconfig: str, kube_namespace: str) -> Component:
    return Component(kubeconfig, kube_namespace)


def test_waves_with_purge_orders(comp: Component) -> None:
    """C8: apply waves by apply-order; purge-order completion; write-ahead (reference 3.3 steps 8, 11, 12)."""
    objects = [
        configmap("w0"),
        configmap("w1-hook", apply_order="1", purge_order="1"),
        configmap("w2", apply_order="2"),
        configmap("w2-late-purge", apply_order="2", purge_order="9"),
    ]
    names = ["ConfigMap/w0", "ConfigMap/w1-hook", "ConfigMap/w2", "ConfigMap/w2-late-purge"]

    def expect(*states: tuple) -> None:
        assert comp.phases() == dict(zip(names, states))

    # 1: write-ahead: everything scheduled, nothing created yet.
    assert comp.apply(objects) is False
    expect(SA, SA, SA, SA)
    assert comp.owned("v1", "ConfigMap") == []
    # 2: wave 0 created.
    assert comp.apply(objects) is False
    expect(CREATING, SA, SA, SA)
    assert comp.owned("v1", "ConfigMap") == ["w0"]
    # 3: wave 0 ready, wave 1 created.
    assert comp.apply(objects) is False
    expect(READY, CREATING, SA, SA)
    # 4: wave 1 ready, its purge order is reached.
    assert comp.apply(objects) is False
    expect(READY, ("ScheduledForCompletion", "Current"), SA, SA)
    # 5: purge deletes.
    assert comp.apply(objects) is False
    expect(READY, ("Completing", "Terminating"), SA, SA)
    # 6: purged object gone -> Completed; wave 2 created.
    assert comp.apply(objects) is False
    expect(READY, ("Completed", ""), CREATING, CREATING)
    assert comp.owned("v1", "ConfigMap") == ["w0", "w2", "w2-late-purge"]
    # 7: last wave ready: every object with a purge order is purged now.
    assert comp.apply(objects) is False
    expect(READY, ("Completed", ""), READY, ("ScheduledForCompletion", "Current"))
    assert comp.apply(objects) is False
    expect(READY, ("Completed", ""), READY, ("Completing", "Terminating"))
    # 9: converged.
    assert comp.apply(objects) is True
    expect(READY, ("Completed", ""), READY, ("Completed", ""))
    assert comp.owned("v1", "ConfigMap") == ["w0", "w2"]
    # A converged set returns True on the first call.
    assert comp.apply(objects) is True
    # Owner markers and digest on the live object.
    live = comp.get("v1", "ConfigMap", "w0")
    assert live is not None
    assert live["metadata"]["labels"][OWNER_LABEL] == comp.ctx.hashed_owner_id
    assert live["metadata"]["annotations"][OWNER_LABEL] == comp.owner_id
    assert live["metadata"]["annotations"]["component.nubes.cloud/digest"] == comp.item("ConfigMap", "w0").digest
    assert comp.owner_id.endswith(f"/{comp.namespace}/{comp.name}")


def test_removed_objects_deleted_after_all_waves_ready(comp: Component) -> None:
    """C8: deletions of redundant objects happen only after all apply waves are ready (reference 3.3 step 14)."""
    comp.converge([configmap("keep"), configmap("drop")])
    objects = [configmap("keep"), configmap("new", apply_order="1")]
    assert comp.apply(objects) is False  # write-ahead of "new"; "drop" scheduled for deletion
    assert comp.phases() == {
        "ConfigMap/keep": READY,
        "ConfigMap/drop": ("ScheduledForDeletion", "Terminating"),
        "ConfigMap/new": SA,
    }
    assert comp.apply(objects) is False  # wave 1 creates "new"; "drop" still waits
    assert comp.phases()["ConfigMap/drop"] == ("ScheduledForDeletion", "Terminating")
    assert comp.get("v1", "ConfigMap", "drop") is not None
    assert comp.apply(objects) is False  # all waves ready -> delete "drop"
    assert comp.phases()["ConfigMap/drop"] == ("Deleting", "Terminating")
    assert comp.apply(objects) is True  # gone -> dropped from the inventory
    assert comp.phases() == {"ConfigMap/keep": READY, "ConfigMap/new": READY}
    assert comp.get("v1", "ConfigMap", "drop") is None


def test_crash_between_calls_restarts_from_persisted_inventory(comp: Component) -> None:
    """C8: write-ahead: a crash after any call leaves no untracked object; a restart continues (3.3 step 8)."""
    objects = [configmap(f"c{i}") for i in range(5)]
    assert comp.apply(objects) is False  # write-ahead, persisted
    comp.restart()  # crash right after persisting
    # A call whose result is lost (crash before persisting): objects get created, inventory not saved.
    assert apply_waves.apply(comp.inventory, objects, comp.ctx) is False  # not persisted
    lost = [item.to_dict() for item in comp.inventory]
    assert all(entry["phase"] == "Creating" for entry in lost)
    comp.restart()  # back to the persisted write-ahead inventory
    assert [i.phase for i in comp.inventory] == ["ScheduledForApplication"] * 5
    # Every object that exists is tracked by the persisted inventory.
    tracked = {i.name for i in comp.inventory}
    assert set(comp.owned("v1", "ConfigMap")) <= tracked
    comp.converge(objects)
    assert comp.owned("v1", "ConfigMap") == [f"c{i}" for i in range(5)]
    assert set(comp.phases().values()) == {READY}


def test_delete_order_waves(comp: Component) -> None:
    """C8: delete waves run in ascending delete-order; a wave starts only when the previous one is gone (3.4)."""
    objects = [configmap("late", delete_order="2"), configmap("first", delete_order="-1"), configmap("mid")]
    comp.converge(objects)
    assert [i.name for i in comp.inventory] == ["first", "mid", "late"]  # stored in deletion order
    deleting, waiting = ("Deleting", "Terminating"), ("ScheduledForDeletion", "Terminating")
    assert comp.delete() is False
    assert comp.phases() == {"ConfigMap/first": deleting, "ConfigMap/mid": waiting, "ConfigMap/late": waiting}
    assert comp.delete() is False  # "first" gone; wave 0 starts
    assert comp.phases() == {"ConfigMap/mid": deleting, "ConfigMap/late": waiting}
    assert comp.get("v1", "ConfigMap", "late") is not None
    assert comp.delete() is False
    assert comp.phases() == {"ConfigMap/late": deleting}
    assert comp.delete() is True
    assert comp.inventory == []
    assert comp.owned("v1", "ConfigMap") == []


def test_reconcile_states(comp: Component) -> None:
    """C7 / 1.3: the component's reconcile persists the status after each step and ends Ready; deletion ends with
    an empty inventory."""
    states = []

    def persist(status: ComponentStatus) -> None:
        states.append((status.state, status.reason, len(status.inventory)))

    reconciler = Reconciler.from_context(comp.ctx)
    status = ComponentStatus()
    result = run(status, Target("apply", reconciler, [configmap("a"), configmap("b")]), persist, timeout=60)
    assert result.done and status.state == "Ready" and status.conditions[0]["status"] == "True"
    assert states[0] == ("Processing", "Processing", 2)  # the write-ahead step was persisted
    assert states[-1] == ("Ready", "Ready", 2)
    assert reconciler.api.calls.total > 0
    states.clear()
    result = run(status, Target("delete", reconciler), persist, timeout=60)
    assert result.done and status.inventory == []
    assert states[0][:2] == ("Deleting", "DeletionProcessing")
    assert comp.owned("v1", "ConfigMap") == []


def test_reconcile_timeout(comp: Component) -> None:
    """C14 / 1.3: objects that never become ready end the run in Error with reason Timeout."""
    never_ready = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "unschedulable"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "u"}},
            "template": {
                "metadata": {"labels": {"app": "u"}},
                "spec": {"nodeSelector": {"no-such-node": "x"}, "containers": [{"name": "c", "image": "fake"}]},
            },
        },
    }
    status = ComponentStatus()
    result = run(status, Target("apply", Reconciler.from_context(comp.ctx), [never_ready]), lambda _s: None, timeout=3)
    assert not result.done and result.error is not None
    assert (status.state, status.reason, status.conditions[0]["status"]) == ("Error", "Timeout", "False")
    comp.inventory = status.inventory
    assert comp.phases() == {"Deployment/unschedulable": ("Creating", "InProgress")}


def test_impersonation_without_rights_is_refused(kubeconfig: str, kube_namespace: str) -> None:
    """C12: impersonation headers are sent; a user without rights gets a clear 403."""
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError

    api = connect_kubeconfig(kubeconfig, impersonate_user="carol", impersonate_groups=["nobody"])
    with pytest.raises(ApiError) as err:
        api.cluster_uid()
    assert err.value.status == 403 and "carol" in str(err.value)


def test_dry_run_plans_every_wave_in_one_call_and_writes_nothing(comp: Component) -> None:
    """Check mode (kubernetes.core's _ensure_dry_run): with a dry-run client one apply call goes through every wave,
    each write sent with dryRun=All; the observer hears what would be created; nothing exists afterwards. The same
    holds for a delete call on an applied set."""
    from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig

    heard: list = []
    comp.api = connect_kubeconfig(comp.kubeconfig, dry_run=True)
    comp.ctx = comp.new_context()
    comp.ctx.observer = lambda action, ref, _before, _after: heard.append((action, ref))
    objects = [configmap("first"), configmap("second", apply_order="1"), configmap("third", apply_order="2")]
    assert apply_waves.apply(comp.inventory, objects, comp.ctx) is True
    ns = comp.namespace
    assert sorted(heard) == [("created", f"ConfigMap {ns}/{n}") for n in ("first", "second", "third")]
    assert comp.api.calls.snapshot().get("PATCH") == 3
    assert comp.owned("v1", "ConfigMap") == []
    comp.api = connect_kubeconfig(comp.kubeconfig)
    comp.ctx = comp.new_context()
    comp.inventory = []
    comp.converge(objects)
    heard.clear()
    comp.api = connect_kubeconfig(comp.kubeconfig, dry_run=True)
    comp.ctx = comp.new_context()
    comp.ctx.observer = lambda action, ref, _before, _after: heard.append((action, ref))
    assert comp.delete() is True
    assert sorted(heard) == [("deleted", f"ConfigMap {ns}/{n}") for n in ("first", "second", "third")]
    assert comp.owned("v1", "ConfigMap") == ["first", "second", "third"]
