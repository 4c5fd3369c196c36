"""Bearer JWT auth (deck-api.md 1.3): valid tokens pass; missing, foreign and expired ones get 401."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import jwt
import pytest

from tests.emulator.auth import mint_token
from tests.emulator.server import EmulatorServer
from tests.emulator.tests.api import PLAIN, Api

REPO = Path(__file__).resolve().parents[3]
CLI_KEY = "cli-signing-key-0123456789abcdef0123"
AUTH_TEXTS = ("token signature is invalid", "401 Unauthorized")


def assert_401(r: httpx.Response) -> None:
    assert r.status_code == 401
    assert any(text in r.text for text in AUTH_TEXTS), r.text


@pytest.mark.parametrize("form", ["gateway", "legacy", "pathinfo"])
def test_valid_token(emu: EmulatorServer, form: str) -> None:
    client = Api(emu, form)
    assert client.get("/services/1").status_code == 200
    client.close()


def test_missing_token(emu: EmulatorServer) -> None:
    assert_401(PLAIN.get(emu.endpoint + "/instances"))
    assert_401(PLAIN.get(emu.endpoint + "/instances", headers={"Authorization": "Basic dXNlcjpwYXNz"}))


def test_foreign_token(emu: EmulatorServer) -> None:
    """A token signed with another key -> 401 `token signature is invalid`."""
    foreign = mint_token("someone-elses-signing-key-0123456789abcdef")
    r = PLAIN.get(emu.endpoint + "/instances", headers={"Authorization": f"Bearer {foreign}"})
    assert_401(r)
    assert "token signature is invalid" in r.text


def test_garbage_and_cookie_like_tokens(emu: EmulatorServer) -> None:
    for token in ("not-a-jwt", "eyJhbGciOiJub25lIn0.e30.", "KEYCLOAK_IDENTITY=abc"):
        assert_401(PLAIN.get(emu.endpoint + "/instances", headers={"Authorization": f"Bearer {token}"}))


def test_expired_token(emu: EmulatorServer) -> None:
    expired = emu.mint_token(ttl=-60)
    assert_401(PLAIN.get(emu.endpoint + "/instances", headers={"Authorization": f"Bearer {expired}"}))


def test_token_expires_when_the_clock_moves(frozen: EmulatorServer) -> None:
    short = frozen.mint_token(ttl=30)
    headers = {"Authorization": f"Bearer {short}"}
    assert PLAIN.get(frozen.endpoint + "/services/1", headers=headers).status_code == 200
    frozen.clock.advance(31)
    assert_401(PLAIN.get(frozen.endpoint + "/services/1", headers=headers))


def test_token_claims(emu: EmulatorServer) -> None:
    claims = jwt.decode(emu.token, options={"verify_signature": False})
    assert claims["iss"].endswith("/realms/cloud") and claims["exp"] > claims["iat"]
    assert jwt.get_unverified_header(emu.token)["alg"] == "HS256"


def test_auth_failures_are_logged(emu: EmulatorServer) -> None:
    PLAIN.get(emu.endpoint + "/instances")
    assert emu.requests()[-1]["status"] == 401


def test_cli_token_command_mints_a_token_the_server_accepts() -> None:
    with EmulatorServer(key=CLI_KEY) as server:
        out = subprocess.run(
            [sys.executable, "-m", "tests.emulator", "token", "--key", CLI_KEY, "--ttl", "60"],
            capture_output=True, text=True, check=True, cwd=REPO,
        )  # fmt: skip
        token = out.stdout.strip()
        r = PLAIN.get(server.endpoint + "/services/1", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200


def test_cli_token_without_key_fails_clearly() -> None:
    env = {"PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-m", "tests.emulator", "token"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=False,
    )
    assert out.returncode != 0 and "--key" in out.stderr
