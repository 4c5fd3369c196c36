"""A tiny HTTPS client for the launcher's own readiness checks and the fake Node (stdlib only)."""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional


class NotReady(RuntimeError):
    pass


class ApiClient:
    """Talks to the apiserver as the admin user with its client certificate."""

    def __init__(self, server: str, ca_file: Path, cert_file: Path, key_file: Path) -> None:
        self.server = server
        self._context = ssl.create_default_context(cafile=str(ca_file))
        self._context.load_cert_chain(str(cert_file), str(key_file))

    def request(self, method: str, path: str, body: Optional[dict[str, Any]] = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self._context, timeout=10) as resp:
                return resp.status, _decode(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, _decode(err.read())

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode(errors="replace")


def http_status(url: str, insecure: bool = False) -> int:
    """Status of a GET on a local health endpoint, 0 when it does not answer."""
    context = None
    if url.startswith("https:") and insecure:
        # the scheduler's in-memory self-signed serving cert on 127.0.0.1; nothing secret is sent
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except (OSError, ValueError):
        return 0


def wait_until(what: str, check: Callable[[], bool], deadline: float, alive: Callable[[], bool]) -> None:
    """Poll check() until it is true; give up at the monotonic deadline or when the process died."""
    while True:
        if check():
            return
        if not alive():
            raise NotReady(f"{what}: the process exited")
        if time.monotonic() > deadline:
            raise NotReady(f"{what}: not ready before the start timeout")
        time.sleep(0.2)
