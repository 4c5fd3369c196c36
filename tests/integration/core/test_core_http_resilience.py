"""Crash safety and the legacy endpoint style against the running emulator."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.integration.core.conftest import RunTask, create_flow, live_instances, shape

REPO = Path(__file__).resolve().parents[3]
REALM = "k8s-3.ext.nubes.ru"


def wait_for(predicate: Any, what: str, limit: float = 30.0) -> None:
    """Poll until `predicate()` holds (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting for " + what)
        time.sleep(0.02)


def record_of(state_path: str, name: str) -> Any:
    if not os.path.exists(state_path):
        return None
    record = StateStore(FileBackend(state_path), "default").get(ResourceRef("s3", 12, "default", name))
    return None if record is None else record.to_json()


def test_sigkill_right_after_post_instances_then_rerun(
    task: RunTask, specs: Dict[str, Any], emu: Any, name: str
) -> None:
    """P42 (beyond): the uid is recorded the moment POST /instances returns; SIGKILL then re-run -> exactly one
    instance and a correct record (the lost POST is never repeated)."""
    state_path = task.state_path  # type: ignore[attr-defined]
    # Hold the process right after POST /instances returned: the next call (POST /instanceOperations) stalls.
    emu.set_faults([{"kind": "latency", "ms": 8000, "method": "POST", "path": "/instanceOperations"}])
    params = {
        "api_endpoint": emu.endpoint,
        "api_token": emu.token,
        "state_path": state_path,
        "workspace": "default",
        "state": "present",
        "wait": True,
        "resource_name": name,
        "display_name": name,
        "resource_realm": REALM,
    }
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO / ".collections"), str(REPO)]), NUBES_BACKOFF_SCALE="0.01"
    )
    since = emu.last_seq
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.core.drive_runner", json.dumps({"service_id": 12, "params": params})],
        cwd=str(REPO),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(
            lambda: any(e["method"] == "POST" and e["path"] == "/instances" for e in emu.requests(since)),
            "POST /instances in the emulator log",
        )
        wait_for(lambda: bool((record_of(state_path, name) or {}).get("instance_uid")), "the recorded uid")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    killed_record = record_of(state_path, name)
    assert killed_record["status"] == "creating"
    uid = killed_record["instance_uid"]
    emu.clear_faults()

    result, log = task(specs["s3"], resource_name=name, display_name=name, resource_realm=REALM)
    assert result["instance_uid"] == uid and result["status"] == "running"
    assert "POST /instances" not in shape(log)
    assert len(live_instances(emu, 12, name)) == 1
    final = record_of(state_path, name)
    assert final["status"] == "present" and final["instance_uid"] == uid
    assert not task(specs["s3"], resource_name=name, display_name=name, resource_realm=REALM)[0]["changed"]


def test_legacy_proxy_endpoint(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P9: an endpoint containing index.cfm sends every call as ?endpoint=/path (same flow, same result)."""
    result, log = task(
        specs["s3"], api_endpoint=emu.legacy_endpoint, resource_name=name, display_name=name, resource_realm=REALM
    )
    assert result["status"] == "running"
    assert {e["form"] for e in log} == {"legacy"}
    assert shape(log) == create_flow(12, 2)
    again, log = task(
        specs["s3"], api_endpoint=emu.legacy_endpoint, resource_name=name, display_name=name, resource_realm=REALM
    )
    assert not again["changed"] and shape(log) == ["GET /instances/<uid>"]


def test_gateway_endpoint_form(task: RunTask, specs: Dict[str, Any], emu: Any, name: str) -> None:
    """P10: any other endpoint appends the path directly."""
    _result, log = task(specs["s3"], resource_name=name, display_name=name, resource_realm=REALM)
    assert {e["form"] for e in log} == {"gateway"}
