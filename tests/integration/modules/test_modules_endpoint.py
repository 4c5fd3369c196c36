"""Issue 16: a dead end fails fast, and only the deck-api is believed (real ansible-playbook runs).

The truth is what reached the server: the emulator's request log, or the requests a small local server saw.
"""

from __future__ import annotations

import re
import socket
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, api_gets, write_calls

LOGIN_PAGE = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><form method=post></form></body></html>"


class LoginPage(ThreadingHTTPServer):
    """A web server that answers every path with an HTML login page (200), and records what it was sent."""

    daemon_threads = True

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.seen.append((self.command, self.path))
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(LOGIN_PAGE)))
                self.end_headers()
                self.wfile.write(LOGIN_PAGE)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/api/v1/svc"


class HangUp:
    """A TCP listener on 127.0.0.1 that accepts each connection and closes it at once (no HTTP answer): an
    endpoint that never answers. It counts the connections, i.e. the client's attempts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/api/v1/svc"
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


class Blackhole:
    """A TCP listener on 127.0.0.1 that accepts each connection and never answers on it (held open until close()):
    a blackholed endpoint, where every request runs into request_timeout. It counts the connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/api/v1/svc"
        self.held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def login_page() -> Iterator[LoginPage]:
    server = LoginPage()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def name() -> str:
    return "i16-" + uuid.uuid4().hex[:8]


def test_wrong_token_fails_after_four_attempts(emu: EmulatorServer, tmp_path: Path) -> None:
    """P32/P33 (issue 16): a wrong token fails after the seed's 4 attempts, waiting 2/4/8 s (14 s, under 20 s;
    before: 12 attempts in 61 s); the message counts them truthfully and says what to check."""
    runner = PlaybookRunner(tmp_path, emu.endpoint, "not-a-valid-token")
    result = runner.one("dummy_info", {"resource_name": name()})
    assert result.get("failed"), result
    gets = api_gets(emu.requests())
    assert [r["status"] for r in gets] == [401] * 4
    msg = result["msg"]
    assert "after 4 attempts over 14 s" in msg
    assert "api_token" in msg and emu.endpoint in msg and "clock" in msg


def test_endpoint_that_never_answers_fails_after_four_attempts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """P34 (issue 16): an endpoint that never answers gets the seed's 4 attempts (before: 12), and the message
    names it and counts them truthfully."""
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")
    dead = HangUp()
    try:
        result = PlaybookRunner(tmp_path, dead.url, "token").one("dummy_info", {"resource_name": name()})
    finally:
        dead.close()
    assert result.get("failed"), result
    assert dead.accepted == 4
    assert f"cannot reach the Nubes API at {dead.url}" in result["msg"]
    assert "after 4 attempts" in result["msg"]


def test_blackholed_endpoint_fails_inside_the_budget_and_states_the_true_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24 (P34): requests that get no answer are paid from the task's retry budget with the time they took, and
    retried only while the budget is not used up: with request_timeout 2 and NUBES_RETRY_BUDGET=5 a blackholed
    endpoint gets ceil(5 / 2) = 3 attempts (before: 4, like 4 x 60 s = 257 s at the defaults), and the message states
    the real elapsed time, the requests included (before: "over 0 s", only the scaled waits were counted)."""
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")
    monkeypatch.setenv("NUBES_RETRY_BUDGET", "5")
    dead = Blackhole()
    try:
        result = PlaybookRunner(tmp_path, dead.url, "token").one(
            "dummy_info", {"resource_name": name(), "request_timeout": 2}
        )
        connections = len(dead.held)
    finally:
        dead.close()
    assert result.get("failed"), result
    assert connections == 3
    found = re.search(r"after 3 attempts over (\d+) s", result["msg"])
    assert found, result["msg"]
    assert 6 <= int(found.group(1)) <= 7, result["msg"]  # 3 x request_timeout, plus 0.06 s of scaled waiting


def test_extra_rounds_stay_inside_the_task_budget(
    emu: EmulatorServer, playbook: PlaybookRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond P32-P34 (issue 16): once the endpoint has answered, a read still failing after its 4 attempts gets
    extra rounds (8 s each) only while the task's one budget lasts: with NUBES_RETRY_BUDGET=20, exactly 2."""
    monkeypatch.setenv("NUBES_BACKOFF_SCALE", "0.01")
    monkeypatch.setenv("NUBES_RETRY_BUDGET", "20")
    emu.set_faults([{"kind": "http", "status": 503, "method": "GET", "path": "/instanceOperations/*"}])
    result = playbook.one("dummy", {"resource_name": name(), "resource_realm": "dummy"})
    assert result.get("failed"), result
    failed_reads = [r for r in api_gets(emu.requests()) if r["path"].startswith("/instanceOperations/")]
    assert [r["status"] for r in failed_reads] == [503] * 6
    assert "after 6 attempts" in result["msg"]


def test_info_at_a_wrong_path_fails_instead_of_reporting_not_found(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 16: a wrong path (the API's router answers 404) is an error naming the endpoint, never
    `exists: false` (before: success with exists false)."""
    wrong = emu.endpoint + "/wrong"
    runner = PlaybookRunner(tmp_path, wrong, emu.token)
    by_uid = runner.one("dummy_info", {"instance_uid": str(uuid.uuid4())})
    by_name = runner.one("dummy_info", {"resource_name": name()})
    for result in (by_uid, by_name):
        assert result.get("failed"), result
        assert "exists" not in result
        assert f"at {wrong} answered HTTP 404" in result["msg"]
        assert "not the Nubes deck-api" in result["msg"]


def test_html_login_page_never_receives_a_write(login_page: LoginPage, tmp_path: Path) -> None:
    """Issue 16: an HTML login page at the endpoint gets no write (before: it received POST /instances); the
    task fails with the endpoint and what it answered."""
    result = PlaybookRunner(tmp_path, login_page.url, "token").one(
        "dummy", {"resource_name": name(), "resource_realm": "dummy"}
    )
    assert result.get("failed"), result
    assert login_page.seen and {method for method, _path in login_page.seen} == {"GET"}
    assert f"at {login_page.url} answered HTTP 200 with text/html, not JSON" in result["msg"]


def test_a_real_not_found_is_still_not_found(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """K2: at the right endpoint, an unknown instance uid is plain "not found" (exists: false), no write."""
    result = playbook.one("dummy_info", {"instance_uid": str(uuid.uuid4())})
    assert not result.get("failed"), result
    assert result["exists"] is False
    assert write_calls(emu.requests()) == []
