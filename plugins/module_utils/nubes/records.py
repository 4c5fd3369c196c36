# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a state record holds: only what cannot be read back from the API.

An instance record: `status` (`create_requested` -> `creating` -> `present`), `instance_uid`, `service_id`,
the salted `digests` of the secrets last applied (the API never returns secrets; format: secret_digest.py), the
`git_revision` last deployed, and `operation`: the last operation the task started (`uid`, `name`, `done`, plus
the secret digests and git_revision it applies, merged into the record once it succeeded). Sub-resource records
hold the same minus the uid. Params are never recorded: the live instance is the truth (values.py).

Records written by earlier versions (with `params`, `pending`, `operation_uid`) are read as this shape.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import secret_digest
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    STATUS_CREATING,
    STATUS_PRESENT,
    Record,
    new_salt,
)


def normalise(record: Optional[Mapping[str, Any]]) -> Optional[Record]:
    """The record in the current shape (a copy); None stays None."""
    if record is None:
        return None
    result: Record = {k: v for k, v in record.items() if k not in ("params", "pending", "operation_uid")}
    operation = record.get("operation")
    pending = record.get("pending")
    if isinstance(operation, dict):
        result["operation"] = dict(operation)
    elif isinstance(pending, dict) and pending.get("operation_uid"):
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


def salt(record: Optional[Mapping[str, Any]]) -> str:
    return str((record or {}).get("salt") or "")


def open_operation(record: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """The operation this record started and has not settled yet (P27: the only one a task waits for)."""
    operation = (record or {}).get("operation")
    if isinstance(operation, dict) and operation.get("uid") and not operation.get("done"):
        return operation
    return None


def _applied(record: Optional[Mapping[str, Any]], code: str, value: str) -> bool:
    """The record's digest of `code` is one of `value` (issue 24: a slow salted KDF, or the legacy format)."""
    known = (record or {}).get("digests") or {}
    return code in known and secret_digest.matches(known[code], code, value, salt(record))


def secrets_to_set(record: Optional[Mapping[str, Any]], secrets: Mapping[str, str]) -> List[str]:
    """Codes of the task's secrets that differ from the last applied ones, or were never applied by this record."""
    return sorted(code for code, value in secrets.items() if not _applied(record, code, value))


def secrets_changed(record: Optional[Mapping[str, Any]], secrets: Mapping[str, str]) -> List[str]:
    """Codes of the task's secrets whose digest this record holds and that differ from it (a secret this record
    never applied is unknown, not changed)."""
    known = (record or {}).get("digests") or {}
    return sorted(code for code, value in secrets.items() if code in known and not _applied(record, code, value))


def digest_of(record: Optional[Mapping[str, Any]], code: str, value: str) -> str:
    """The digest to record for `value`: the record's own when it is current and of this value (compared already,
    so no second KDF run), else a new one (issue 24)."""
    known = ((record or {}).get("digests") or {}).get(code)
    if secret_digest.is_current(known) and _applied(record, code, value):
        return str(known)
    return secret_digest.make(code, value)


def migrated(record: Optional[Mapping[str, Any]], secrets: Mapping[str, str]) -> Optional[Record]:
    """Issue 24: the record with each digest in an older format (one round of SHA-256, or other KDF parameters)
    that matches the task's value replaced by a current one; None when there is nothing to migrate. A digest
    whose value the task does not give, or gives differently, cannot be re-made and stays as it is."""
    known = dict((record or {}).get("digests") or {})
    stale = [c for c, v in secrets.items() if c in known and not secret_digest.is_current(known[c])]
    renewed = {c: secret_digest.make(c, secrets[c]) for c in stale if _applied(record, c, secrets[c])}
    if record is None or not renewed:
        return None
    return dict(record, digests=dict(known, **renewed))


def started(
    record: Optional[Mapping[str, Any]],
    op_uid: str,
    name: str,
    secrets: Mapping[str, str],
    revision: Optional[str],
    remove: bool = False,
) -> Record:
    """The record once `name` was started: the operation, with the digests of the secrets it applies, and whether
    its success ends the record (a delete or a destroy: a later run, after `wait: false`, then removes it)."""
    result = dict(record or {})
    result["salt"] = salt(result) or new_salt()
    operation: Dict[str, Any] = {
        "uid": op_uid,
        "name": name,
        "done": False,
        "digests": {code: digest_of(result, code, value) for code, value in secrets.items()},
    }
    if revision is not None:
        operation["git_revision"] = revision
    if remove:
        operation["remove_record"] = True
    result["operation"] = operation
    return result


def settled(record: Mapping[str, Any], succeeded: bool) -> Record:
    """The record once its operation finished: on success what it applied is merged in (and a resource that was
    being created is present: a later run, after `wait: false`, has nothing left to record); either way it is
    done."""
    result = dict(record)
    operation = dict(result.get("operation") or {})
    if succeeded:
        result["digests"] = dict(result.get("digests") or {}, **(operation.get("digests") or {}))
        if "git_revision" in operation:
            result["git_revision"] = operation["git_revision"]
        if result.get("status") == STATUS_CREATING:
            result["status"] = STATUS_PRESENT
    operation["done"] = True
    operation.pop("digests", None)
    result["operation"] = operation
    return result


def present(record: Optional[Mapping[str, Any]], secret_codes: List[str], **fields: Any) -> Record:
    """The record of an applied (or verified) resource; digests of secrets it no longer has are dropped."""
    result = dict(record or {})
    result.update({k: v for k, v in fields.items() if v is not None})
    result["status"] = STATUS_PRESENT
    result["salt"] = salt(result) or new_salt()
    result["digests"] = {k: v for k, v in (result.get("digests") or {}).items() if k in secret_codes}
    return result
