"""Fixtures of the core's HTTP-level tests: the runner against the real emulator (fixture `emu`), in three
fault modes: clean, transient faults on every GET (401/429/502/503/504, probability 0.3, fixed seed), and
`/run` answering 500 `key [EXECUTABLE] doesn't exist` while still queuing the job."""

from __future__ import annotations

import re
import uuid
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import Runner
from tests.unit.nubes.service_specs import service_from_catalogue

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TRANSIENT = (401, 429, 502, 503, 504)
FAULT_SEED = 20261129
PER_RULE = 1 - 0.7 ** (1 / 5)  # five rules tried in order: together they fire on 30% of GETs

FAULT_MODES: Dict[str, List[Dict[str, Any]]] = {
    "clean": [],
    "transient_gets": [
        {"kind": "unauthorized", "method": "GET", "path": "*", "probability": PER_RULE},
        {"kind": "http", "status": 429, "retry_after": 1, "method": "GET", "path": "*", "probability": PER_RULE},
        {"kind": "http", "status": 502, "method": "GET", "path": "*", "probability": PER_RULE},
        {"kind": "http", "status": 503, "method": "GET", "path": "*", "probability": PER_RULE},
        {"kind": "http", "status": 504, "method": "GET", "path": "*", "probability": PER_RULE},
    ],
    "run_executable_500": [{"kind": "executable"}],
}

RunTask = Callable[..., Tuple[Dict[str, Any], List[Dict[str, Any]]]]


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")


@pytest.fixture(scope="session")
def specs() -> Dict[str, Dict[str, Any]]:
    return {
        "s3": service_from_catalogue(12),
        "postgres": service_from_catalogue(90),
        "flask": service_from_catalogue(89),
    }


@pytest.fixture(params=list(FAULT_MODES))
def fault_mode(request: pytest.FixtureRequest, emu: Any) -> Iterator[str]:
    emu.set_faults(FAULT_MODES[request.param], seed=FAULT_SEED)
    yield request.param
    emu.clear_faults()


@pytest.fixture
def name() -> str:
    return "core-" + uuid.uuid4().hex[:10]


@pytest.fixture
def task(emu: Any, tmp_path: Any) -> RunTask:
    """task(service, kind="instance", sub=None, check_mode=False, **params) -> (result, request log entries)."""
    state_path = str(tmp_path / "state.json")

    def _task(
        service: Dict[str, Any], kind: str = "instance", sub: Any = None, check_mode: bool = False, **params: Any
    ) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
        full: Dict[str, Any] = {
            "api_endpoint": emu.endpoint,
            "api_token": emu.token,
            "validate_certs": True,
            "request_timeout": 10.0,
            "wait": True,
            "wait_timeout": None,
            "state_backend": "file",
            "state_path": state_path,
            "workspace": "default",
            "state": "present",
            "adopt_existing_on_create": False,
            "suspend_on_destroy": True,
        }
        full.update(params)
        since = emu.last_seq
        result = Runner(service, full, kind, sub, check_mode=check_mode).run()
        return result, emu.requests(since=since)

    _task.state_path = state_path  # type: ignore[attr-defined]
    return _task


def shape(entries: List[Dict[str, Any]]) -> List[str]:
    """The request sequence: `METHOD /path[?fields=...]` with uids as <uid>; transient answers to GETs (which
    the client retried) dropped; repeated polls of the same object collapsed into one line."""
    lines: List[str] = []
    for entry in entries:
        if entry["method"] == "GET" and entry["status"] in TRANSIENT:
            continue
        line = "{} {}".format(entry["method"], UUID.sub("<uid>", entry["path"]))
        fields = (entry.get("query") or {}).get("fields")
        if fields:
            line += "?fields=" + fields
        if entry["method"] == "GET" and lines and lines[-1] == line and "fields" not in line:
            continue  # polling
        lines.append(line)
    return lines


def live_instances(emu: Any, service_id: int, display_name: str) -> List[Dict[str, Any]]:
    return [
        i
        for i in emu.instances()
        if i.get("displayName") == display_name and int(i.get("serviceId", 0)) == service_id and not i.get("isDeleted")
    ]


def create_flow(service_id: int, params: int, poll_instance_after: bool = True) -> List[str]:
    """A new instance (deck-api 5.1): look the name up, POST /instances, read the create operation's id from the
    catalogue (issue 14: ids come from the API, not the spec), then the operation."""
    head = ["GET /instances", "POST /instances", f"GET /services/{service_id}"]
    return head + operation_flow("create", params, poll_instance_after)


def operation_flow(name: str, params: int, poll_instance_after: bool = True) -> List[str]:
    """The request shape of one operation (deck-api 5.1): create op, read params, push, validate, run, poll."""
    flow = ["POST /instanceOperations", "GET /instanceOperations/<uid>?fields=cfsParams"]
    flow += ["POST /instanceOperationCfsParams"] * params
    flow += [
        "GET /instanceOperations/<uid>/validate-cfs",
        "POST /instanceOperations/<uid>/run",
        "GET /instanceOperations/<uid>",
    ]
    if poll_instance_after:
        flow.append("GET /instances/<uid>")
    return flow
