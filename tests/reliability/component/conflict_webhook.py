"""A validating admission webhook on 127.0.0.1 that answers the first N matching writes with 409 Conflict.

The apiserver then returns that 409 to the client exactly as for a real write conflict. The webhook is scoped to one
namespace (namespaceSelector) and to objects carrying the component owner label (objectSelector), and
`failurePolicy: Ignore` keeps the shared cluster working if this server goes away.
"""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

OWNER_LABEL = "component.nubes.cloud/owner-id"
RECORD_LABEL = "component.nubes.cloud/component"


class ConflictInjector:
    """Counts the admission requests it saw and the conflicts it injected."""

    def __init__(self, conflicts: int) -> None:
        self.remaining = conflicts
        self.injected: list[str] = []
        self.seen = 0
        self.lock = threading.Lock()

    def review(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.seen += 1
            deny = self.remaining > 0
            if deny:
                self.remaining -= 1
                self.injected.append(f"{request.get('operation')} {request.get('name')}")
        response: dict[str, Any] = {"uid": request["uid"], "allowed": not deny}
        if deny:
            response["status"] = {"code": 409, "reason": "Conflict", "message": "injected write conflict (test)"}
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}


def _handler(injector: ConflictInjector) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            payload = json.dumps(injector.review(body["request"])).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def conflict_webhook(kubectl: Any, namespace: str, workdir: Path, conflicts: int) -> Iterator[ConflictInjector]:
    """Register the webhook for `namespace` (ConfigMap creates and updates), yield its counters, then remove it."""
    cert, key = workdir / "webhook.crt", workdir / "webhook.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    injector = ConflictInjector(conflicts)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(injector))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    name = f"reliability-conflicts-{namespace}"
    config = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [
            {
                "name": "conflicts.reliability.nubes.test",
                "clientConfig": {
                    "url": f"https://127.0.0.1:{server.server_address[1]}/validate",
                    "caBundle": base64.b64encode(cert.read_bytes()).decode(),
                },
                "rules": [
                    {
                        "operations": ["CREATE", "UPDATE"],
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["configmaps"],
                        "scope": "Namespaced",
                    }
                ],
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                "objectSelector": {
                    "matchExpressions": [
                        {"key": OWNER_LABEL, "operator": "Exists"},
                        {"key": RECORD_LABEL, "operator": "DoesNotExist"},  # the managed objects, not the record
                    ]
                },
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "failurePolicy": "Ignore",
                "timeoutSeconds": 5,
            }
        ],
    }
    try:
        kubectl("apply", "-f", "-", stdin=json.dumps(config))
        yield injector
    finally:
        kubectl("delete", "validatingwebhookconfiguration", name, "--ignore-not-found", check=False)
        server.shutdown()
        server.server_close()
