"""Fixtures of the core's unit tests: a stubbed deck-api, SERVICE specs from the emulator catalogue, a
runner factory with a temporary state file and a polling clock that never sleeps."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.runner import Runner
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.unit.nubes.fake_deck import FakeDeck
from tests.unit.nubes.service_specs import service_from_catalogue

ENDPOINT = "https://deck.example.test/api/v1/svc"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: List[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0")
    for name in ("NUBES_API_ENDPOINT", "NUBES_API_TOKEN", "NUBES_STATE_PATH", "NUBES_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def services() -> Dict[str, Dict[str, Any]]:
    return {
        "postgres": service_from_catalogue(90),
        "s3": service_from_catalogue(12),
        "s3bucket": service_from_catalogue(13),
        "flask": service_from_catalogue(89),
        "dummy": service_from_catalogue(1),
    }


@pytest.fixture
def deck(services: Dict[str, Dict[str, Any]]) -> FakeDeck:
    return FakeDeck(list(services.values()))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def state_path(tmp_path: Any) -> str:
    return str(tmp_path / "state" / "state.json")


RunFactory = Callable[..., Dict[str, Any]]


def stored_record(state_path: str, service: str, name: str) -> Optional[Dict[str, Any]]:
    """The record of the instance `name` of `service` in the state file (workspace `default`), as stored (JSON), or
    None. Read by identity (the service id plays no part in a read)."""
    record = StateStore(FileBackend(state_path), "default").get(ResourceRef(service, 0, "default", name))
    return None if record is None else record.to_json()


@pytest.fixture
def run(deck: FakeDeck, clock: FakeClock, state_path: str) -> Iterator[RunFactory]:
    """run(service, kind="instance", sub=None, check_mode=False, diff_mode=False, no_log=False, **params) -> result."""

    def _run(
        service: Dict[str, Any],
        kind: str = "instance",
        sub: Any = None,
        check_mode: bool = False,
        diff_mode: bool = False,
        no_log: bool = False,
        **params: Any,
    ) -> Dict[str, Any]:
        full: Dict[str, Any] = {
            "api_endpoint": ENDPOINT,
            "api_token": deck.token,
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
        runner = Runner(
            service,
            full,
            kind,
            sub,
            check_mode=check_mode,
            diff_mode=diff_mode,
            transport=deck.transport,
            poller=Poller(clock=clock, sleep=clock.sleep),
            no_log=no_log,
        )
        result = runner.run()
        result["_warnings"] = runner.warnings
        return result

    yield _run


@pytest.fixture
def backend(state_path: str) -> FileBackend:
    return FileBackend(state_path)
