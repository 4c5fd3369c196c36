# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exceptions raised by the reconciler; every message says which object, and what to do.

They are Kubernetes errors (``kube.errors.KubeError``) like the API errors the reconciler lets through, so a
caller catches one root. ``retriable``: a later step may succeed (conflicts, throttling, an unreachable server).
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import ApiError, KubeError


class EngineError(KubeError):
    """Base class of reconciler failures. ``objects``: the objects the failure is about, when it is about some
    (``InventoryItem.describe`` form), so a caller can say which object blocks (issue 25)."""

    def __init__(self, message: str, objects: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.objects: Tuple[str, ...] = tuple(objects)


class ValidationError(EngineError):
    """The desired objects (or their annotations) are invalid; fix the manifests and re-run."""


class OwnerConflictError(EngineError):
    """An object exists and the adoption policy forbids taking it over."""


class MissingNamespaceError(EngineError):
    """An object's namespace does not exist and the missing-namespaces policy forbids creating it."""


class FieldConflictError(EngineError):
    """A server-side apply conflict with a field manager the component does not reclaim (issue 25)."""


class DeletionBlockedError(EngineError):
    """Instances of managed types (not owned by this component) exist."""


def _advice(error: ApiError) -> str:
    if error.is_schema_error:
        return "the object does not fit its type's schema; fix the manifest and re-run"
    if error.status == 403:
        return "grant the identity this verb on this resource (RBAC), or apply as another user"
    if error.status == 404:
        return "its type or namespace does not exist (yet); check the apiVersion and kind"
    if error.retriable:
        return "retried until the timeout"
    return "fix the manifest or the cluster, then re-run"


class ObjectError(EngineError):
    """An API call on one object failed: names the object, the wave, the action, the server's text and the advice.

    Retriable when the API error is (conflicts, throttling, server hiccups); schema and validation errors are
    permanent, so the run fails at once with the server's text (as kubectl does).
    """

    def __init__(self, what: str, wave: Optional[str], action: str, error: ApiError) -> None:
        self.what = what
        self.wave = wave
        self.action = action
        self.error = error
        where = f" ({wave})" if wave else ""
        super().__init__(
            f"{what}{where}: {action} failed: HTTP {error.status} {error.reason or ''}".rstrip()
            + f": {error.message}; {_advice(error)}",
            objects=[what],
        )

    @property
    def retriable(self) -> bool:  # type: ignore[override]
        """As the API error."""
        return self.error.retriable
