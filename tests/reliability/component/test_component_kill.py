"""The component module SIGKILLed at random points of its run (bounded: a few seeded kills); the next run
converges, every object it created is tracked by its record, and a foreign object is never touched (C8)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.integration.component.component_harness import Ansible, component
from tests.reliability.component.playbook_process import kill_group, owned_objects, record_inventory, start_playbook

pytestmark = pytest.mark.cluster

KILLS = 4
SEED = 1129
WAVES = 3


def definitions() -> list[dict[str, Any]]:
    """Three apply waves of ConfigMaps and a Deployment (waits for readiness), so a run makes many engine calls."""
    objects: list[dict[str, Any]] = []
    for wave in range(WAVES):
        for index in range(3):
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {
                        "name": f"w{wave}-c{index}",
                        "annotations": {"component.nubes.cloud/apply-order": str(wave)},
                    },
                    "data": {"wave": str(wave)},
                }
            )
    objects.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "app", "annotations": {"component.nubes.cloud/apply-order": "1"}},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "app"}},
                "template": {
                    "metadata": {"labels": {"app": "app"}},
                    "spec": {"containers": [{"name": "app", "image": "registry.invalid/app:1"}]},
                },
            },
        }
    )
    return objects


def test_kill_at_random_points_then_converge(ansible: Ansible, kubectl: Any, kube_namespace: str) -> None:
    """C8 (write-ahead inventory): after each SIGKILL no object carrying the component's owner label is missing
    from its record; the final run converges to exactly the desired objects; the foreign ConfigMap keeps its
    resourceVersion."""
    kubectl.apply(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: foreign, namespace: {kube_namespace}}}\ndata: {{a: b}}\n"
    )
    foreign_version = kubectl.json("get", "configmap", "foreign", "-n", kube_namespace)["metadata"]["resourceVersion"]
    task = component(kube_namespace, "killed", definitions=definitions(), timeout=120)
    rng = random.Random(SEED)
    for kill in range(KILLS):
        proc = start_playbook(ansible.workdir, [task], ansible.kubeconfig, f"{kill}")
        time.sleep(rng.uniform(1.0, 6.0))  # a random point of the run: the test's input, not an expectation
        kill_group(proc)
        tracked = {(item["kind"], item["name"]) for item in record_inventory(kubectl, kube_namespace, "killed")}
        untracked = owned_objects(kubectl, kube_namespace) - tracked
        assert not untracked, f"after kill {kill}: objects not in the record: {untracked}"
    final = ansible.run([task])[0]
    assert not final.get("failed"), final.get("msg")
    assert final["state"] == "Ready"
    desired = {("ConfigMap", o["metadata"]["name"]) for o in definitions() if o["kind"] == "ConfigMap"}
    desired.add(("Deployment", "app"))
    assert owned_objects(kubectl, kube_namespace) == desired
    assert {(i["kind"], i["name"]) for i in record_inventory(kubectl, kube_namespace, "killed")} == desired
    foreign = kubectl.json("get", "configmap", "foreign", "-n", kube_namespace)
    assert foreign["metadata"]["resourceVersion"] == foreign_version
    assert not any(k.startswith("component.nubes.cloud") for k in (foreign["metadata"].get("labels") or {}))
