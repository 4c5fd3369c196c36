# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The state store: the recorded identity and what was last applied (Terraform state / KCC externalRef).

One record per instance, keyed (workspace, service, resource_name), and per sub-resource, keyed
(workspace, service, parent uid, sub, key). A record (records.py: a typed :class:`~.records.Record`) holds the uid,
its status (`create_requested` -> `creating` -> `present`), the last operation, salted digests of the secrets it
applied and the git_revision. Backends implement :class:`StateBackend` and keep JSON dicts (file_backend.py,
kubernetes_backend.py); the store converts at its edge. P42 (beyond): a per-resource lock is held across lookup +
create so no duplicates are created.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace
from typing import Any, ContextManager, Dict, Iterator, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import StateWriteError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record

INSTANCES = "instances"
SUBRESOURCES = "subresources"

Key = Tuple[str, ...]


class StateBackend:
    """Interface of a state backend. Records are JSON-compatible dicts (the format: state_format.py)."""

    def lock(self, key: Key) -> ContextManager[None]:
        """Exclusive lock on one resource key, across processes; held for the whole task."""
        raise NotImplementedError

    def get(self, table: str, key: Key) -> Optional[Dict[str, Any]]:
        raise NotImplementedError

    def put(self, table: str, key: Key, record: Dict[str, Any]) -> None:
        """Store atomically: a reader sees the old or the new record, never a mix."""
        raise NotImplementedError

    def delete(self, table: str, key: Key) -> bool:
        raise NotImplementedError

    def items(self, table: str) -> List[Tuple[Key, Dict[str, Any]]]:
        raise NotImplementedError


def default_state_path() -> str:
    """`$XDG_STATE_HOME/nubes-cloud/state.json` or `~/.local/state/nubes-cloud/state.json`."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "nubes-cloud", "state.json")


def instance_key(workspace: str, service: str, resource_name: str) -> Key:
    return (workspace, service, resource_name)


def name_lock_key(service: str, resource_name: str) -> Key:
    """P42, issue 24: the lock an instance task holds across lookup + create. It names the service and the display
    name but no workspace: display names are per service in the cloud, so two workspaces sharing a store must not
    both create `resource_name` while the other's create is in flight (the second then finds the first's instance
    and adopts it or refuses). It names no endpoint either (records do not carry one, and the state migration takes
    this same lock), so one name on two endpoints is serialised too: more waiting, never a duplicate."""
    return ("instance", service, resource_name)


def parent_lock_key(workspace: str, parent_uid: str) -> Key:
    """P42: the lock a sub-resource task holds: its parent's, which serialises the operations on one parent."""
    return ("parent", workspace, parent_uid.lower())


def subresource_key(workspace: str, service: str, parent_uid: str, sub: str, key: str) -> Key:
    return (workspace, service, parent_uid.lower(), sub, key)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@contextlib.contextmanager
def _writing(what: str) -> Iterator[None]:
    """An OSError of a backend write (ENOSPC, EROFS, ENOTDIR...) as a StateWriteError naming the file and cause."""
    try:
        yield
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        cause = f"the state could not be written{where} while {what}: {exc.strerror or exc}"
        raise StateWriteError(cause, cause=cause) from None


class StateStore:
    """Typed access to the records of one workspace, by identity only (issue 23).

    A task reaches its record through its identity, the :class:`~.identity.ResourceRef` it built once (KCC's typed
    `a.id`): `lock(ref)`, `get(ref)`, `put(ref, record)`, `delete(ref)`. The ref says the table and the key (an
    instance: service and resource_name; a sub-resource: service, parent uid, sub and key) and the identity fields
    every stored record carries. Records go in and out as :class:`~.records.Record`; the backend keeps JSON. The
    queries (`subresources_of`, `find_by_uid`) return refs with their records. Code without a task (tests, tools)
    builds a ResourceRef too.
    """

    def __init__(self, backend: StateBackend, workspace: str) -> None:
        self.backend = backend
        self.workspace = workspace

    def _where(self, ref: ResourceRef) -> Tuple[str, Key]:
        if ref.sub:
            return SUBRESOURCES, subresource_key(self.workspace, ref.service, ref.parent_uid, ref.sub, ref.key)
        return INSTANCES, instance_key(self.workspace, ref.service, ref.resource_name)

    def _identity_fields(self, ref: ResourceRef) -> Dict[str, Any]:
        """What a stored record says about whose it is (K4a compares them with the task's)."""
        if ref.sub:
            return {
                "workspace": self.workspace,
                "service": ref.service,
                "parent_instance_uid": ref.parent_uid,
                "sub": ref.sub,
                "key": ref.key,
            }
        return {
            "service_id": ref.service_id,
            "workspace": self.workspace,
            "service": ref.service,
            "resource_name": ref.resource_name,
        }

    def _what(self, ref: ResourceRef) -> str:
        if ref.sub:
            return f"{ref.sub} {ref.key!r} of {ref.parent_uid}"
        return f"{ref.service} {ref.resource_name!r}"

    def lock(self, ref: ResourceRef) -> ContextManager[None]:
        """P42: held for the whole task. An instance task holds its name's lock across lookup + create; a
        sub-resource task the parent's, which serialises the operations on one parent."""
        if ref.sub:
            return self.backend.lock(parent_lock_key(self.workspace, ref.parent_uid))
        return self.backend.lock(name_lock_key(ref.service, ref.resource_name))

    def get(self, ref: ResourceRef) -> Optional[Record]:
        """The record of the resource `ref` names (None: nothing recorded); one of an earlier version in the
        current shape (records.current_shape)."""
        stored = self.backend.get(*self._where(ref))
        return None if stored is None else Record.from_json(stored)

    def put(self, ref: ResourceRef, record: Record) -> None:
        """Store `record` with the identity fields of `ref` and the time of the write."""
        table, key = self._where(ref)
        stored = replace(record, updated_at=now(), **self._identity_fields(ref))
        with _writing(f"recording {self._what(ref)}"):
            self.backend.put(table, key, stored.to_json())

    def delete(self, ref: ResourceRef) -> bool:
        table, key = self._where(ref)
        with _writing(f"removing the record of {self._what(ref)}"):
            return self.backend.delete(table, key)

    def subresources_of(self, parent: ResourceRef, parent_uid: str) -> List[Tuple[ResourceRef, Record]]:
        """The sub-resources recorded under the instance `parent_uid` of `parent`'s service (any case), each with
        its ref (issue 27: they go with a deleted instance)."""
        found: List[Tuple[ResourceRef, Record]] = []
        for key, stored in self.backend.items(SUBRESOURCES):
            if key[:3] == (self.workspace, parent.service, parent_uid.lower()):
                found.append((parent.subresource(parent_uid, key[3], key[4]), Record.from_json(stored)))
        return found

    def find_by_uid(self, ref: ResourceRef, uid: str) -> Optional[Tuple[ResourceRef, Record]]:
        """The instance of `ref`'s service recorded with `uid` (any case), with its ref (`ref` named by the
        recorded resource_name); None when no record holds that uid."""
        for key, stored in self.backend.items(INSTANCES):
            if key[:2] == (self.workspace, ref.service) and str(stored.get("instance_uid", "")).lower() == uid.lower():
                return ref.named(key[2]), Record.from_json(stored)
        return None
