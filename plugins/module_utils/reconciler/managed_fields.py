# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Managed-fields takeover before a forced server-side apply (reference 3.3 step 12, SsaMerge/SsaOverride)."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Mapping, Optional, Sequence

RECLAIMED_MANAGER_PREFIXES = ("kubectl",)


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
