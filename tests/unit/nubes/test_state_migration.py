"""Unit tests of the state migration (file -> Kubernetes backend, P42): idempotent, conflicts kept unless
overwrite, check mode writes nothing, workspace filter, locks taken per resource."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, List, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_migration import lock_key, migrate
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    INSTANCES,
    SUBRESOURCES,
    StateBackend,
    StateStore,
)
from tests.unit.nubes.test_kubernetes_backend import U1, U2, MemoryObjects

OTHER = "9835EB50-9EF8-4C1A-8D55-3A021B21C0FF"
DB = ResourceRef("postgres", 90, "prod", "db")


class RecordingBackend(KubernetesBackend):
    def __init__(self, objects: Any) -> None:
        super().__init__(objects, sleep=lambda _seconds: None)
        self.locked: List[Tuple[str, ...]] = []

    def lock(self, key: Tuple[str, ...]) -> Any:
        self.locked.append(key)
        return super().lock(key)


def uid_of(store: StateStore) -> str:
    """The instance_uid recorded for postgres `db` in the store's workspace."""
    record = store.get(DB)
    return (record.instance_uid if record is not None else None) or ""


def source_with_records(tmp_path: Path) -> FileBackend:
    source = FileBackend(str(tmp_path / "state.json"))
    StateStore(source, "prod").put(DB, Record(instance_uid=U1, status="present"))
    StateStore(source, "prod").put(DB.subresource(U1, "user", "app"), Record(extra={"exists": True}))
    StateStore(source, "dev").put(DB, Record(instance_uid=U2, status="present"))
    return source


def test_migrate_copies_then_changes_nothing(tmp_path: Path) -> None:
    """P42: every record is copied under its resource's lock; a second run copies nothing."""
    source = source_with_records(tmp_path)
    destination = RecordingBackend(MemoryObjects())
    first = migrate(source, destination)
    assert first.copied == [
        "instances:dev/postgres/db",
        "instances:prod/postgres/db",
        f"subresources:prod/postgres/{U1.lower()}/user/app",
    ]
    assert first.source_records == 3 and first.unchanged == 0 and first.conflicts == []
    assert ("instance", "postgres", "db") in destination.locked
    assert ("parent", "prod", U1.lower()) in destination.locked
    assert uid_of(StateStore(destination, "prod")) == U1
    second = migrate(source, destination)
    assert second.copied == [] and second.unchanged == 3


def test_migrate_check_mode_and_workspace_filter(tmp_path: Path) -> None:
    """P42: check mode reports what would be copied and writes nothing; `workspace` limits the copy."""
    source = source_with_records(tmp_path)
    objects = MemoryObjects()
    destination = KubernetesBackend(objects)
    planned = migrate(source, destination, workspace="prod", check_mode=True)
    assert planned.copied == ["instances:prod/postgres/db", f"subresources:prod/postgres/{U1.lower()}/user/app"]
    assert objects.secrets == {}
    migrate(source, destination, workspace="prod")
    assert {key[0] for key, _record in destination.items(INSTANCES)} == {"prod"}
    assert len(destination.items(SUBRESOURCES)) == 1


def test_migrate_keeps_differing_records_unless_overwrite(tmp_path: Path) -> None:
    """P42: a differing destination record is a conflict (kept); overwrite replaces it."""
    source = source_with_records(tmp_path)
    destination = KubernetesBackend(MemoryObjects())
    StateStore(destination, "dev").put(DB, Record(instance_uid=OTHER))
    kept = migrate(source, destination, workspace="dev")
    assert kept.conflicts == ["instances:dev/postgres/db"] and kept.copied == []
    assert uid_of(StateStore(destination, "dev")) == OTHER
    replaced = migrate(source, destination, workspace="dev", overwrite=True)
    assert replaced.copied == ["instances:dev/postgres/db"]
    assert uid_of(StateStore(destination, "dev")) == U2


def test_lock_keys_match_the_modules_locks() -> None:
    """P42: the migration takes the same locks as StateStore.lock (an instance's name, a sub-resource's parent). The
    instance lock is one per service and display name across workspaces (issue 24: two workspaces never create one
    name twice)."""
    taken = []

    class Recording(StateBackend):
        def lock(self, key):  # type: ignore[no-untyped-def]
            taken.append(key)
            return contextlib.nullcontext()

    backend = Recording()
    name = ResourceRef("s3", 12, "ws", "name")
    StateStore(backend, "ws").lock(name)
    StateStore(backend, "other").lock(name)
    StateStore(backend, "ws").lock(name.subresource("ABC", "bucket", "b1"))
    assert taken[0] == taken[1] == lock_key(INSTANCES, ("ws", "s3", "name"))
    assert taken[2] == lock_key(SUBRESOURCES, ("ws", "s3", "ABC", "bucket", "b1"))
