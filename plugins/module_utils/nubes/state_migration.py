# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Copy state records from one backend to another (a local file -> Kubernetes), idempotently (P42, docs/state.md).

A record already in the destination with the same content (``updated_at`` aside) is skipped; one that differs is
kept unless ``overwrite``. Instance records are written under the resource's lock, sub-resource records under
the parent's lock, so a job running at the same time never sees a half-migrated resource. The report holds
keys and counts only, never record contents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    INSTANCES,
    SUBRESOURCES,
    Key,
    StateBackend,
    name_lock_key,
    parent_lock_key,
)

IGNORED_FIELDS = ("updated_at",)


@dataclass
class MigrationReport:
    copied: List[str] = field(default_factory=list)
    conflicts: List[str] = field(default_factory=list)
    unchanged: int = 0
    source_records: int = 0


def same_record(left: Dict[str, Any], right: Dict[str, Any]) -> bool:
    def strip(record: Dict[str, Any]) -> Dict[str, Any]:
        return {k: v for k, v in record.items() if k not in IGNORED_FIELDS}

    return strip(left) == strip(right)


def describe(table: str, key: Key) -> str:
    return f"{table}:{'/'.join(str(part) for part in key)}"


def lock_key(table: str, key: Key) -> Tuple[str, ...]:
    """The lock the modules take on this record (StateStore.lock: the name's, or the parent's)."""
    if table == INSTANCES:
        return name_lock_key(key[1], key[2])
    return parent_lock_key(key[0], str(key[2]))


def migrate(
    source: StateBackend,
    destination: StateBackend,
    workspace: Optional[str] = None,
    overwrite: bool = False,
    check_mode: bool = False,
) -> MigrationReport:
    report = MigrationReport()
    for table in (INSTANCES, SUBRESOURCES):
        for key, record in sorted(source.items(table), key=lambda item: item[0]):
            if workspace is not None and key[0] != workspace:
                continue
            report.source_records += 1
            name = describe(table, key)
            with destination.lock(lock_key(table, key)):
                existing = destination.get(table, key)
                if existing is not None and same_record(existing, record):
                    report.unchanged += 1
                    continue
                if existing is not None and not overwrite:
                    report.conflicts.append(name)
                    continue
                if not check_mode:
                    destination.put(table, key, record)
                report.copied.append(name)
    return report
