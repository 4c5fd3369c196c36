"""TLS: `validate_certs` is on by default; a self-signed endpoint fails with a clear message unless its CA is
given (`ca_path`) or validation is switched off (`validate_certs: false`)."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ansible_collections.nubes.cloud.plugins.modules import dummy
from tests.emulator import EmulatorServer
from tests.reliability.cloud.module_call import call_module


@pytest.fixture(scope="module")
def tls_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmulatorServer, Path]]:
    """The emulator over HTTPS with a fresh self-signed certificate for 127.0.0.1 (openssl, in a temp dir)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
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
    with EmulatorServer(seed=3, op_duration=0.1, tls_cert=cert, tls_key=key) as server:
        yield server, cert


def task(server: EmulatorServer, tmp_path: Path, **extra: object) -> dict[str, object]:
    return {
        "api_endpoint": server.endpoint,
        "api_token": server.token,
        "state_path": str(tmp_path / "state.json"),
        "resource_name": "tls-" + uuid.uuid4().hex[:8],
        "resource_realm": "dummy",
        **extra,
    }


def test_self_signed_endpoint_is_refused_by_default(tls_emulator: tuple[EmulatorServer, Path], tmp_path: Path) -> None:
    """validate_certs defaults to true: the self-signed endpoint fails with a message naming the TLS settings;
    nothing reached the API."""
    server, _cert = tls_emulator
    assert server.endpoint.startswith("https://")
    since = server.last_seq
    result = call_module(dummy, task(server, tmp_path))
    assert result.get("failed"), result
    assert "CERTIFICATE_VERIFY_FAILED" in result["msg"] or "certificate" in result["msg"].lower()
    assert "validate_certs" in result["msg"] and "ca_path" in result["msg"]
    assert server.requests(since) == []


def test_ca_path_makes_the_endpoint_trusted(tls_emulator: tuple[EmulatorServer, Path], tmp_path: Path) -> None:
    """ca_path: the self-signed certificate as the CA bundle; validation stays on and the task converges."""
    server, cert = tls_emulator
    result = call_module(dummy, task(server, tmp_path, ca_path=str(cert)))
    assert not result.get("failed"), result.get("msg")
    assert result["status"] == "running"


def test_validate_certs_false_accepts_the_endpoint(tls_emulator: tuple[EmulatorServer, Path], tmp_path: Path) -> None:
    """validate_certs: false talks to the self-signed endpoint."""
    server, _cert = tls_emulator
    result = call_module(dummy, task(server, tmp_path, validate_certs=False))
    assert not result.get("failed"), result.get("msg")
    assert result["status"] == "running"


def test_unreadable_ca_path_is_a_clean_failure(tls_emulator: tuple[EmulatorServer, Path], tmp_path: Path) -> None:
    """A ca_path that holds no certificates ends in fail_json naming ca_path, not a traceback."""
    server, _cert = tls_emulator
    bogus = tmp_path / "not-a-bundle.pem"
    bogus.write_text("not a certificate\n", encoding="utf-8")
    for path in (bogus, tmp_path / "missing.pem"):
        result = call_module(dummy, task(server, tmp_path, ca_path=str(path)))
        assert result.get("failed") and "ca_path" in result["msg"], result
