# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A distributed lock on one state key: a ``coordination.k8s.io/v1`` Lease (P42, beyond the seed).

- The Lease is named ``nubes-lock-<sha256 of the key>`` (a valid DNS-1123 name whatever the key holds); the
  readable key is in an annotation.
- Acquire: create the Lease; when it exists, take it over only if it is free (no holder) or expired
  (``renewTime + leaseDurationSeconds`` is past, or nothing changed it for a lease duration as seen by this
  waiter), with the read ``resourceVersion`` as precondition, so exactly one waiter wins.
- While held, a daemon thread renews it every third of the lease duration; a holder that crashes (SIGKILL)
  stops renewing and the Lease expires.
- Waiting is bounded: after ``timeout`` seconds :class:`LockTimeoutError` names the holder.
- Release deletes the Lease (precondition: our last resourceVersion). When the task failed and the release fails
  too, the task's error stays first and the release failure follows it (issue 24).
- Every call is retried inside the task's retry budget by :class:`~.state_objects.StateObjects`; a create or a
  takeover whose answer was lost is recognised on the next read by our holder identity. The renewal thread does not
  retry: its next interval is the retry.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from typing import Any, Callable, Dict, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.clock import format_micro_time, parse_time, utc_now
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Conflict, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_file import LockTimeoutError, holder_identity

LEASE_PREFIX = "nubes-lock-"
ANNOTATION_KEY = "state.nubes.cloud/lock-key"
LABELS = {"app.kubernetes.io/managed-by": "nubes.cloud", "state.nubes.cloud/kind": "lock"}
POLL_SECONDS = 0.5


def lease_name(key: Tuple[str, ...]) -> str:
    """``nubes-lock-`` + 40 hex digits of sha256 of the key (DNS-1123: lowercase alphanumerics and '-')."""
    encoded = json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))
    return LEASE_PREFIX + hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:40]


def renewed_at(text: Optional[str]) -> Optional[Any]:
    """A Lease's renewTime/acquireTime as a datetime; None when missing or unreadable."""
    if not text:
        return None
    try:
        return parse_time(text)
    except ValueError:
        return None


class LeaseLock:
    """Context manager: hold the Lease of `key` for the duration of the ``with`` block."""

    def __init__(
        self,
        objects: Any,
        key: Tuple[str, ...],
        duration: int = 60,
        timeout: float = 1800.0,
        holder: Optional[str] = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.objects = objects
        self.key = key
        self.name = lease_name(key)
        self.duration = max(1, int(duration))
        self.timeout = float(timeout)
        self.holder = holder or holder_identity()
        self.clock = clock
        self.sleep = sleep
        self.resource_version = ""
        self.lost: Optional[str] = None
        self.renewals = 0
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._seen: Tuple[str, float] = ("", 0.0)  # (resourceVersion, when first seen) of someone else's Lease

    # -- acquire ---------------------------------------------------------------------------------

    def __enter__(self) -> LeaseLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], traceback: Any) -> None:
        try:
            self.release()
        except NubesError as failed:
            if exc is None:
                raise
            # issue 24: a failed release never hides the task's own error: that one stays first, this one follows
            if isinstance(exc, NubesError):
                exc.msg = (
                    f"{exc.msg.rstrip('. ')}. Afterwards, releasing the state lock failed too (it expires "
                    f"{self.duration} s after its last renewal, state_lease_duration): {failed.msg}"
                )

    def _body(self, previous: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        now = format_micro_time()
        spec: Dict[str, Any] = {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.duration,
            "acquireTime": now,
            "renewTime": now,
            "leaseTransitions": 0,
        }
        metadata: Dict[str, Any] = {
            "name": self.name,
            "labels": dict(LABELS),
            "annotations": {ANNOTATION_KEY: "/".join(self.key)},
        }
        if previous is not None:
            old_spec = previous.get("spec") or {}
            spec["leaseTransitions"] = int(old_spec.get("leaseTransitions") or 0) + 1
            metadata["resourceVersion"] = previous["metadata"]["resourceVersion"]
        return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": metadata, "spec": spec}

    def expired(self, lease: Dict[str, Any]) -> bool:
        """Free, or not renewed for a lease duration (by its renewTime, or as observed by this waiter)."""
        spec = lease.get("spec") or {}
        if not spec.get("holderIdentity"):
            return True
        duration = float(spec.get("leaseDurationSeconds") or self.duration)
        renewed = renewed_at(spec.get("renewTime") or spec.get("acquireTime"))
        now = utc_now()
        if renewed is not None and (now - renewed).total_seconds() > duration:
            return True
        version = str(lease["metadata"].get("resourceVersion") or "")
        if self._seen[0] != version:
            self._seen = (version, self.clock())
            return False
        return self.clock() - self._seen[1] > duration  # clock skew guard: unchanged for a whole duration

    def acquire(self) -> None:
        deadline = self.clock() + self.timeout
        holder = ""
        while True:
            try:
                lease = self.objects.get_lease(self.name)
            except NotFound:
                try:
                    created = self.objects.create_lease(self._body(None))
                except Conflict:
                    continue  # someone else created it just now: read it
                self._held(created)
                return
            holder = str((lease.get("spec") or {}).get("holderIdentity") or "")
            if holder == self.holder:
                self._held(lease)  # issue 24: our own create or takeover, whose answer was lost, read back
                return
            if self.expired(lease):
                try:
                    taken = self.objects.replace_lease(self.name, self._body(lease))
                except (Conflict, NotFound):
                    continue  # another waiter won (or the holder released): look again
                self._held(taken)
                return
            remaining = deadline - self.clock()
            if remaining <= 0:
                raise LockTimeoutError(
                    f"the state lock on {'/'.join(self.key)} (Lease {self.objects.namespace}/{self.name}) is held by "
                    f"{holder or 'an unknown holder'}; waited {self.timeout:g} s (state_lock_timeout). Another run "
                    "is working on this resource: let it finish and retry. A crashed holder's lock expires after its "
                    "lease duration (state_lease_duration)"
                )
            self.sleep(min(remaining, POLL_SECONDS * (0.5 + random.random())))

    def _held(self, lease: Dict[str, Any]) -> None:
        self.resource_version = str(lease["metadata"]["resourceVersion"])
        self._stop.clear()
        self._thread = threading.Thread(target=self._renew_loop, name="nubes-lease-" + self.name[-8:], daemon=True)
        self._thread.start()

    # -- renew -----------------------------------------------------------------------------------

    def _renew_loop(self) -> None:
        interval = max(0.2, self.duration / 3.0)
        while not self._stop.wait(interval):
            self.renew()

    def renew(self) -> bool:
        """Move renewTime to now (precondition: our resourceVersion). False when the Lease is no longer ours."""
        with self._guard:
            if self.lost:
                return False
            try:
                lease = self.objects.get_lease(self.name, retry=False)  # the next interval is the retry
            except NotFound:
                self.lost = "the Lease was deleted"
                return False
            except NubesError:
                return True  # transient: try again at the next interval (the Lease is still valid for a while)
            spec = lease.get("spec") or {}
            if spec.get("holderIdentity") != self.holder:
                self.lost = f"taken over by {spec.get('holderIdentity') or 'nobody'}"
                return False
            spec["renewTime"] = format_micro_time()
            try:
                renewed = self.objects.replace_lease(self.name, lease, retry=False)
            except (Conflict, NotFound, NubesError):
                return True  # re-checked at the next interval
            self.resource_version = str(renewed["metadata"]["resourceVersion"])
            self.renewals += 1
            return True

    # -- release ---------------------------------------------------------------------------------

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._guard:
            if self.lost:
                raise NubesError(
                    f"the state lock on {'/'.join(self.key)} (Lease {self.objects.namespace}/{self.name}) was lost "
                    f"while this task held it ({self.lost}): the lease was not renewed in time "
                    "(raise state_lease_duration); check the resource with its _info module before re-running"
                )
            for _attempt in range(5):
                try:
                    self.objects.delete_lease(self.name, self.resource_version)
                    return
                except NotFound:
                    return
                except Conflict:
                    try:
                        lease = self.objects.get_lease(self.name)
                    except NotFound:
                        return
                    if (lease.get("spec") or {}).get("holderIdentity") != self.holder:
                        return  # already someone else's (after expiry): nothing of ours to release
                    self.resource_version = str(lease["metadata"]["resourceVersion"])
