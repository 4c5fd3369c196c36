# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubernetes state backend: the records in Secrets of one namespace, locks as Leases (P42, beyond the seed).

For AWX (every job runs in a fresh pod, a local state file is lost) and for parallel controllers:

- Records of a workspace live in the Secret ``nubes-state-<workspace id>`` and, once that grows past
  ``max_shard_bytes`` (default 900 KiB, under the ~1 MiB object limit), in further shards
  ``nubes-state-<workspace id>-s<n>``; all carry the labels ``state.nubes.cloud/kind=records`` and
  ``state.nubes.cloud/workspace=<workspace id>``, so one LIST reads a workspace. One data entry per record:
  ``<table>.<sha256 of the key>`` -> JSON ``{"table", "key", "record"}``.
- Every write is a read-modify-replace with ``metadata.resourceVersion`` as precondition: on 409 the Secret is
  read again, the change re-applied and the replace retried, so concurrent writers never lose each other's
  records (optimistic concurrency).
- ``lock(key)`` is a :class:`~.lease_kubernetes.LeaseLock` (lease duration, renewal thread, bounded wait).
- Every record read is validated (state_format.py, issue 24): a damaged entry is an error naming the Secret and
  its data entry, before any API call of the task.
- Every call goes through the collection's Kubernetes access layer (``module_utils/kube``): the connection
  precedence of ``kube.connection``, 429/Retry-After handled as client-go does, and ``kube.records.RecordStore``
  for reads and preconditioned writes, wrapped by :class:`~.state_objects.StateObjects` (issue 24): calls retried
  inside the task's retry budget, a write whose outcome is unknown read back before it is sent again, a 403 that
  names the verb and resource to grant.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import pod_namespace
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import Conflict, NotFound
from ansible_collections.nubes.cloud.plugins.module_utils.kube.records import b64_text, text_b64
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import STATE_LOCK_ARG_SPEC
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.lease_kubernetes import LeaseLock
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryBudget
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_format import check_entry
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_objects import StateObjects
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import Key, StateBackend

SECRET_PREFIX = "nubes-state-"
KIND_LABEL = "state.nubes.cloud/kind"
WORKSPACE_LABEL = "state.nubes.cloud/workspace"
SHARD_LABEL = "state.nubes.cloud/shard"
WORKSPACE_ANNOTATION = "state.nubes.cloud/workspace-name"
MANAGED_BY = {"app.kubernetes.io/managed-by": "nubes.cloud"}
MAX_SHARD_BYTES = 900 * 1024
MAX_ATTEMPTS = 50
# the option contract's defaults (issue 26), for a backend built without the module's validated params
DEFAULT_LEASE_DURATION = int(STATE_LOCK_ARG_SPEC["state_lease_duration"]["default"])
DEFAULT_LOCK_TIMEOUT = float(STATE_LOCK_ARG_SPEC["state_lock_timeout"]["default"])


def workspace_id(workspace: str) -> str:
    """A label value and name part for any workspace name: a readable slug plus 10 hex digits of its sha256."""
    slug = re.sub(r"[^a-z0-9]+", "-", workspace.lower()).strip("-")[:30].strip("-") or "ws"
    return f"{slug}-{hashlib.sha256(workspace.encode('utf-8')).hexdigest()[:10]}"


def entry_name(table: str, key: Key) -> str:
    """The Secret data key of one record (``[-._a-zA-Z0-9]+``)."""
    encoded = json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))
    return f"{table}.{hashlib.sha256(encoded.encode('utf-8')).hexdigest()[:40]}"


def encode_entry(table: str, key: Key, record: Mapping[str, Any]) -> str:
    return b64_text(json.dumps({"table": table, "key": list(key), "record": dict(record)}, sort_keys=True))


def read_entry(shard: Mapping[str, Any], name: str, namespace: str) -> Tuple[str, Key, Dict[str, Any]]:
    """The data entry `name` of a state Secret as (table, key, record), validated (issue 24: state_format.py); a
    damaged one is an error naming the Secret, the entry and the fix."""
    secret = str((shard.get("metadata") or {}).get("name") or "?")
    where = f"the state Secret {secret} in namespace {namespace} (data entry {name})"
    fix = (
        f"Restore the Secret from a backup, or correct or remove that data entry (kubectl edit secret {secret} "
        f"-n {namespace}); a record removed is found again by name, and its instance adopted with "
        "adopt_existing_on_create=true"
    )
    try:
        entry: Any = json.loads(text_b64((shard.get("data") or {})[name]))
    except (ValueError, TypeError):
        entry = "undecodable text (not base64-encoded JSON)"
    return check_entry(entry, where, fix)


def shard_size(secret: Mapping[str, Any]) -> int:
    return sum(len(k) + len(v) for k, v in (secret.get("data") or {}).items())


def shard_index(secret: Mapping[str, Any]) -> int:
    labels = (secret.get("metadata") or {}).get("labels") or {}
    try:
        return int(labels.get(SHARD_LABEL, "0"))
    except ValueError:
        return 0


class KubernetesBackend(StateBackend):
    """State records in Secrets, locks in Leases, in one namespace."""

    def __init__(
        self,
        objects: Any,
        lease_duration: int = DEFAULT_LEASE_DURATION,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        max_shard_bytes: int = MAX_SHARD_BYTES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.objects = objects
        self.namespace = str(objects.namespace)
        self.lease_duration = int(lease_duration)
        self.lock_timeout = float(lock_timeout)
        self.max_shard_bytes = int(max_shard_bytes)
        self.sleep = sleep
        self.conflicts = 0  # 409 answers to our writes that were re-read and retried

    @classmethod
    def from_params(cls, params: Mapping[str, Any], budget: Optional[RetryBudget] = None) -> KubernetesBackend:
        """From the module options state_namespace, state_kubeconfig, state_context, state_lease_duration and
        state_lock_timeout (each with its NUBES_STATE_* environment fallback, applied by AnsibleModule); `budget`: the
        task's retry budget (the API client's), which the backend's retries come out of too (issue 24)."""
        namespace = params.get("state_namespace") or pod_namespace() or "default"
        kubeconfig, context = params.get("state_kubeconfig"), params.get("state_context")
        return cls(
            StateObjects.connect(kubeconfig, context, str(namespace), budget),
            lease_duration=int(params.get("state_lease_duration") or DEFAULT_LEASE_DURATION),
            lock_timeout=float(params.get("state_lock_timeout") or DEFAULT_LOCK_TIMEOUT),
        )

    # -- lock --------------------------------------------------------------------------------------

    def lock(self, key: Key) -> Any:
        return LeaseLock(self.objects, key, duration=self.lease_duration, timeout=self.lock_timeout)

    # -- shards ------------------------------------------------------------------------------------

    def _shards(self, workspace: str) -> List[Dict[str, Any]]:
        selector = f"{KIND_LABEL}=records,{WORKSPACE_LABEL}={workspace_id(workspace)}"
        return sorted(self.objects.list_secrets(selector), key=shard_index)

    @staticmethod
    def _shard_body(workspace: str, index: int) -> Dict[str, Any]:
        wid = workspace_id(workspace)
        name = SECRET_PREFIX + wid + (f"-s{index}" if index else "")
        labels = dict(MANAGED_BY)
        labels.update({KIND_LABEL: "records", WORKSPACE_LABEL: wid, SHARD_LABEL: str(index)})
        return {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "Opaque",
            "metadata": {"name": name, "labels": labels, "annotations": {WORKSPACE_ANNOTATION: workspace}},
            "data": {},
        }

    def _backoff(self, attempt: int) -> None:
        self.sleep(min(1.0, 0.02 * attempt) * (0.5 + random.random()))

    def _write(self, workspace: str, change: Callable[[List[Dict[str, Any]]], Optional[Dict[str, Any]]]) -> None:
        """Optimistic read-modify-replace: `change(shards)` edits one shard in place and returns it (or None when
        nothing is to be written); replaced with its resourceVersion as precondition, retried on 409."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            shard = change(self._shards(workspace))
            if shard is None:
                return
            try:
                if shard["metadata"].get("resourceVersion"):
                    self.objects.replace_secret(shard["metadata"]["name"], shard)
                else:
                    self.objects.create_secret(shard)
                return
            except (Conflict, NotFound):
                self.conflicts += 1  # someone else wrote the shard since we read it: re-read and re-apply
                self._backoff(attempt)
        raise NubesError(
            f"Kubernetes state backend: the state Secret of workspace {workspace!r} in namespace {self.namespace} "
            f"kept changing; gave up after {MAX_ATTEMPTS} conflicting writes. Re-run the task"
        )

    # -- StateBackend ------------------------------------------------------------------------------

    def get(self, table: str, key: Key) -> Optional[Dict[str, Any]]:
        name = entry_name(table, key)
        for shard in self._shards(key[0]):
            if (shard.get("data") or {}).get(name):
                return dict(read_entry(shard, name, self.namespace)[2])
        return None

    def put(self, table: str, key: Key, record: Dict[str, Any]) -> None:
        name = entry_name(table, key)
        value = encode_entry(table, key, record)
        workspace = key[0]

        def change(shards: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
            holding = [s for s in shards if name in (s.get("data") or {})]
            target = holding[0] if holding else None
            if target is None:
                room = [s for s in shards if shard_size(s) + len(name) + len(value) <= self.max_shard_bytes]
                target = room[0] if room else None
            if target is None:
                target = self._shard_body(workspace, max((shard_index(s) for s in shards), default=-1) + 1)
            if (target.get("data") or {}).get(name) == value:
                return None
            target.setdefault("data", {})
            if target["data"] is None:
                target["data"] = {}
            target["data"][name] = value
            return target

        self._write(workspace, change)

    def delete(self, table: str, key: Key) -> bool:
        """Remove the record; True when it was there (also when an earlier attempt's removal, whose answer was lost,
        is found done on the next read)."""
        name = entry_name(table, key)
        removed = False

        def change(shards: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
            nonlocal removed
            for shard in shards:
                data = shard.get("data") or {}
                if name in data:
                    del data[name]
                    shard["data"] = data
                    removed = True
                    return shard
            return None

        self._write(key[0], change)
        return removed

    def items(self, table: str) -> List[Tuple[Key, Dict[str, Any]]]:
        """Every record of `table` in the namespace (all workspaces: StateStore filters by workspace)."""
        result: Dict[str, Tuple[Key, Dict[str, Any]]] = {}
        shards = sorted(self.objects.list_secrets(f"{KIND_LABEL}=records"), key=shard_index)
        for shard in shards:
            for name in shard.get("data") or {}:
                if not name.startswith(table + ".") or name in result:
                    continue
                _table, key, record = read_entry(shard, name, self.namespace)
                result[name] = (key, dict(record))
        return list(result.values())

    def close(self) -> None:
        self.objects.close()
