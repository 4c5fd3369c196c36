"""Unit tests: owner ids, markers and digests (reference 3.1, 5)."""

from __future__ import annotations

import re

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.digest import (
    component_digest,
    item_digest,
    object_hash,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import Markers, hash_owner_id, owner_id

LABEL_VALUE = re.compile(r"^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$")


def test_owner_id_includes_cluster_identity() -> None:
    """C1/C11: the owner id carries the target cluster's kube-system UID, the component namespace and name."""
    assert owner_id("1234-uid", "team-a", "web") == "1234-uid/team-a/web"


def test_hashed_owner_id_is_label_safe() -> None:
    """The hashed owner id is 52 lowercase base32 characters, a valid label value, and stable."""
    hashed = hash_owner_id("1234-uid/team-a/web")
    assert len(hashed) == 52
    assert LABEL_VALUE.match(hashed)
    assert hashed == hash_owner_id("1234-uid/team-a/web")
    assert hashed != hash_owner_id("1234-uid/team-a/web2")
    assert hashed != hash_owner_id("other-uid/team-a/web")


def test_markers_use_the_prefix() -> None:
    """Label, annotations, finalizer and field manager live under the configurable prefix."""
    markers = Markers("example.org")
    assert markers.owner_label == "example.org/owner-id"
    assert markers.digest_annotation == "example.org/digest"
    assert markers.finalizer == "example.org/finalizer"
    assert markers.field_manager == "example.org"
    assert markers.owned_selector("abc") == "example.org/owner-id=abc"
    assert markers.foreign_selector("abc") == "example.org/owner-id!=abc"
    assert Markers().owner_label == "component.nubes.cloud/owner-id"


def test_object_digest_ignores_key_order() -> None:
    """C17: the digest hashes canonical JSON: key order does not matter, values do."""
    a = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "n"}, "data": {"a": "1"}}
    b = {"data": {"a": "1"}, "metadata": {"namespace": "n", "name": "x"}, "kind": "ConfigMap", "apiVersion": "v1"}
    assert object_hash(a) == object_hash(b)
    assert object_hash(a) != object_hash({**a, "data": {"a": "2"}})


def test_item_digest_policies() -> None:
    """C17 / 5.2: once gives __once__; on-object-or-component-change appends the component digest."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert item_digest(obj, c.RECONCILE_ONCE, "comp") == "__once__"
    assert item_digest(obj, c.RECONCILE_ON_OBJECT_CHANGE, "comp") == object_hash(obj)
    assert item_digest(obj, c.RECONCILE_ON_OBJECT_OR_COMPONENT_CHANGE, "comp") == f"{object_hash(obj)}@comp"


def test_component_digest_changes_with_parameters() -> None:
    """C2/C17 / 5.1: any parameter change changes the component digest."""
    assert component_digest({"a": 1}) == component_digest({"a": 1})
    assert component_digest({"a": 1}) != component_digest({"a": 2})
