"""An apiserver crash and restart in the middle of a component apply is survived (C8, C14).

The module talks to a second kube-apiserver on the test cluster's etcd (tests/cluster/second_apiserver.py, fixture
`second_apiserver`); that one is SIGKILLed once the first objects exist and started again. The shared apiserver is
never touched."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.cluster.second_apiserver import SecondApiserver
from tests.integration.component.component_harness import Ansible, component
from tests.reliability.component.playbook_process import owned_objects, record_inventory, start_playbook
from tests.reliability.component.test_component_kill import definitions

pytestmark = pytest.mark.cluster

DOWNTIME_SECONDS = 2.0


def test_apiserver_restart_during_apply(
    ansible: Ansible, kubectl: Any, kube_namespace: str, second_apiserver: SecondApiserver
) -> None:
    """C8/C14: the apiserver dies (SIGKILL) while the component is being applied and comes back; the same run
    retries through the outage and ends Ready with every object applied and tracked, nothing duplicated."""
    task = component(kube_namespace, "restarted", definitions=definitions(), timeout=180)
    task["register"] = "applied"
    report = {"ansible.builtin.copy": {"content": "{{ applied | to_json }}", "dest": str(ansible.workdir / "r.json")}}
    proc = start_playbook(ansible.workdir, [task, report], second_apiserver.kubeconfig, "restart")
    deadline = time.monotonic() + 120
    while not owned_objects(kubectl, kube_namespace) and proc.poll() is None:
        assert time.monotonic() < deadline, "no object was applied"
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before the apiserver could be killed"
    second_apiserver.kill()
    time.sleep(DOWNTIME_SECONDS)  # the outage itself
    second_apiserver.start()
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout[-3000:] + stderr[-2000:]
    result = json.loads((ansible.workdir / "r.json").read_text(encoding="utf-8"))
    assert result["state"] == "Ready", result
    desired = {("ConfigMap", o["metadata"]["name"]) for o in definitions() if o["kind"] == "ConfigMap"}
    desired.add(("Deployment", "app"))
    assert owned_objects(kubectl, kube_namespace) == desired
    assert {(i["kind"], i["name"]) for i in record_inventory(kubectl, kube_namespace, "restarted")} == desired
