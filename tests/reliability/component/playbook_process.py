"""Start a `nubes.cloud.component` playbook as a process group that a test can SIGKILL, and read the component's
record and its owned objects back from the cluster."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.integration.component.component_harness import ANSIBLE_PLAYBOOK, REPO
from tests.reliability.process_tree import kill_tree

OWNER_LABEL = "component.nubes.cloud/owner-id"
RECORD_LABEL = "component.nubes.cloud/component"


def start_playbook(workdir: Path, tasks: list[dict[str, Any]], kubeconfig: str, tag: str) -> subprocess.Popen[str]:
    """ansible-playbook on localhost in its own session (the kill takes playbook, worker and module at once)."""
    path = workdir / f"kill-{tag}.yml"
    path.write_text(yaml.safe_dump([{"hosts": "localhost", "gather_facts": False, "tasks": tasks}]), encoding="utf-8")
    env = dict(os.environ)
    env.update(
        ANSIBLE_COLLECTIONS_PATH=str(REPO / ".collections"),
        ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        KUBECONFIG=kubeconfig,
    )
    return subprocess.Popen(
        [str(ANSIBLE_PLAYBOOK), str(path)],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the playbook with every process below it, the module first: ansible-core's worker runs the module
    in a session of its own, so the playbook's process group alone would leave it running (issue 24)."""
    if proc.poll() is None:
        kill_tree(proc.pid)
    proc.communicate(timeout=60)


def record_inventory(kubectl: Any, namespace: str, name: str) -> list[dict[str, Any]]:
    """The inventory the component's record ConfigMap holds (plain or gzip-packed)."""
    found = kubectl("get", "configmap", f"cloud.nubes.component.{name}", "-n", namespace, "-o", "json", check=False)
    if found.returncode != 0:
        return []
    record = json.loads(found.stdout)
    data = record.get("data") or {}
    if "inventory" in data:
        return list(json.loads(data["inventory"]))
    packed = (record.get("binaryData") or {}).get("inventory.gz")
    return list(json.loads(gzip.decompress(base64.b64decode(packed)))) if packed else []


def owned_objects(kubectl: Any, namespace: str, kinds: str = "configmaps,secrets,deployments") -> set[tuple[str, str]]:
    """(kind, name) of every object in the namespace that carries a component owner label, except the components'
    own record ConfigMaps (labelled `<prefix>/component`, never part of an inventory)."""
    listed = kubectl.json("get", kinds, "-n", namespace, "-l", f"{OWNER_LABEL},!{RECORD_LABEL}")
    return {(item["kind"], item["metadata"]["name"]) for item in listed["items"]}
