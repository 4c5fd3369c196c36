# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one validator of stored state, used by both backends on every read (issue 24).

A record is read before any API call of a task, so a damaged state is refused here, before anything is sent: the
shape (the file's top level, its `instances` and `subresources` tables, each record a mapping under a key of the
right length), the format `version`, the type of every field the collection reads, and every recorded uid (an
instance, parent or operation uid ends up in a URL path: it must be a UUID, models.is_uuid). The error names where
the state lives (the file, or the Secret and its data entry), the entry, what is wrong and the fix. Unknown fields
are kept and ignored (a newer minor version may add some); a missing `version` is the current one.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import UID_FORM, is_uuid
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, SUBRESOURCES, Key

FORMAT_VERSION = 1
KEY_LENGTHS = {INSTANCES: 3, SUBRESOURCES: 5}  # state_store.instance_key / subresource_key
PARENT_IN_KEY = 2  # a sub-resource key holds the parent instance uid at this position
NOT_AFFECTED = "the cloud instances are not affected"

# Fields of a record (records.py) and of its `operation` (and the legacy `pending`): None counts as absent.
TEXT_FIELDS = ("status", "workspace", "service", "resource_name", "sub", "key", "salt", "updated_at", "git_revision")
UID_FIELDS = ("instance_uid", "parent_instance_uid", "operation_uid")
MAPPING_FIELDS = ("digests", "params")
OPERATION_FIELDS = {"uid": "uid", "operation_uid": "uid", "name": "text", "git_revision": "text"}
OPERATION_FLAGS = ("done", "remove_record")


class StateFormatError(NubesError):
    """The stored state is damaged or of an unknown format; raised on read, before any API call."""


def check_document(data: Any, where: str, fix: str) -> Dict[str, Any]:
    """A whole state document (the file backend's JSON): `{"version": 1, "instances": {...}, "subresources": {...}}`.

    `where` names the state ("the state file /path"), `fix` says what the user does about it."""
    if not isinstance(data, dict):
        raise _damaged(where, f"the top level must be a mapping of tables, not {_kind(data)}", fix)
    version = data.get("version", FORMAT_VERSION)
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise StateFormatError(
            f"{where} has format version {_shown(version)}, which this version of nubes.cloud cannot read (it reads "
            f"version {FORMAT_VERSION}): run it with the nubes.cloud version that wrote it, or restore a backup of "
            f"version {FORMAT_VERSION}; {NOT_AFFECTED}"
        )
    for table in KEY_LENGTHS:
        entries = data.get(table, {})
        if not isinstance(entries, dict):
            raise _damaged(where, f"`{table}` must be a mapping of records, not {_kind(entries)}", fix)
        for encoded, record in entries.items():
            check_record(table, _decode_key(table, encoded, where, fix), record, where, fix)
    return data


def check_entry(entry: Any, where: str, fix: str) -> Tuple[str, Key, Dict[str, Any]]:
    """One stored entry of the Kubernetes backend, `{"table", "key", "record"}`: its parts, checked."""
    if not isinstance(entry, dict):
        raise _damaged(where, f"the entry must be a mapping with table, key and record, not {_kind(entry)}", fix)
    table = entry.get("table")
    if table not in KEY_LENGTHS:
        raise _damaged(where, f"the entry's table must be one of {', '.join(KEY_LENGTHS)}, not {_shown(table)}", fix)
    key = _key(table, entry.get("key"), where, fix)
    return str(table), key, check_record(str(table), key, entry.get("record"), where, fix)


def check_record(table: str, key: Key, record: Any, where: str, fix: str) -> Dict[str, Any]:
    """One record: a mapping whose known fields have their types, and whose uids are UUIDs."""
    name = f"{table} record {json.dumps(list(key), ensure_ascii=False)}"
    if not isinstance(record, dict):
        raise _damaged(where, f"the {name} must be a mapping, not {_kind(record)}", fix)
    if table == SUBRESOURCES and not is_uuid(key[PARENT_IN_KEY]):
        raise _damaged(
            where, f"the {name} has parent uid {_shown(key[PARENT_IN_KEY])} in its key, which is not {UID_FORM}", fix
        )
    _check_fields(record, "", name, where, fix)
    for nested in ("operation", "pending"):  # `pending`: the shape of earlier versions (records.current_shape)
        value = record.get(nested)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _damaged(where, f"the {name}: {nested} must be a mapping, not {_kind(value)}", fix)
        _check_operation(value, nested + ".", name, where, fix)
    return record


def _check_fields(record: Mapping[str, Any], prefix: str, name: str, where: str, fix: str) -> None:
    for field in TEXT_FIELDS:
        _expect(record, field, str, "a string", prefix, name, where, fix)
    for field in MAPPING_FIELDS:
        _expect(record, field, dict, "a mapping", prefix, name, where, fix)
    service_id = record.get("service_id")
    if service_id is not None and (isinstance(service_id, bool) or not isinstance(service_id, int)):
        raise _damaged(where, f"the {name}: {prefix}service_id must be an integer, not {_kind(service_id)}", fix)
    for field in UID_FIELDS:
        _expect_uid(record, field, prefix, name, where, fix)


def _check_operation(operation: Mapping[str, Any], prefix: str, name: str, where: str, fix: str) -> None:
    for field, kind in OPERATION_FIELDS.items():
        if kind == "uid":
            _expect_uid(operation, field, prefix, name, where, fix)
        else:
            _expect(operation, field, str, "a string", prefix, name, where, fix)
    for field in OPERATION_FLAGS:
        _expect(operation, field, bool, "true or false", prefix, name, where, fix)
    _expect(operation, "digests", dict, "a mapping", prefix, name, where, fix)


def _expect(
    record: Mapping[str, Any], field: str, kind: type, text: str, prefix: str, name: str, where: str, fix: str
) -> None:
    value = record.get(field)
    if value is not None and not isinstance(value, kind):
        raise _damaged(where, f"the {name}: {prefix}{field} must be {text}, not {_kind(value)}", fix)
    if field == "digests" and isinstance(value, dict):  # salted digests of applied secrets (records.py): code -> hex
        for code, digest in value.items():
            if not isinstance(digest, str):
                raise _damaged(where, f"the {name}: {prefix}digests.{code} must be a string, not {_kind(digest)}", fix)


def _expect_uid(record: Mapping[str, Any], field: str, prefix: str, name: str, where: str, fix: str) -> None:
    """A recorded uid: absent or "" (not known yet), else a UUID; it ends up in a URL path (K1: the recorded id)."""
    value = record.get(field)
    if value is None or value == "":
        return
    if not is_uuid(value):
        raise _damaged(where, f"the {name}: {prefix}{field} {_shown(value)} is not {UID_FORM}", fix)


def _decode_key(table: str, encoded: str, where: str, fix: str) -> Key:
    try:
        parts = json.loads(encoded)
    except ValueError:
        parts = None
    return _key(table, parts, where, fix, shown=encoded)


def _key(table: str, parts: Any, where: str, fix: str, shown: Any = None) -> Key:
    length = KEY_LENGTHS[table]
    if not isinstance(parts, list) or len(parts) != length or not all(isinstance(p, str) for p in parts):
        raise _damaged(
            where,
            f"the {table} key {_shown(parts if shown is None else shown)} must be a list of {length} strings",
            fix,
        )
    return tuple(parts)


def _damaged(where: str, what: str, fix: str) -> StateFormatError:
    return StateFormatError(f"{where} is damaged: {what}. {fix}; {NOT_AFFECTED}")


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    return repr(value)[:100] if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)[:100]
