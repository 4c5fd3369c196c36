"""Issue 26: which path a nubes.cloud.component task takes when a dependency is missing on the controller, now that
ansible-playbook's main process imports the modules and their engines once, before forking the task workers
(plugin_utils/preload.py). A dependency is hidden from the controller by a package on PYTHONPATH that fails to
import; the task's own `environment:` empties PYTHONPATH, so a module process finds the real one. What a task did is
read from the apiserver, not from its result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

IN_PROCESS = "nubes.cloud: nubes.cloud.component runs in the controller's process"
MODULE = "nubes.cloud: nubes.cloud.component runs as a module: "
DUMMY_MODULE = "nubes.cloud: nubes.cloud.dummy runs as a module: "
MISSING = "a dependency is missing on the controller ({})"


def hide(tmp_path: Path, package: str) -> Dict[str, str]:
    """The environment that hides `package` from ansible-playbook: a package of that name on PYTHONPATH that raises
    ImportError."""
    shadow = tmp_path / "shadow" / package
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        f'raise ImportError("{package} is hidden from the controller by a nubes.cloud test")\n', encoding="utf-8"
    )
    return {"PYTHONPATH": str(shadow.parent)}


def lines(output: str, marker: str) -> List[str]:
    return [line.strip() for line in output.splitlines() if marker in line]


def objects(kubectl: Any, namespace: str) -> List[str]:
    items = kubectl.json("get", "configmaps,deployments.apps", "-n", namespace)["items"]
    return sorted(i["metadata"]["name"] for i in items if i["metadata"]["name"] != "kube-root-ca.crt")


def test_urllib3_missing_on_the_controller_takes_the_module_path(
    ansible: Ansible, kubectl: Any, kube_namespace: str, tmp_path: Path
) -> None:
    """Issue 26: with urllib3 hidden from the controller, the component's action plugin still loads (the preload of
    its engine is best-effort) and the task takes the module path, naming urllib3; the module process (PYTHONPATH
    emptied by the task's environment) applies the objects."""
    task = {
        **component(kube_namespace, "web", source=ansible.source("web"), source_kind="templates"),
        "environment": {"PYTHONPATH": ""},
    }
    run = ansible.run([task], extra_env=hide(tmp_path, "urllib3"), verbosity=3)
    assert lines(run.stdout, MODULE) == [MODULE + MISSING.format("urllib3")], run.stdout[-3000:]
    assert not lines(run.stdout, IN_PROCESS)
    assert not run[0].get("failed"), run[0]
    assert {"web", "web-settings"} <= set(objects(kubectl, kube_namespace)), "the module path applied nothing"


def test_httpx_missing_sends_only_the_cloud_tasks_to_the_module_path(
    ansible: Ansible, kubectl: Any, kube_namespace: str, tmp_path: Path
) -> None:
    """Issue 26: with httpx hidden from the controller, a cloud task before the component task takes the module path
    (httpx is its dependency) while the component task still runs in the controller's process: the main process
    holds the cloud core's guard (preloaded with httpx missing), and only a module's own dependencies count."""
    cloud = {"nubes.cloud.dummy": {"resource_name": "unused", "resource_realm": "dummy"}}  # fails either way
    task = component(kube_namespace, "web", source=ansible.source("web"), source_kind="templates")
    run = ansible.run([cloud, task], extra_env=hide(tmp_path, "httpx"), verbosity=3)
    assert lines(run.stdout, DUMMY_MODULE) == [DUMMY_MODULE + MISSING.format("httpx")], run.stdout[-3000:]
    assert len(lines(run.stdout, IN_PROCESS)) == 1 and not lines(run.stdout, MODULE)
    assert not run[1].get("failed"), run[1]
    assert {"web", "web-settings"} <= set(objects(kubectl, kube_namespace)), "the in-process run applied nothing"
