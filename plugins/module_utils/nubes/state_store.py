# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The state store: the recorded identity and what was last applied (Terraform state / KCC externalRef).

One record per instance, keyed (workspace, service, resource_name), and per sub-resource, keyed
(workspace, service, parent uid, sub, key). A record holds the uid, its status (`create_requested` ->
`creating` -> `present`), the last operation uid, the applied params WITHOUT secrets, salted digests
of every applied value (secrets included) and the git_revision. Backends implement
:class:`StateBackend`; the local file one is in file_backend.py (a Kubernetes one can be added later).
P42 (beyond): a per-resource lock is held across lookup + create so no duplicates are created.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from typing import Any, ContextManager, Dict, Iterator, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import StateWriteError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef

INSTANCES = "instances"
SUBRESOURCES = "subresources"

STATUS_CREATE_REQUESTED = "create_requested"  # POST /instances about to be sent; uid unknown
STATUS_CREATING = "creating"  # uid known, create not finished
STATUS_PRESENT = "present"  # applied

Key = Tuple[str, ...]
Record = Dict[str, Any]  # a record as stored: JSON-compatible (its shape: records.py)


class StateBackend:
    """Interface of a state backend. Records are JSON-compatible dicts."""

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


def subresource_key(workspace: str, service: str, parent_uid: str, sub: str, key: str) -> Key:
    return (workspace, service, parent_uid.lower(), sub, key)


def new_salt() -> str:
    return secrets.token_hex(8)


def stamp(record: Dict[str, Any]) -> Dict[str, Any]:
    record["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return record


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
    """Typed access to the records of one workspace.

    A task reaches its record through its identity, the :class:`~.identity.ResourceRef` it built once (KCC's typed
    `a.id`): `lock(ref)`, `get(ref)`, `put(ref, record)`, `delete(ref)`. The ref says the table and the key (an
    instance: service and resource_name; a sub-resource: service, parent uid, sub and key) and the identity fields
    every stored record carries. The name-keyed methods below (`get_instance`, `put_instance`, ...) serve code that
    has no task identity (tests and tools reading or seeding a state file); no task uses them.
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
            return self.parent_lock(ref.parent_uid)
        return self.instance_lock(ref.service, ref.resource_name)

    def get(self, ref: ResourceRef) -> Optional[Record]:
        """The record of the resource `ref` names, as stored (None: nothing recorded)."""
        return self.backend.get(*self._where(ref))

    def put(self, ref: ResourceRef, record: Record) -> None:
        """Store `record` (not changed: a copy is stamped) with the identity fields of `ref`."""
        table, key = self._where(ref)
        stored = dict(record, **self._identity_fields(ref))
        with _writing(f"recording {self._what(ref)}"):
            self.backend.put(table, key, stamp(stored))

    def delete(self, ref: ResourceRef) -> bool:
        table, key = self._where(ref)
        with _writing(f"removing the record of {self._what(ref)}"):
            return self.backend.delete(table, key)

    def instance_lock(self, service: str, resource_name: str) -> ContextManager[None]:
        return self.backend.lock(name_lock_key(service, resource_name))

    def parent_lock(self, parent_uid: str) -> ContextManager[None]:
        """Serialises sub-resource operations on one parent instance."""
        return self.backend.lock(("parent", self.workspace, parent_uid.lower()))

    def get_instance(self, service: str, resource_name: str) -> Optional[Dict[str, Any]]:
        return self.backend.get(INSTANCES, instance_key(self.workspace, service, resource_name))

    def find_instance_by_uid(self, service: str, uid: str) -> Optional[Dict[str, Any]]:
        for key, record in self.backend.items(INSTANCES):
            if (
                key[0] == self.workspace
                and key[1] == service
                and str(record.get("instance_uid", "")).lower() == uid.lower()
            ):
                return record
        return None

    def put_instance(self, service: str, resource_name: str, record: Dict[str, Any]) -> None:
        record.update({"workspace": self.workspace, "service": service, "resource_name": resource_name})
        with _writing(f"recording {service} {resource_name!r}"):
            self.backend.put(INSTANCES, instance_key(self.workspace, service, resource_name), stamp(record))

    def delete_instance(self, service: str, resource_name: str) -> bool:
        with _writing(f"removing the record of {service} {resource_name!r}"):
            return self.backend.delete(INSTANCES, instance_key(self.workspace, service, resource_name))

    def get_sub(self, service: str, parent_uid: str, sub: str, key: str) -> Optional[Dict[str, Any]]:
        return self.backend.get(SUBRESOURCES, subresource_key(self.workspace, service, parent_uid, sub, key))

    def put_sub(self, service: str, parent_uid: str, sub: str, key: str, record: Dict[str, Any]) -> None:
        record.update(
            {"workspace": self.workspace, "service": service, "parent_instance_uid": parent_uid, "sub": sub, "key": key}
        )
        with _writing(f"recording {sub} {key!r} of {parent_uid}"):
            self.backend.put(
                SUBRESOURCES, subresource_key(self.workspace, service, parent_uid, sub, key), stamp(record)
            )

    def delete_sub(self, service: str, parent_uid: str, sub: str, key: str) -> bool:
        with _writing(f"removing the record of {sub} {key!r} of {parent_uid}"):
            return self.backend.delete(SUBRESOURCES, subresource_key(self.workspace, service, parent_uid, sub, key))

    def subs_of(self, service: str, parent_uid: str) -> List[Dict[str, Any]]:
        return [
            record
            for key, record in self.backend.items(SUBRESOURCES)
            if key[0] == self.workspace and key[1] == service and key[2] == parent_uid.lower()
        ]
