"""Unit tests: a deleted Namespace of the set that cannot finalise ends the deletion (issue 25)."""

from __future__ import annotations

import datetime
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import delete_waves
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.errors import EngineError
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import InventoryItem

NOW = datetime.datetime(2026, 12, 2, 7, 0, 0, tzinfo=datetime.timezone.utc)


class Ctx:
    """Just the clock the check reads."""

    @staticmethod
    def clock() -> datetime.datetime:
        return NOW


def _namespace(seconds_ago: int, status: str = "True") -> Dict[str, Any]:
    since = (NOW - datetime.timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    failure = {
        "type": "NamespaceDeletionDiscoveryFailure",
        "status": status,
        "lastTransitionTime": since,
        "message": "Discovery failed for some groups, 1 failing: metrics.k8s.io/v1beta1",
    }
    remaining = {
        "type": "NamespaceContentRemaining",
        "status": "True",
        "lastTransitionTime": since,
        "message": "Some resources are remaining: widgets.x has 1 resource instances",
    }
    return {
        "metadata": {"name": "apps", "deletionTimestamp": "2026-12-02T06:59:00Z"},
        "status": {"phase": "Terminating", "conditions": [failure, remaining]},
    }


ITEM = InventoryItem(group="", version="v1", kind="Namespace", name="apps")


def test_a_failure_past_the_grace_ends_the_deletion_naming_the_conditions() -> None:
    """issue 25: NamespaceDeletionDiscoveryFailure True for longer than the grace (by its lastTransitionTime) is an
    error naming the namespace, the failure and what is left (the namespace's own conditions)."""
    with pytest.raises(EngineError) as err:
        delete_waves._check_namespace_finalises(Ctx, ITEM, _namespace(30))  # type: ignore[arg-type]
    message = str(err.value)
    assert message.startswith("Namespace apps was deleted but cannot finalise")
    assert "NamespaceDeletionDiscoveryFailure: Discovery failed for some groups" in message
    assert "NamespaceContentRemaining: Some resources are remaining: widgets.x" in message
    assert err.value.retriable is False


def test_a_fresh_or_cleared_failure_is_waited_for() -> None:
    """issue 25: a failure younger than the grace, or one that is no longer True, keeps the wait going."""
    delete_waves._check_namespace_finalises(Ctx, ITEM, _namespace(3))  # type: ignore[arg-type]
    delete_waves._check_namespace_finalises(Ctx, ITEM, _namespace(300, status="False"))  # type: ignore[arg-type]
