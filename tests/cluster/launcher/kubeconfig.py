"""Kubeconfig files (written as JSON, which every YAML reader, kubectl and the Python client accept)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from .pki import write_secret_file

CLUSTER_NAME = "nubes-test"


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def write_kubeconfig(path: Path, server: str, ca_file: Path, user: str, credentials: dict[str, str]) -> None:
    """A self-contained kubeconfig with one cluster, one user and one current context."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": CLUSTER_NAME, "cluster": {"server": server, "certificate-authority-data": _b64(ca_file)}}
        ],
        "users": [{"name": user, "user": credentials}],
        "contexts": [{"name": f"{user}@{CLUSTER_NAME}", "context": {"cluster": CLUSTER_NAME, "user": user}}],
        "current-context": f"{user}@{CLUSTER_NAME}",
        "preferences": {},
    }
    write_secret_file(path, json.dumps(config, indent=2) + "\n")


def cert_credentials(cert: Path, key: Path) -> dict[str, str]:
    return {"client-certificate-data": _b64(cert), "client-key-data": _b64(key)}


def token_credentials(token: str) -> dict[str, str]:
    return {"token": token}
