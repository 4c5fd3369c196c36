# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a state record holds: only what cannot be read back from the API.

An instance record: `status` (`create_requested` -> `creating` -> `present`), `instance_uid`, `service_id`,
the salted `digests` of the secrets last applied (the API never returns secrets; format: secret_digest.py), the
`git_revision` last deployed, and `operation`: the last operation the task started (`uid`, `name`, `done`, plus
the secret digests and git_revision it applies, merged into the record once it succeeded). Sub-resource records
hold the same minus the uid. Params are never recorded: the live instance is the truth (values.py).

:class:`Record` (and its :class:`Operation`) is that shape, typed and immutable (issue 23: the store takes a typed
record, not loose strings). The state store converts at its edge: `Record.from_json` on read, `to_json` on write;
the backends keep JSON dicts, in the format they always had. The functions below take a Record and return a new
one (dataclasses.replace). Records written by earlier versions (with `params`, `pending`, `operation_uid`) are read
as this shape.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from secrets import token_hex
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import secret_digest

STATUS_CREATE_REQUESTED = "create_requested"  # POST /instances about to be sent; uid unknown
STATUS_CREATING = "creating"  # uid known, create not finished
STATUS_PRESENT = "present"  # applied

LEGACY_FIELDS = ("params", "pending", "operation_uid")  # the shape of earlier versions, read as `operation`

Kinds = Mapping[str, Tuple[type, ...]]

# The stored type of every known field (state_format.py validates most of them on read).
OPERATION_KINDS: Kinds = {
    "uid": (str,),
    "name": (str,),
    "done": (bool,),
    "digests": (dict,),
    "git_revision": (str,),
    "remove_record": (bool,),
}
RECORD_KINDS: Kinds = {
    "status": (str,),
    "instance_uid": (str,),
    "salt": (str,),
    "digests": (dict,),
    "git_revision": (str,),
    "operation": (dict,),
    "requested_at": (int, float),
    "window_passed": (bool,),
    "updated_at": (str,),
    "service_id": (int,),
    "workspace": (str,),
    "service": (str,),
    "resource_name": (str,),
    "parent_instance_uid": (str,),
    "sub": (str,),
    "key": (str,),
}


def new_salt() -> str:
    return token_hex(8)


@dataclass(frozen=True)
class Operation:
    """The last operation the record's task started (P27): its uid and name, whether it finished, and what it
    applies once it succeeded: the digests of its secrets, the git_revision, and `remove_record` (its success ends
    the record: a delete or a destroy). None: the field is not stored. `extra`: what this version does not know."""

    uid: Optional[str] = None
    name: Optional[str] = None
    done: Optional[bool] = None
    digests: Optional[Mapping[str, str]] = None
    git_revision: Optional[str] = None
    remove_record: Optional[bool] = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Operation:
        known, extra = _split(data, OPERATION_KINDS)
        return cls(**known, extra=extra)

    def to_json(self) -> Dict[str, Any]:
        return _joined({name: getattr(self, name) for name in OPERATION_KINDS}, self.extra)


@dataclass(frozen=True)
class Record:
    """One stored record (the shape above), plus the identity fields the store stamps on every write
    (StateStore.put: an instance's service_id, workspace, service and resource_name; a sub-resource's workspace,
    service, parent_instance_uid, sub and key), `updated_at`, and while a create's outcome is unknown the moment
    it was requested and whether its outcome window has passed (issue 24). None: the field is not stored.

    `extra` keeps every key this version does not know (written by a newer or older version, or by a tool), and a
    known one stored with another type or as null, exactly as stored: a record read and written again loses nothing
    (`Record.from_json(d).to_json() == d` for every record in the current shape)."""

    status: Optional[str] = None
    instance_uid: Optional[str] = None
    salt: Optional[str] = None
    digests: Optional[Mapping[str, str]] = None
    git_revision: Optional[str] = None
    operation: Optional[Operation] = None
    requested_at: Optional[float] = None
    window_passed: Optional[bool] = None
    updated_at: Optional[str] = None
    service_id: Optional[int] = None
    workspace: Optional[str] = None
    service: Optional[str] = None
    resource_name: Optional[str] = None
    parent_instance_uid: Optional[str] = None
    sub: Optional[str] = None
    key: Optional[str] = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Record:
        """The record of a stored dict; one of an earlier version in the current shape (see `current_shape`)."""
        known, extra = _split(current_shape(data), RECORD_KINDS)
        if "operation" in known:
            known["operation"] = Operation.from_json(known["operation"])
        return cls(**known, extra=extra)

    def to_json(self) -> Dict[str, Any]:
        """The dict to store (a new one: changing it changes nothing here)."""
        fields = {name: getattr(self, name) for name in RECORD_KINDS}
        fields["operation"] = self.operation.to_json() if self.operation is not None else None
        return _joined(fields, self.extra)


def current_shape(record: Mapping[str, Any]) -> Dict[str, Any]:
    """A stored record in the current shape (a copy): the `pending` operation or the bare `operation_uid` of an
    earlier version becomes `operation`; those fields and the recorded `params` are dropped."""
    result = {k: v for k, v in record.items() if k not in LEGACY_FIELDS}
    pending = record.get("pending")
    if isinstance(record.get("operation"), dict):
        return result
    if isinstance(pending, dict) and pending.get("operation_uid"):
        result["operation"] = {
            "uid": str(pending["operation_uid"]),
            "name": str(pending.get("name") or "operation"),
            "done": False,
            "digests": dict(pending.get("digests") or {}),
            **({"git_revision": pending["git_revision"]} if "git_revision" in pending else {}),
        }
    elif record.get("operation_uid"):
        create = record.get("status") != STATUS_PRESENT
        result["operation"] = {
            "uid": str(record["operation_uid"]),
            "name": "create" if create else "",
            "done": not create,
        }
    return result


def _fits(value: Any, kinds: Tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # JSON true/false is never a number here
        return bool in kinds
    return isinstance(value, kinds)


def _split(data: Mapping[str, Any], kinds: Kinds) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The known fields of `data` that have their type (mappings copied), and the rest as stored (`extra`)."""
    known: Dict[str, Any] = {}
    extra: Dict[str, Any] = {}
    for name, value in data.items():
        if name in kinds and _fits(value, kinds[name]):
            known[name] = dict(value) if isinstance(value, dict) else value
        else:
            extra[name] = copy.deepcopy(value)
    return known, extra


def _joined(fields: Mapping[str, Any], extra: Mapping[str, Any]) -> Dict[str, Any]:
    """`extra` and, over it, the fields that are set (None: not stored)."""
    data = copy.deepcopy(dict(extra))
    data.update({k: dict(v) if isinstance(v, Mapping) else v for k, v in fields.items() if v is not None})
    return data


def salt(record: Optional[Record]) -> str:
    return (record.salt if record is not None else None) or ""


def recorded_digests(record: Optional[Record]) -> Mapping[str, str]:
    """The digests of the secrets the record last applied (none: empty)."""
    return (record.digests if record is not None else None) or {}


def open_operation(record: Optional[Record]) -> Optional[Operation]:
    """The operation this record started and has not settled yet (P27: the only one a task waits for)."""
    operation = record.operation if record is not None else None
    if operation is not None and operation.uid and not operation.done:
        return operation
    return None


def _applied(record: Optional[Record], code: str, value: str) -> bool:
    """The record's digest of `code` is one of `value` (issue 24: a slow salted KDF, or the legacy format)."""
    known = recorded_digests(record)
    return code in known and secret_digest.matches(known[code], code, value, salt(record))


def secrets_to_set(record: Optional[Record], secrets: Mapping[str, str]) -> List[str]:
    """Codes of the task's secrets that differ from the last applied ones, or were never applied by this record."""
    return sorted(code for code, value in secrets.items() if not _applied(record, code, value))


def secrets_changed(record: Optional[Record], secrets: Mapping[str, str]) -> List[str]:
    """Codes of the task's secrets whose digest this record holds and that differ from it (a secret this record
    never applied is unknown, not changed)."""
    known = recorded_digests(record)
    return sorted(code for code, value in secrets.items() if code in known and not _applied(record, code, value))


def digest_of(record: Optional[Record], code: str, value: str) -> str:
    """The digest to record for `value`: the record's own when it is current and of this value (compared already,
    so no second KDF run), else a new one (issue 24)."""
    known = recorded_digests(record).get(code)
    if secret_digest.is_current(known) and _applied(record, code, value):
        return str(known)
    return secret_digest.make(code, value)


def migrated(record: Optional[Record], secrets: Mapping[str, str]) -> Optional[Record]:
    """Issue 24: the record with each digest in an older format (one round of SHA-256, or other KDF parameters)
    that matches the task's value replaced by a current one; None when there is nothing to migrate. A digest
    whose value the task does not give, or gives differently, cannot be re-made and stays as it is."""
    known = dict(recorded_digests(record))
    stale = [c for c, v in secrets.items() if c in known and not secret_digest.is_current(known[c])]
    renewed = {c: secret_digest.make(c, secrets[c]) for c in stale if _applied(record, c, secrets[c])}
    if record is None or not renewed:
        return None
    return replace(record, digests=dict(known, **renewed))


def started(
    record: Optional[Record],
    op_uid: str,
    name: str,
    secrets: Mapping[str, str],
    revision: Optional[str],
    remove: bool = False,
) -> Record:
    """The record once `name` was started: the operation, with the digests of the secrets it applies, and whether
    its success ends the record (a delete or a destroy: a later run, after `wait: false`, then removes it)."""
    base = record if record is not None else Record()
    base = replace(base, salt=salt(base) or new_salt())
    operation = Operation(
        uid=op_uid,
        name=name,
        done=False,
        digests={code: digest_of(base, code, value) for code, value in secrets.items()},
        git_revision=revision,
        remove_record=True if remove else None,
    )
    return replace(base, operation=operation)


def settled(record: Record, succeeded: bool) -> Record:
    """The record once its operation finished: on success what it applied is merged in (and a resource that was
    being created is present: a later run, after `wait: false`, has nothing left to record); either way it is
    done."""
    operation = record.operation if record.operation is not None else Operation()
    result = record
    if succeeded:
        result = replace(result, digests=dict(recorded_digests(record), **(operation.digests or {})))
        if operation.git_revision is not None:
            result = replace(result, git_revision=operation.git_revision)
        if result.status == STATUS_CREATING:
            result = replace(result, status=STATUS_PRESENT)
    return replace(result, operation=replace(operation, done=True, digests=None))


def present(
    record: Optional[Record],
    secret_codes: List[str],
    instance_uid: Optional[str] = None,
    git_revision: Optional[str] = None,
) -> Record:
    """The record of an applied (or verified) resource; digests of secrets it no longer has are dropped. The uid
    and git_revision given (not None) replace the recorded ones."""
    base = record if record is not None else Record()
    return replace(
        base,
        status=STATUS_PRESENT,
        instance_uid=base.instance_uid if instance_uid is None else instance_uid,
        git_revision=base.git_revision if git_revision is None else git_revision,
        salt=salt(base) or new_salt(),
        digests={k: v for k, v in recorded_digests(base).items() if k in secret_codes},
    )
