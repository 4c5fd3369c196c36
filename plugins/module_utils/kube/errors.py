# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Errors of the Kubernetes access layer: one root, typed API answers (409, 404, 403), unreachable server."""

from __future__ import annotations

from typing import Any, Dict, Optional

# 500s whose text says the object itself is wrong: server-side apply cannot build the typed object, so retrying
# cannot help (kubectl fails at once on them).
PERMANENT_SERVER_ERRORS = (
    "field not declared in schema",
    "failed to create typed patch object",
    "failed to create typed live object",
    "failed to convert new object",
    "unable to convert unstructured object",
)


class KubeError(Exception):
    """Root of every error raised while talking to Kubernetes. ``retriable``: a later attempt may succeed."""

    retriable = False


class KubeConfigError(KubeError):
    """The connection options are inconsistent, or the kubeconfig / credentials cannot be loaded."""


class ConnectionFailed(KubeError):
    """The API server could not be reached."""

    retriable = True


class ApiError(KubeError):
    """The API server answered with an error status; ``message`` is the server's own text."""

    def __init__(self, method: str, path: str, status: int, body: Optional[Dict[str, Any]] = None) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.body = body or {}
        self.reason = str(self.body.get("reason", ""))
        self.message = str(self.body.get("message", "")) or "no message"
        super().__init__(f"Kubernetes API {method} {path} failed with HTTP {status} ({self.reason}): {self.message}")

    @property
    def retriable(self) -> bool:  # type: ignore[override]
        """Conflicts, throttling and server-side hiccups go away when retried; schema errors never do."""
        if self.status == 500 and self.is_schema_error:
            return False
        return self.status in (409, 429, 500, 502, 503, 504)

    @property
    def is_schema_error(self) -> bool:
        """The object does not fit the type's schema (SSA's HTTP 500 'field not declared in schema', 400, 422)."""
        if self.status in (400, 422):
            return True
        return self.status == 500 and any(text in self.message for text in PERMANENT_SERVER_ERRORS)


class Conflict(ApiError):
    """HTTP 409: the object exists already, or changed since it was read (stale resourceVersion)."""


class NotFound(ApiError):
    """HTTP 404: the object (or its namespace, or its type) does not exist."""


class Forbidden(ApiError):
    """HTTP 403: RBAC denies the call; the server's message names the user, verb and resource."""


def api_error(method: str, path: str, status: int, body: Optional[Dict[str, Any]] = None) -> ApiError:
    """The typed error for an error answer."""
    cls = {409: Conflict, 404: NotFound, 403: Forbidden}.get(status, ApiError)
    return cls(method, path, status, body)
