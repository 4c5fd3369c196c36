"""Hooks become waves (issue 17, component-runtime.md 2.3): the rendered shop chart as the engine's object sets.

Each expectation is read back through the engine's own annotation parser (`object_policies`, C15), so the sets
say exactly what the engine will do with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import (
    ChartRender,
    HelmError,
    HelmSource,
    Hook,
    Manifest,
    render_chart,
)
from ansible_collections.nubes.cloud.plugins.module_utils.component.helm_waves import (
    apply_set,
    delete_phase_set,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import (
    Defaults,
    ObjectPolicies,
    object_policies,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command

SHOP = Path(__file__).resolve().parents[2] / "charts" / "shop"
PREFIX = "component.nubes.cloud"


@pytest.fixture(scope="module")
def shop(helm_binary: str) -> ChartRender:
    return render_chart(HelmSource(chart=str(SHOP), helm_binary=helm_binary), "shop", "team-a", {}, run_command)


def _policies(objects: List[Dict[str, Any]], prefix: str = PREFIX) -> Dict[str, ObjectPolicies]:
    defaults = Defaults().normalised()
    return {
        obj["metadata"]["name"]: object_policies(obj["metadata"].get("annotations") or {}, prefix, defaults)
        for obj in objects
    }


def _orders(policies: ObjectPolicies) -> tuple:
    return (policies.apply_order, policies.purge_order, policies.reconcile_policy, policies.update_policy)


def _hook(name: str, kinds: tuple, weight: int = 0, policies: tuple = ("before-hook-creation",)) -> Hook:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "annotations": {}}}
    return Hook(obj=obj, source=f"t/templates/{name}.yaml", kinds=kinds, weight=weight, delete_policies=policies)


def test_install_waves(shop: ChartRender) -> None:
    """Revision 1: crds/ first (-202), pre-install hooks weight-101, main objects 0, post-install weight+101."""
    policies = _policies(apply_set(shop, PREFIX, revision=1))
    unset = c.PURGE_ORDER_UNSET
    assert {name: _orders(p) for name, p in policies.items()} == {
        "widgets.shop.nubes.test": (-202, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-settings": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-ledger": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-web": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-widget": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-cache": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        "shop-cache-config": (0, unset, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE),
        # before-hook-creation (the default) -> recreate; hook-succeeded -> purged after the pre-hook waves
        "shop-migrate": (-106, unset, c.RECONCILE_ONCE, c.UPDATE_RECREATE),
        "shop-pre-config": (-99, -1, c.RECONCILE_ONCE, c.UPDATE_SSA_OVERRIDE),
        "shop-welcome": (101, unset, c.RECONCILE_ONCE, c.UPDATE_RECREATE),
    }


def test_crds_and_keep_are_orphaned(shop: ChartRender) -> None:
    """crds/ CRDs are never deleted by default (as in Helm); helm.sh/resource-policy: keep orphans an object."""
    policies = _policies(apply_set(shop, PREFIX, revision=1))
    assert policies["widgets.shop.nubes.test"].delete_policy == c.DELETE_ORPHAN
    assert policies["shop-ledger"].delete_policy == c.DELETE_ORPHAN
    assert policies["shop-settings"].delete_policy == c.DELETE_DELETE


@pytest.mark.parametrize(
    ("value", "expected"),
    [("delete", c.DELETE_DELETE), ("OrphanOnDelete", c.DELETE_ORPHAN_ON_DELETE), ("", c.DELETE_DELETE)],
)
def test_crds_delete_policy_option(shop: ChartRender, value: str, expected: str) -> None:
    """The source's crds_delete_policy replaces orphan; "" leaves the CRDs to the component's delete policy."""
    objects = apply_set(shop, PREFIX, revision=1, crds_delete_policy=value)
    crd = next(o for o in objects if o["kind"] == "CustomResourceDefinition")
    assert _policies([crd])["widgets.shop.nubes.test"].delete_policy == expected
    if value == "":
        assert f"{PREFIX}/delete-policy" not in crd["metadata"]["annotations"]


def test_bad_crds_delete_policy(shop: ChartRender) -> None:
    """A wrong crds_delete_policy is an error naming the option and the accepted values."""
    with pytest.raises(HelmError, match=r"helm.crds_delete_policy: invalid delete policy 'sometimes'; use one of"):
        apply_set(shop, PREFIX, revision=1, crds_delete_policy="sometimes")


def test_upgrade_waves(shop: ChartRender) -> None:
    """Revision 2+: upgrade hooks rerun on every component change; install-only hooks keep `once`."""
    policies = _policies(apply_set(shop, PREFIX, revision=2))
    rerun = (c.PURGE_ORDER_UNSET, c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE, c.UPDATE_RECREATE)
    assert _orders(policies["shop-migrate"]) == (-106, *rerun)
    assert _orders(policies["shop-welcome"]) == (101, *rerun)
    assert _orders(policies["shop-pre-config"]) == (-99, -1, c.RECONCILE_ONCE, c.UPDATE_SSA_OVERRIDE)


def test_delete_hooks_are_not_in_the_apply_set(shop: ChartRender) -> None:
    """pre-delete and post-delete hooks belong to the delete phase only."""
    names = {o["metadata"]["name"] for o in apply_set(shop, PREFIX, revision=1)}
    assert not {"shop-farewell", "shop-goodbye"} & names


def test_delete_phase_sets(shop: ChartRender) -> None:
    """Each delete phase is a set of its own: waves by weight; hook-succeeded purged after the last wave."""
    pre = _policies(delete_phase_set(shop, "pre-delete", PREFIX))
    post = _policies(delete_phase_set(shop, "post-delete", PREFIX))
    assert {n: _orders(p) for n, p in pre.items()} == {
        "shop-farewell": (1, c.PURGE_ORDER_UNSET, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_RECREATE)
    }
    assert {n: _orders(p) for n, p in post.items()} == {
        "shop-goodbye": (0, 100, c.RECONCILE_ON_OBJECT_CHANGE, c.UPDATE_SSA_OVERRIDE)
    }
    with pytest.raises(ValueError, match="phase must be one of pre-delete, post-delete"):
        delete_phase_set(shop, "post-install", PREFIX)


def test_upgrade_only_hook_waits_for_the_first_upgrade() -> None:
    """A hook with only upgrade kinds is left out of the first apply (revision 1), as in component-operator-runtime."""
    render = ChartRender("r", "ns", hooks=[_hook("up", ("pre-upgrade",), weight=3)])
    assert apply_set(render, PREFIX, revision=1) == []
    assert _orders(_policies(apply_set(render, PREFIX, revision=2))["up"])[:3] == (
        -98,
        c.PURGE_ORDER_UNSET,
        c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE,
    )


def test_pre_and_post_install_hook_is_a_pre_hook_purged_after_the_post_hooks() -> None:
    """`pre-install,post-install` with hook-succeeded: applied as a pre hook, purged with the post hooks (201)."""
    hook = _hook("both", ("pre-install", "post-install"), weight=-100, policies=("hook-succeeded",))
    policies = _policies(apply_set(ChartRender("r", "ns", hooks=[hook]), PREFIX, revision=1))["both"]
    assert (policies.apply_order, policies.purge_order) == (-201, 201)


def test_extreme_weights_stay_in_their_ranges() -> None:
    """Weights -100..100 map to -201..-1 (pre) and 1..201 (post): never into wave 0 or the CRD wave."""
    hooks = [
        _hook("pre-low", ("pre-install",), -100),
        _hook("pre-high", ("pre-install",), 100),
        _hook("post-low", ("post-install",), -100),
        _hook("post-high", ("post-install",), 100),
    ]
    policies = _policies(apply_set(ChartRender("r", "ns", hooks=hooks), PREFIX, revision=1))
    assert {n: p.apply_order for n, p in policies.items()} == {
        "pre-low": -201,
        "pre-high": -1,
        "post-low": 1,
        "post-high": 201,
    }


def test_charts_may_not_set_engine_annotations() -> None:
    """C15 belongs to the component: a chart object with a <prefix>/ annotation is an error naming it."""
    metadata = {"name": "sneaky", "namespace": "ns", "annotations": {f"{PREFIX}/apply-order": "5"}}
    obj: Dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}
    render = ChartRender("r", "ns", objects=[Manifest(obj=obj, source="t/templates/sneaky.yaml")])
    with pytest.raises(HelmError, match=r"ConfigMap ns/sneaky \(t/templates/sneaky.yaml\): charts may not set"):
        apply_set(render, PREFIX, revision=1)


def test_custom_prefix(shop: ChartRender) -> None:
    """The annotations use the component's annotation_prefix; the render itself is not changed."""
    before = shop.to_dict()
    objects = apply_set(shop, "apps.example.org", revision=1)
    assert _policies(objects, "apps.example.org")["shop-migrate"].apply_order == -106
    assert shop.to_dict() == before
