"""API responses that are errors, in the backend's CFML style `{"ERROR": ..., "TAGCONTEXT": ...}`."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """Raised by handlers; the HTTP layer turns it into a response."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body
        self.headers = headers or {}


def cfml_error(status: int, message: str, tag_context: str, headers: dict[str, str] | None = None) -> ApiError:
    return ApiError(status, {"ERROR": message, "TAGCONTEXT": tag_context}, headers)
