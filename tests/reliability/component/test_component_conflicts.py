"""409 Conflict answers during apply (injected by an admission webhook) are retried; the run converges (C8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.component.component_harness import Ansible, component
from tests.reliability.component.conflict_webhook import conflict_webhook
from tests.reliability.component.playbook_process import owned_objects, record_inventory

pytestmark = pytest.mark.cluster

CONFLICTS = 4


def test_conflicts_during_apply_are_survived(
    ansible: Ansible, kubectl: Any, kube_namespace: str, tmp_path: Path
) -> None:
    """C8: the first 4 writes of the component's ConfigMaps get 409 Conflict from the apiserver; the module retries
    and ends Ready with every object applied and tracked."""
    names = [f"cm{index}" for index in range(5)]
    objects = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n}, "data": {"n": n}} for n in names]
    with conflict_webhook(kubectl, kube_namespace, tmp_path, CONFLICTS) as injector:
        result = ansible.run([component(kube_namespace, "conflicted", definitions=objects, timeout=120)])[0]
    assert len(injector.injected) == CONFLICTS, injector.injected  # the conflicts really happened
    assert not result.get("failed"), result.get("msg")
    assert result["state"] == "Ready"
    desired = {("ConfigMap", n) for n in names}
    assert owned_objects(kubectl, kube_namespace, "configmaps") == desired
    assert {(i["kind"], i["name"]) for i in record_inventory(kubectl, kube_namespace, "conflicted")} == desired
    for name in names:
        assert kubectl.json("get", "configmap", name, "-n", kube_namespace)["data"] == {"n": name}
