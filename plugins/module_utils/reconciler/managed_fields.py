# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Managed-fields takeover before a forced server-side apply (reference 3.3 step 12, SsaMerge/SsaOverride)."""

from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

RECLAIMED_MANAGER_PREFIXES = ("kubectl",)
# The manager the apiserver derives from this collection's User-Agent when a write names none (kube/client.py): the
# collection's own writes (a namespace the missing-namespaces policy created, a record) never count as foreign.
OWN_CLIENT_MANAGER = "nubes.cloud"


def foreign_managers(
    managed_fields: Sequence[Mapping[str, Any]], manager: str, reclaim_prefixes: Sequence[str]
) -> List[str]:
    """Issue 25: the managers of an object that may hold a field we set and are neither us, this collection's client,
    nor reclaimed (status subresource entries never overlap an apply of the object)."""
    found: List[str] = []
    for entry in managed_fields:
        name = str(entry.get("manager", ""))
        if entry.get("subresource") == "status" or name == manager or name.startswith(OWN_CLIENT_MANAGER):
            continue
        if not any(name.startswith(prefix) for prefix in reclaim_prefixes) and name not in found:
            found.append(name)
    return found


RECLAIM_OPTION = "reclaim_field_managers"
_CONFLICT_WITH = re.compile(r'conflict with "([^"]*)"')


def apply_conflicts(status_body: Mapping[str, Any]) -> List[Tuple[str, str]]:
    """(manager, field) pairs of a server-side apply 409 (``details.causes`` with reason FieldManagerConflict); empty
    when the 409 is no field-manager conflict (a resourceVersion precondition, a webhook's own 409)."""
    found: List[Tuple[str, str]] = []
    for cause in (status_body.get("details") or {}).get("causes") or []:
        if not isinstance(cause, Mapping) or "FieldManagerConflict" not in (cause.get("reason"), cause.get("type")):
            continue
        match = _CONFLICT_WITH.search(str(cause.get("message", "")))
        found.append((match.group(1) if match else str(cause.get("message", "")), str(cause.get("field", ""))))
    return found


def conflict_message(what: str, conflicts: Sequence[Tuple[str, str]]) -> str:
    """The error of an unresolved conflict: who holds which field, and the option that resolves it (issue 25)."""
    managers = sorted({manager for manager, _field in conflicts})
    held = "; ".join(
        f"field manager {manager!r} holds {', '.join(f for m, f in conflicts if m == manager)}" for manager in managers
    )
    return (
        f"{what}: server-side apply conflict: {held}. The component reclaims only the fields of the managers in "
        f"{RECLAIM_OPTION}; add {', '.join(repr(m) for m in managers)} (or a prefix of it) to {RECLAIM_OPTION} to "
        "take the fields over, or stop setting them in the other tool"
    )


def merge_fields(target: Dict[str, Any], source: Mapping[str, Any]) -> Dict[str, Any]:
    """Union of two ``fieldsV1`` tries."""
    for key, value in source.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            merge_fields(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target


def takeover_managed_fields(
    managed_fields: Sequence[Mapping[str, Any]],
    manager: str,
    api_version: str,
    reclaim_prefixes: Sequence[str],
) -> Optional[List[Dict[str, Any]]]:
    """Fold the fields that ``manager`` owns through Update operations, and those of managers starting with one of
    ``reclaim_prefixes``, into ``manager``'s Apply entry. Returns the new list, or None when nothing changes.

    SsaMerge uses no prefixes (only our own Update entries); SsaOverride uses ``("kubectl",)`` so that fields set by
    ``kubectl apply --server-side`` or ``kubectl edit`` become ours and are removed when we no longer apply them.
    """
    keep: List[Dict[str, Any]] = []
    reclaimed: List[Mapping[str, Any]] = []
    apply_entry: Optional[Dict[str, Any]] = None
    for entry in managed_fields:
        name = str(entry.get("manager", ""))
        operation = entry.get("operation")
        if entry.get("subresource"):
            keep.append(dict(entry))
        elif name == manager and operation == "Apply":
            apply_entry = copy.deepcopy(dict(entry))
        elif (name == manager and operation == "Update") or any(name.startswith(p) for p in reclaim_prefixes):
            reclaimed.append(entry)
        else:
            keep.append(dict(entry))
    if not reclaimed:
        return None
    if apply_entry is None:
        apply_entry = {
            "manager": manager,
            "operation": "Apply",
            "apiVersion": api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": {},
        }
        if reclaimed[0].get("time"):
            apply_entry["time"] = reclaimed[0]["time"]
    fields = apply_entry.setdefault("fieldsV1", {})
    for entry in reclaimed:
        merge_fields(fields, entry.get("fieldsV1") or {})
    return [*keep, apply_entry]
