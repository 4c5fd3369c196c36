"""Stopping the emulator: SIGTERM / SIGINT always end `serve` (and `make emulator`), free the port and flush state.

The old handler called `Event.set()`, which deadlocked when the signal landed while the main thread held
that event's lock (inside `Condition.wait`) or inside the first handler (a second signal: the process-group
signal plus make's own). The handlers now only record the signal (tests/emulator/stopsignal.py).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.emulator.stopsignal import STOP_SIGNALS, StopSignals
from tests.emulator.tests.api import PLAIN

REPO = Path(__file__).resolve().parents[3]
EXIT_TIMEOUT = 15.0
PAIRS = [
    (signal.SIGTERM, signal.SIGTERM),
    (signal.SIGTERM, signal.SIGINT),
    (signal.SIGINT, signal.SIGINT),
    (signal.SIGINT, signal.SIGTERM),
]


@pytest.fixture
def restore_handlers() -> Iterator[None]:
    """StopSignals keeps its handlers on purpose (a late signal must not break the exit); put pytest's back."""
    saved = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.mark.usefixtures("restore_handlers")
def test_signals_are_recorded_never_raised() -> None:
    """Back-to-back signals, also one raised while the main thread holds a lock, are recorded in order."""
    lock = threading.Lock()
    with StopSignals() as stop:
        with lock:  # where Event.set() in the old handler deadlocked: its own lock held by the main thread
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGTERM)
        assert stop.wait() == signal.SIGINT
    assert stop.received == [signal.SIGINT, signal.SIGTERM]


@pytest.mark.usefixtures("restore_handlers")
def test_wait_wakes_up_on_a_signal_from_elsewhere() -> None:
    """A signal sent by another process wakes `wait()` through the wake-up socket, not a poll interval."""
    with StopSignals() as stop:
        sender = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM))
        started = time.monotonic()
        sender.start()
        assert stop.wait() == signal.SIGTERM
        assert time.monotonic() - started < 0.9  # the select timeout is 1 s
        sender.join()


def _spawn(command: list[str]) -> tuple[subprocess.Popen[str], str, str]:
    """Start `command` in its own process group; returns it with the endpoint and token it printed."""
    proc = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "MAKEFLAGS": ""},
    )  # fmt: skip
    assert proc.stdout is not None
    endpoint = proc.stdout.readline().strip().partition("=")[2]
    token = proc.stdout.readline().strip().partition("=")[2]
    if not endpoint.startswith("http://127.0.0.1:"):
        proc.kill()
        raise AssertionError(f"{command} did not print its endpoint")
    return proc, endpoint, token


def _unflushed_change(endpoint: str, token: str, name: str) -> None:
    """Create a zone (written at once), let its create finish, then settle it through the admin API, which
    does not write the state file: only the flush at stop can save the status `running`."""
    headers = {"Authorization": f"Bearer {token}"}
    base = endpoint.rsplit("/api/", 1)[0]
    r = PLAIN.post(endpoint + "/instances", json={"serviceId": 110, "displayName": name}, headers=headers)
    uid = r.headers["Location"][2:]
    r = PLAIN.post(endpoint + "/instanceOperations", json={"instanceUid": uid, "operation": "create"}, headers=headers)
    op = r.headers["Location"][2:]
    ids = PLAIN.get(f"{endpoint}/instanceOperations/{op}", params={"fields": "cfsParams"}, headers=headers).json()
    zone_id = next(
        p["svcOperationCfsParamId"]
        for p in ids["instanceOperation"]["cfsParams"]
        if p["svcOperationCfsParam"] == "zoneName"
    )
    body = {"instanceOperationUid": op, "svcOperationCfsParamId": zone_id, "paramValue": f"{name}.example"}
    assert PLAIN.post(endpoint + "/instanceOperationCfsParams", json=body, headers=headers).status_code == 201
    assert PLAIN.post(f"{endpoint}/instanceOperations/{op}/run", json={}, headers=headers).status_code == 200
    PLAIN.post(base + "/_emulator/clock", json={"advance": 60})
    statuses = {
        i["displayName"]: i["explainedStatus"] for i in PLAIN.get(base + "/_emulator/instances").json()["results"]
    }
    assert statuses[name] == "running"


def _port_is_free(port: int) -> bool:
    """Nothing answers on the port and a new server can listen on it (SO_REUSEADDR, as the emulator binds)."""
    with socket.socket() as client:
        if client.connect_ex(("127.0.0.1", port)) == 0:
            return False
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError:
            return False
    return True


def _stop_and_check(
    proc: subprocess.Popen[str], endpoint: str, signals: list[tuple[str, int]], state: Path, name: str
) -> None:
    """Send `signals` back to back (("group", sig) to the process group, ("proc", sig) to the leader), then
    assert: everything in the group exits, the port is free, the state file holds the settled instance."""
    pgid = os.getpgid(proc.pid)
    for target, signum in signals:
        if target == "group":
            os.killpg(pgid, signum)
        else:
            os.kill(proc.pid, signum)
    try:
        proc.wait(timeout=EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        proc.wait()
        raise AssertionError(f"the emulator did not exit within {EXIT_TIMEOUT} s after {signals}") from None
    deadline = time.monotonic() + EXIT_TIMEOUT
    while time.monotonic() < deadline:  # make's child may outlive make by a moment
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.killpg(pgid, signal.SIGKILL)
        raise AssertionError(f"processes of the group were left running after {signals}")
    port = int(endpoint.split(":")[2].split("/")[0])
    assert _port_is_free(port), f"port {port} still taken after {signals}"
    data: dict[str, Any] = json.loads(state.read_text(encoding="utf-8"))
    statuses = {i["display_name"]: i["status"] for i in data["instances"]}
    assert statuses.get(name) == "running", f"state not flushed at stop after {signals}: {statuses}"


def test_serve_stops_on_quick_signal_pairs(tmp_path: Path) -> None:
    """`python -m tests.emulator serve`: SIGTERM/SIGINT pairs, sent back to back, many times."""
    for round_no in range(8):
        first, second = PAIRS[round_no % len(PAIRS)]
        state = tmp_path / f"state-{round_no}.json"
        proc, endpoint, token = _spawn(
            [sys.executable, "-m", "tests.emulator", "serve", "--op-duration", "0.1", "--state", str(state)]
        )
        name = f"stop-{round_no}"
        _unflushed_change(endpoint, token, name)
        _stop_and_check(proc, endpoint, [("proc", first), ("proc", second)], state, name)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_emulator_stops_on_group_signals(tmp_path: Path) -> None:
    """`make emulator`: the process-group signal (Ctrl-C, or a supervisor's SIGTERM) plus make's own, and pairs
    of group signals; make, its emulator and the port are gone, the state is flushed."""
    for round_no in range(4):
        first, second = PAIRS[round_no % len(PAIRS)]
        state = tmp_path / f"make-state-{round_no}.json"
        args = f"--op-duration 0.1 --state {state}"
        proc, endpoint, token = _spawn(
            ["make", "-s", "--no-print-directory", "emulator", f"PY={sys.executable}", f"EMULATOR_ARGS={args}"]
        )
        name = f"make-stop-{round_no}"
        _unflushed_change(endpoint, token, name)
        _stop_and_check(proc, endpoint, [("group", first), ("group", second)], state, name)
