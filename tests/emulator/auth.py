"""Bearer JWTs (HS256) signed with the key the emulator is started with (deck-api.md 1.3)."""

# ruff: noqa: RUF002 - Russian texts are part of the API

from __future__ import annotations

import time
import uuid
from typing import Any

import jwt

from tests.emulator import assumptions as A

DEFAULT_USER: dict[str, str] = {"preferred_username": "emulator-user", "name": "Тест Эмуляторов"}


def mint_token(
    key: str,
    *,
    ttl: float = A.DEFAULT_TOKEN_TTL,
    sub: str | None = None,
    now: float | None = None,
    username: str | None = None,
    name: str | None = None,
) -> str:
    """A Keycloak-like access token; `ttl` may be negative to mint an already expired one."""
    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {
        "iss": A.JWT_ISSUER,
        "sub": sub or str(uuid.uuid5(uuid.NAMESPACE_DNS, username or DEFAULT_USER["preferred_username"])),
        "iat": issued,
        "exp": issued + int(ttl),
        "typ": "Bearer",
        "azp": "lk",
        "preferred_username": username or DEFAULT_USER["preferred_username"],
        "name": name or DEFAULT_USER["name"],
    }
    return jwt.encode(claims, key, algorithm=A.JWT_ALGORITHM)


class AuthFailure(Exception):
    def __init__(self, body: dict[str, str]) -> None:
        super().__init__(body.get("message", "unauthorized"))
        self.body = body


class Verifier:
    """Checks `Authorization: Bearer <jwt>` headers; caches good tokens until they expire."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._cache: dict[str, dict[str, Any]] = {}

    def verify(self, header: str | None, now: float) -> dict[str, Any]:
        if not header or not header.lower().startswith("bearer "):
            raise AuthFailure(A.MISSING_TOKEN_BODY)
        token = header[7:].strip()
        claims = self._cache.get(token)
        if claims is None:
            try:
                claims = jwt.decode(
                    token,
                    self.key,
                    algorithms=[A.JWT_ALGORITHM],
                    options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False},
                )
            except jwt.PyJWTError as exc:
                raise AuthFailure(A.UNAUTHORIZED_BODY) from exc
            if len(self._cache) > 1000:
                self._cache.clear()
            self._cache[token] = claims
        # expiry against the emulator clock, so tests that advance the clock see tokens expire
        if "exp" in claims and float(claims["exp"]) <= now:
            raise AuthFailure(A.EXPIRED_BODY)
        return claims


def short_name(full_name: str) -> str:
    """'Никита Фёдоров' -> 'Н. Ф.' (deck-api.md 5.2 updaterShortname)."""
    return " ".join(f"{part[0]}." for part in full_name.split() if part)
