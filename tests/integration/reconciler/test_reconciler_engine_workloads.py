"""Integration: readiness of workloads driven by kube-controller-manager and kwok (reference 6.1)."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from tests.integration.reconciler.engine_harness import Component

pytestmark = pytest.mark.cluster


def deployment(name: str, replicas: int = 2) -> Dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "fake"}]}},
        },
    }


def job(name: str) -> Dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "annotations": {"component.nubes.cloud/apply-order": "1"}},
        "spec": {
            "backoffLimit": 0,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "fake"}]}},
        },
    }


def test_deployment_becomes_ready(kubeconfig: str, kube_namespace: str) -> None:
    """C7: a Deployment is InProgress until its pods run (kwok) and the rollout completes, then Ready/Current."""
    comp = Component(kubeconfig, kube_namespace)
    objects = [deployment("web")]
    assert comp.apply(objects) is False
    assert comp.apply(objects) is False
    assert comp.phases() == {"Deployment/web": ("Creating", "InProgress")}
    comp.converge(objects, max_seconds=120)
    assert comp.phases() == {"Deployment/web": ("Ready", "Current")}
    live = comp.get("apps/v1", "Deployment", "web")
    assert live is not None and live["status"]["availableReplicas"] == 2


def test_job_waits_for_completion(kubeconfig: str, kube_namespace: str) -> None:
    """C7: a Job in wave 1 is ready only when Complete (or Failed); wave 0 is ready before it is created."""
    comp = Component(kubeconfig, kube_namespace)
    objects = [deployment("db", replicas=1), job("migrate")]
    comp.converge(objects, max_seconds=180)
    assert comp.phases() == {"Deployment/db": ("Ready", "Current"), "Job/migrate": ("Ready", "Current")}
    live = comp.get("batch/v1", "Job", "migrate")
    assert live is not None
    types = {c["type"]: c["status"] for c in live["status"].get("conditions", [])}
    assert types.get("Complete") == "True" or types.get("Failed") == "True"
