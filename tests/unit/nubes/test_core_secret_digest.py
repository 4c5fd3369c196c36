"""Issue 24: digests of applied secrets with a slow salted KDF (PBKDF2-HMAC-SHA256, PHC string format), old one-round
SHA-256 digests still compared and migrated on the record's next write, and one KDF run per secret a task compares.

Every expected digest is computed here with hashlib from the documented format, never with the code under test."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import replace
from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import records, secret_digest
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateStore
from tests.unit.nubes.conftest import RunFactory
from tests.unit.nubes.fake_deck import FakeDeck

PHC = re.compile(r"^\$pbkdf2-sha256\$i=300000\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$")
REALM = "k8s-3.ext.nubes.ru"


def unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def pbkdf2_of(stored: str, code: str, value: str) -> bytes:
    """The hash the documented format says `stored` must hold for `value`."""
    params, salt = stored.split("$")[2:4]
    iterations = int(params.split("=")[1])
    return hashlib.pbkdf2_hmac("sha256", f"{code}\x00{value}".encode(), unb64(salt), iterations, 32)


def old_digest(salt: str, code: str, value: str) -> str:
    """A digest as earlier versions wrote it: one round of SHA-256, 32 hex digits."""
    return hashlib.sha256(f"{salt}\x00{code}\x00{value}".encode()).hexdigest()[:32]


def test_digest_format_names_algorithm_and_parameters_with_a_salt_per_digest() -> None:
    """Issue 24: `$pbkdf2-sha256$i=300000$<salt>$<hash>`; the hash is PBKDF2-HMAC-SHA256 of `code NUL value` over a
    random 16-byte salt, so two digests of one value differ and neither reveals it."""
    first, second = secret_digest.make("password", "Pw-1"), secret_digest.make("password", "Pw-1")
    found = PHC.match(first)
    assert found and PHC.match(second), (first, second)
    assert first != second and len(unb64(found.group(1))) == 16
    assert unb64(found.group(2)) == pbkdf2_of(first, "password", "Pw-1")
    assert "Pw-1" not in first and secret_digest.is_current(first)


def test_compare_new_digests() -> None:
    """Issue 24: a current digest matches its value only: not another value, not the value under another code."""
    stored = secret_digest.make("password", "Pw-1")
    assert secret_digest.matches(stored, "password", "Pw-1", "any-record-salt")
    assert not secret_digest.matches(stored, "password", "Pw-2", "any-record-salt")
    assert not secret_digest.matches(stored, "adminPass", "Pw-1", "any-record-salt")


def test_compare_old_sha256_digests_and_other_parameters() -> None:
    """Issue 24: an old one-round SHA-256 digest (with the record's salt) and a PBKDF2 digest with other parameters
    still compare correctly, and neither counts as current; what is neither is never a match."""
    old = old_digest("salt-1", "password", "Pw-1")
    assert secret_digest.matches(old, "password", "Pw-1", "salt-1")
    assert not secret_digest.matches(old, "password", "Pw-2", "salt-1")
    assert not secret_digest.matches(old, "password", "Pw-1", "salt-2")
    salt = b"0123456789abcdef"
    weak_hash = hashlib.pbkdf2_hmac("sha256", b"password\x00Pw-1", salt, 1000, 32)
    weak = "$pbkdf2-sha256$i=1000$" + base64.b64encode(salt).decode().rstrip("=") + "$"
    weak += base64.b64encode(weak_hash).decode().rstrip("=")
    assert secret_digest.matches(weak, "password", "Pw-1", "")
    assert not secret_digest.is_current(old) and not secret_digest.is_current(weak)
    for junk in ("", "zz", "$scrypt$ln=15$x$y", None, 42, old.upper()):
        assert not secret_digest.matches(junk, "password", "Pw-1", "salt-1")


def test_migration_replaces_only_matching_old_digests() -> None:
    """Issue 24: `records.migrated` re-makes each old digest whose value the task gives (and matches) in the
    current format; a changed or absent secret keeps its old digest; nothing old means nothing to write."""
    old = {
        "password": old_digest("salt-1", "password", "Pw-1"),
        "adminPass": old_digest("salt-1", "adminPass", "Admin-1"),
        "other": old_digest("salt-1", "other", "Other-1"),
    }
    record = Record(status="present", salt="salt-1", digests=old)
    renewed = records.migrated(record, {"password": "Pw-1", "adminPass": "Admin-changed"})
    assert renewed is not None and renewed.status == "present" and renewed.digests is not None
    stored = renewed.digests["password"]
    assert PHC.match(stored) and unb64(stored.split("$")[-1]) == pbkdf2_of(stored, "password", "Pw-1")
    assert renewed.digests["adminPass"] == old["adminPass"]  # differs: its value is unknown
    assert renewed.digests["other"] == old["other"]  # not in the task
    assert records.migrated(renewed, {"password": "Pw-1"}) is None  # current already: nothing to write
    assert records.migrated(record, {"adminPass": "Admin-changed"}) is None


def test_started_keeps_a_matching_current_digest_and_makes_one_for_a_new_value() -> None:
    """Issue 24: an operation applying an unchanged secret records the digest it already has (no new KDF run);
    a new value gets a new digest."""
    kept = secret_digest.make("password", "Pw-1")
    record = Record(salt="s", digests={"password": kept})
    assert records.secrets_to_set(record, {"password": "Pw-1"}) == []
    same = records.started(record, "op-1", "modify_user", {"password": "Pw-1"}, None).operation
    assert same is not None and same.digests is not None and same.digests["password"] == kept
    operation = records.started(record, "op-2", "modify_user", {"password": "Pw-2"}, None).operation
    assert operation is not None and operation.digests is not None
    new = operation.digests
    assert new["password"] != kept and unb64(new["password"].split("$")[-1]) == pbkdf2_of(
        new["password"], "password", "Pw-2"
    )


@pytest.fixture
def pg_uid(run: RunFactory, services: Dict[str, Any], deck: FakeDeck) -> str:
    s3 = deck.add_instance(12, "backups")
    args = {"resource_name": "db1", "s3_uid": s3, "resource_realm": REALM, "json_parameters": {}}
    return str(run(services["postgres"], **args)["instance_uid"])


def kdf_runs(action: Any) -> int:
    before = secret_digest.kdf_calls[0]
    action()
    return secret_digest.kdf_calls[0] - before


def test_kdf_runs_per_task(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, pg_uid: str, state_path: str
) -> None:
    """Issue 24: a task runs the KDF once per secret it compares or records: create 1, unchanged re-run 1, a changed
    password with update_password=always 2 (compare, record), an old SHA-256 digest 1 (the migration's new digest,
    written although nothing else changed, with no write to the API)."""
    user = {"parent_instance_uid": pg_uid, "username": "app", "update_password": "always"}

    def task(password: str) -> Dict[str, Any]:
        return run(services["postgres"], "subresource", "user", password=password, **user)

    results = []
    assert kdf_runs(lambda: results.append(task("Pw-1"))) == 1 and results[-1]["operations"] == ["create_user"]
    assert kdf_runs(lambda: results.append(task("Pw-1"))) == 1 and not results[-1]["changed"]
    assert kdf_runs(lambda: results.append(task("Pw-2"))) == 2 and results[-1]["operations"] == ["modify_user"]

    store = StateStore(FileBackend(state_path), "default")
    app = ResourceRef("postgres", 90, "default", sub="user", key="app").in_parent(pg_uid)
    stored = store.get(app)
    assert stored is not None and stored.salt is not None
    older = dict(stored.digests or {}, password=old_digest(stored.salt, "password", "Pw-2"))  # an older version's
    store.put(app, replace(stored, digests=older))
    writes = len(deck.writes())
    assert kdf_runs(lambda: results.append(task("Pw-2"))) == 1 and not results[-1]["changed"]
    assert len(deck.writes()) == writes
    renewed = store.get(app)
    assert renewed is not None and renewed.digests is not None
    migrated = renewed.digests["password"]
    assert PHC.match(migrated) and unb64(migrated.split("$")[-1]) == pbkdf2_of(migrated, "password", "Pw-2")
    with open(state_path, encoding="utf-8") as handle:
        assert "Pw-2" not in handle.read()
    assert "Pw-2" not in json.dumps(results)
