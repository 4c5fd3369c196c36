"""The HTTP server (stdlib ThreadingHTTPServer, HTTP/1.1 keep-alive) and `EmulatorServer` for tests."""

from __future__ import annotations

import json
import secrets
import socket
import ssl
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.emulator import admin, autoscale
from tests.emulator import assumptions as A
from tests.emulator.app import Application, Outcome
from tests.emulator.clock import Clock
from tests.emulator.routes import parse_target
from tests.emulator.settings import Settings

JSON_TYPE = "application/json;charset=UTF-8"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16  # headers and body leave in one write (flushed after each request by the stdlib)
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        app = self.server.app
        if self.path.startswith(admin.PREFIX + "/") or self.path == admin.PREFIX:
            body: Any = None
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError as exc:
                    self._send(Outcome(400, {"error": f"invalid JSON: {exc}"}))
                    return
            response = admin.handle(app, self.command, self.path, body)
            self._send(Outcome(response.status, response.body, response.headers))
            return
        target = parse_target(self.path)
        if target is None:
            self._send(Outcome(404, {"error": f"not a deck-api URL: {self.path}"}))
            return
        outcome = app.handle(self.command, target, self.headers.get("Authorization"), raw)
        if outcome.reset:
            self._reset()
            return
        self._send(outcome)

    def _send(self, outcome: Outcome) -> None:
        payload = b"" if outcome.body is None else json.dumps(outcome.body, ensure_ascii=False).encode("utf-8")
        self.send_response(outcome.status)
        self.send_header("Content-Type", JSON_TYPE)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in outcome.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _reset(self) -> None:
        """Drop the connection with a TCP RST (SO_LINGER 0), as a crashing proxy would."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], app: Application) -> None:
        self.app = app
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # connection resets by clients are normal in fault tests; anything else still goes to stderr
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, BrokenPipeError, TimeoutError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


class EmulatorServer:
    """The emulator on 127.0.0.1, in a background thread. Use as a context manager or start()/stop().

    `op_duration` is how long every operation takes (seconds; None means the realistic per-kind defaults);
    `durations` overrides it per service / operation: {"postgres": 2, "postgres.create": 5, "90.delete": 1}.
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        op_duration: float | None = 0.2,
        durations: dict[str, float] | None = None,
        key: str | None = None,
        faults: list[dict[str, Any]] | None = None,
        state_file: str | Path | None = None,
        unique_display_names: bool | None = A.UNIQUE_DISPLAY_NAMES_DEFAULT,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Clock | None = None,
        tls_cert: str | Path | None = None,
        tls_key: str | Path | None = None,
        operation_id_offset: int = 0,
    ) -> None:
        """`tls_cert` / `tls_key` (PEM files): serve HTTPS instead of HTTP (TLS tests of the client).

        `operation_id_offset` > 0: every svcOperationId served (and accepted) is the catalogue's plus this
        offset, so a client that trusts a spec's operation id gets a 4xx (the operation-id offset mode).
        """
        self._tls: tuple[str, str] | None = (str(tls_cert), str(tls_key or tls_cert)) if tls_cert else None
        settings = Settings(
            op_duration=op_duration, durations=dict(durations or {}), unique_display_names=unique_display_names
        )
        self._initial_settings = settings.to_dict()
        self.app = Application(
            key=key or secrets.token_urlsafe(32),
            seed=seed,
            settings=settings,
            faults=faults,
            state_file=Path(state_file) if state_file else None,
            clock=clock,
            operation_id_offset=operation_id_offset,
        )
        self._address = (host, port)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._token: str | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> EmulatorServer:
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(self._address, self.app)
        if self._tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self._tls)
            # the handshake runs in the handler thread, so a client that fails it cannot stall the accept loop
            self._httpd.socket = context.wrap_socket(
                self._httpd.socket, server_side=True, do_handshake_on_connect=False
            )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="nubes-emulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.app.engine.flush()
        self._httpd = None
        self._thread = None

    def serve_forever(self) -> None:
        """Serve in the calling thread (the CLI) until shutdown() is called from elsewhere."""
        if self._httpd is None:
            self._httpd = _HTTPServer(self._address, self.app)
        self._httpd.serve_forever()

    def shutdown(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ addresses and tokens
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the emulator is not started")
        return int(self._httpd.server_address[1])

    @property
    def operation_id_offset(self) -> int:
        """What is added to every svcOperationId of the catalogue (0: the ids the specs were generated with)."""
        return self.app.catalogue.operation_id_offset

    @property
    def base_url(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    @property
    def endpoint(self) -> str:
        """The gateway form: http://127.0.0.1:PORT/api/v1/svc"""
        return self.base_url + A.GATEWAY_PREFIX

    @property
    def legacy_endpoint(self) -> str:
        """The legacy form: http://127.0.0.1:PORT/api/v1/index.cfm (proxy ?endpoint= or path-info)."""
        return self.base_url + A.LEGACY_SCRIPT

    @property
    def admin_url(self) -> str:
        return self.base_url + admin.PREFIX

    @property
    def token(self) -> str:
        """A valid bearer token (valid for a year of emulator time, however far tests advance the clock)."""
        if self._token is None:
            self._token = self.app.token(A.TEST_TOKEN_TTL)
        return self._token

    def mint_token(self, ttl: float = A.DEFAULT_TOKEN_TTL, username: str | None = None) -> str:
        """A new token; a negative `ttl` gives an expired one."""
        return self.app.token(ttl, username)

    # ------------------------------------------------------------------ test helpers
    def requests(self, since: int = 0) -> list[dict[str, Any]]:
        return self.app.log.since(since)

    @property
    def last_seq(self) -> int:
        return self.app.log.last_seq

    def clear_requests(self) -> None:
        self.app.log.clear()

    def set_faults(self, rules: list[dict[str, Any]], seed: int | None = None) -> None:
        if seed is not None:
            self.app.faults.reseed(seed)
        self.app.faults.replace(rules)

    def add_faults(self, rules: list[dict[str, Any]]) -> None:
        self.app.faults.add(rules)

    def faults(self) -> list[dict[str, Any]]:
        """The active rules with their `seen` / `fired` counters."""
        return self.app.faults.rules()

    def clear_faults(self) -> None:
        self.app.faults.clear()

    def configure(self, **settings: Any) -> None:
        """Change settings: op_duration, durations, unique_display_names, pending_fraction."""
        self.app.settings.update(settings)

    def reset_settings(self) -> None:
        self.app.settings.update(self._initial_settings)

    @property
    def clock(self) -> Clock:
        return self.app.clock

    def instances(self) -> list[dict[str, Any]]:
        """All instances, deleted ones included, as GET /instances/{uid} shows them."""
        return self.app.engine.all_instances()

    def platform_change(self, uid: str, params: dict[str, Any]) -> dict[str, Any]:
        """Change live params as the platform does by itself (autoScale growing a disk); returns the instance."""
        return self.app.engine.platform_change(uid, params)

    def grow_disk(self, uid: str, gb: int) -> dict[str, Any]:
        """autoScale grows the instance's disk to `gb` GB, as the admin call `grow-disk` does (issue 23); refused
        (ApiError 409) while autoScale is off or when it would not grow."""
        return autoscale.grow_disk(self.app.engine, uid, gb)

    def operations(self) -> list[dict[str, Any]]:
        return self.app.engine.all_operations()

    def reset(self) -> None:
        """Forget every instance and operation (and the log and faults)."""
        self.app.engine.reset()
        self.app.engine.flush()
        self.app.log.clear()
        self.app.faults.clear()
