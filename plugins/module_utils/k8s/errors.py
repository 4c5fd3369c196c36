# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exceptions raised by the component engine; every message says what failed and what to do."""

from __future__ import annotations

from typing import Any, Dict, Optional


class EngineError(Exception):
    """Base class of engine failures that the run loop reports as component state Error."""

    retriable = False


class ValidationError(EngineError):
    """The desired objects (or their annotations) are invalid; fix the manifests and re-run."""


class OwnerConflictError(EngineError):
    """An object exists and the adoption policy forbids taking it over."""


class MissingNamespaceError(EngineError):
    """An object's namespace does not exist and the missing-namespaces policy forbids creating it."""


class DeletionBlockedError(EngineError):
    """Instances of managed types (not owned by this component) exist."""


class ApiError(EngineError):
    """The Kubernetes API answered with an error status."""

    def __init__(self, method: str, path: str, status: int, body: Optional[Dict[str, Any]] = None) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.body = body or {}
        self.reason = str(self.body.get("reason", ""))
        message = str(self.body.get("message", "")) or "no message"
        super().__init__(f"Kubernetes API {method} {path} failed with HTTP {status} ({self.reason}): {message}")

    @property
    def retriable(self) -> bool:  # type: ignore[override]
        """Conflicts, throttling and server-side hiccups go away when retried."""
        return self.status in (409, 429, 500, 502, 503, 504)


class ConnectionFailedError(EngineError):
    """The API server could not be reached."""

    retriable = True
