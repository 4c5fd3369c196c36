"""A plain-HTTP proxy on 127.0.0.1 in front of the test cluster's kube-apiserver that answers chosen requests the
way an apiserver does right after a CRD is created: ``429 storage is (re)initializing`` with ``Retry-After: 1``.

Everything else is forwarded unchanged (TLS to the real apiserver, verified with the cluster CA), so the module
under test talks to the real API; only the throttling moment is made reproducible.
"""

from __future__ import annotations

import http.client
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Optional, Tuple
from urllib.parse import urlsplit

THROTTLED = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "storage is (re)initializing",
    "reason": "TooManyRequests",
    "details": {"retryAfterSeconds": 1},
    "code": 429,
}
FORWARDED_HEADERS = ("authorization", "content-type", "accept", "user-agent")

Rule = Callable[[str, str], bool]  # (method, path with query) -> throttle this one?


class ThrottlingProxy:
    """``with ThrottlingProxy(server, ca_file) as proxy:`` then ``proxy.throttle(rule, times)``; ``proxy.url``."""

    def __init__(self, server: str, ca_file: str) -> None:
        target = urlsplit(server)
        self.target_host, self.target_port = target.hostname or "127.0.0.1", target.port or 443
        self.context = ssl.create_default_context(cafile=ca_file)
        self.rules: List[Tuple[Rule, int]] = []
        self.throttled: List[str] = []
        self.lock = threading.Lock()
        self.httpd: Optional[ThreadingHTTPServer] = None

    def throttle(self, rule: Rule, times: int) -> None:
        """Answer the next ``times`` requests matching ``rule`` with 429 + Retry-After."""
        with self.lock:
            self.rules.append((rule, times))

    def _take(self, method: str, path: str) -> bool:
        with self.lock:
            for index, (rule, left) in enumerate(self.rules):
                if left > 0 and rule(method, path):
                    self.rules[index] = (rule, left - 1)
                    self.throttled.append(f"{method} {path}")
                    return True
        return False

    @property
    def url(self) -> str:
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> ThrottlingProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if proxy._take(self.command, self.path):
                    data = json.dumps(THROTTLED).encode()
                    self.send_response(429)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Retry-After", "1")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                conn = http.client.HTTPSConnection(
                    proxy.target_host, proxy.target_port, context=proxy.context, timeout=60
                )
                headers = {k: v for k, v in self.headers.items() if k.lower() in FORWARDED_HEADERS}
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() in ("content-type", "retry-after", "warning"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, *_args: object) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
