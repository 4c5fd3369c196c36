"""SIGKILL an `ansible-playbook` run at a chosen step of a cloud flow, found by watching the emulator.

A step is named by the API call that follows it: a one-shot latency rule on that call holds the module there;
once the rule has fired (the call is in flight) the playbook and every process below it are SIGKILLed, the module
process first (it runs in a session of its own: tests/reliability/process_tree.py), and the test checks that the
module died. The emulator still finishes the held call after the delay, as a real API would finish a request whose
client died, and the test waits for that before re-running.
"""

from __future__ import annotations

import signal
import time
from typing import Any, Callable

from tests.emulator import EmulatorServer
from tests.reliability.cloud.fleet import Fleet
from tests.reliability.process_tree import alive, kill_tree

HOLD_MS = 2500
UUID_GLOB = "????????-????-????-????-????????????"
OPERATION = "/instanceOperations/" + UUID_GLOB

# step name -> the held call (a fault rule's target); `skip` lets earlier matching calls through
CREATE_STEPS: dict[str, dict[str, Any]] = {
    "placeholder_in_flight": {"method": "POST", "path": "/instances"},
    "after_placeholder": {"method": "POST", "path": "/instanceOperations"},
    "after_operation_create": {"method": "GET", "path": OPERATION},
    "after_params": {"method": "GET", "path": OPERATION + "/validate-cfs"},
    "after_run": {"method": "GET", "path": OPERATION, "skip": 1},
    "during_polling": {"method": "GET", "path": OPERATION, "skip": 3},
}
# modify and sub-resource operations: the same steps without the placeholder
OPERATION_STEPS: dict[str, dict[str, Any]] = {
    "after_operation_create": {"method": "GET", "path": OPERATION},
    "after_params": {"method": "GET", "path": OPERATION + "/validate-cfs"},
    "run_in_flight": {"method": "POST", "path": OPERATION + "/run"},
    "after_run": {"method": "GET", "path": OPERATION, "skip": 1},
    "during_polling": {"method": "GET", "path": OPERATION, "skip": 3},
}


def wait_for(predicate: Callable[[], bool], what: str, limit: float = 120.0) -> None:
    """Poll until `predicate()` holds (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting for " + what)
        time.sleep(0.02)


def crash_at(emu: EmulatorServer, fleet: Fleet, tasks: list[dict[str, Any]], step: dict[str, Any]) -> None:
    """Run `tasks` on one host and SIGKILL the playbook while the call `step` is in flight. The tasks take the
    module path (NUBES_EXECUTION=module, issue 26) so that the test sees the module process die; in the
    controller's process the task dies with the worker that the same kill ends."""
    fleet.extra_env["NUBES_EXECUTION"] = "module"
    since = emu.last_seq
    emu.set_faults([{"kind": "latency", "ms": HOLD_MS, "count": 1, **step}])
    proc, _run_dir = fleet.start(tasks, hosts=["r0"])
    try:
        wait_for(lambda: emu.faults()[0].get("fired", 0) >= 1 or proc.poll() is not None, "the held call")
        if proc.poll() is not None:
            calls = "\n".join(f"{r['method']} {r['path']} {r['status']}" for r in emu.requests(since))
            output = proc.communicate()[0]
            raise AssertionError(f"the playbook ended before reaching the step; its API calls:\n{calls}\n{output}")
        killed = kill_tree(proc.pid)
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    modules = [p for p in killed if p.is_module]
    assert modules, f"no module process was running at the step: {killed}"
    wait_for(lambda: not any(alive(p.pid) for p in modules), "the killed module process to be gone", limit=10)
    emu.clear_faults()
    wait_for(
        lambda: any(entry.get("fault") == "latency" for entry in emu.requests(since)),
        "the emulator to finish the held call",
    )
