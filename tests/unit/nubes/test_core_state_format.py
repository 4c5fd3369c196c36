"""Issue 24: stored state is validated on read (state_format.py), by the file backend and the Kubernetes backend
alike; every uid that goes into a URL path is a UUID (models.path_uid); a task with a damaged record makes no
request at all."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Dict, List

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.identity import ResourceRef
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import (
    KubernetesBackend,
    entry_name,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_format import (
    StateFormatError,
    check_document,
    check_record,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import INSTANCES, SUBRESOURCES, StateStore
from tests.unit.nubes.conftest import RunFactory
from tests.unit.nubes.fake_deck import FakeDeck
from tests.unit.nubes.test_kubernetes_backend import U1, U2, MemoryObjects

PASSWD = "../../etc/passwd"
KEY = ("default", "dummy", "web")
ENCODED = json.dumps(list(KEY), separators=(",", ":"))


def write_state(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def one_record(record: Any) -> Dict[str, Any]:
    return {"version": 1, "instances": {ENCODED: record}}


DAMAGED = [
    ([], "the top level must be a mapping of tables, not a list"),
    ("x", "the top level must be a mapping of tables, not a string"),
    ({"version": 99}, "has format version 99, which this version of nubes.cloud cannot read"),
    ({"version": "1"}, "has format version '1', which"),
    ({"version": 1, "instances": "x"}, "`instances` must be a mapping of records, not a string"),
    ({"version": 1, "subresources": []}, "`subresources` must be a mapping of records, not a list"),
    ({"version": 1, "instances": {"not-json": {}}}, "the instances key 'not-json' must be a list of 3 strings"),
    ({"version": 1, "instances": {'["a","b"]': {}}}, "must be a list of 3 strings"),
    (one_record("oops"), 'the instances record ["default", "dummy", "web"] must be a mapping, not a string'),
    (one_record(None), "must be a mapping, not null"),
    (one_record({"instance_uid": PASSWD}), f"instance_uid {PASSWD!r} is not a UUID"),
    (one_record({"instance_uid": U1, "operation": {"uid": PASSWD}}), f"operation.uid {PASSWD!r} is not a UUID"),
    (one_record({"instance_uid": U1, "operation": "x"}), "operation must be a mapping, not a string"),
    (one_record({"instance_uid": U1, "operation": {"uid": U2, "done": "no"}}), "operation.done must be true or false"),
    (one_record({"instance_uid": U1, "pending": {"operation_uid": "x?y"}}), "pending.operation_uid 'x?y' is not"),
    (one_record({"operation_uid": PASSWD}), f"operation_uid {PASSWD!r} is not a UUID"),
    (one_record({"instance_uid": 7}), "instance_uid 7 is not a UUID"),
    (one_record({"status": ["present"]}), "status must be a string, not a list"),
    (one_record({"service_id": "1"}), "service_id must be an integer, not a string"),
    (one_record({"digests": {"password": 1}}), "digests.password must be a string, not a number"),
    (
        {"version": 1, "subresources": {json.dumps(["default", "postgres", PASSWD, "user", "app"]): {}}},
        f"has parent uid {PASSWD!r} in its key",
    ),
]


@pytest.mark.parametrize(("data", "message"), DAMAGED, ids=[str(i) for i in range(len(DAMAGED))])
def test_damaged_state_file_is_a_clear_error_on_every_read(tmp_path: Path, data: Any, message: str) -> None:
    """Issue 24: a damaged state file (wrong shapes, an unknown version, wrong field types, a recorded uid that is
    not a UUID) is an error on get, items and put that names the file, the entry and the fix; a put never
    overwrites it."""
    path = write_state(tmp_path / "state.json", data)
    before = path.read_text(encoding="utf-8")
    backend = FileBackend(str(path))
    for read in (
        lambda: backend.get(INSTANCES, KEY),
        lambda: backend.items(INSTANCES),
        lambda: backend.put(INSTANCES, ("default", "dummy", "other"), {"instance_uid": U2}),
    ):
        with pytest.raises(StateFormatError) as info:
            read()
        assert message in info.value.msg
        assert f"the state file {path}" in info.value.msg
        assert "backup" in info.value.msg and "the cloud instances are not affected" in info.value.msg
    assert path.read_text(encoding="utf-8") == before


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"instances": {}},
        one_record({"status": "create_requested", "instance_uid": "", "digests": {}, "git_revision": None}),
        one_record(
            {
                "status": "present",
                "instance_uid": U1.lower(),
                "service_id": 1,
                "salt": "ab",
                "digests": {"password": "cd"},
                "operation": {"uid": U2, "name": "modify", "done": False, "digests": {}, "remove_record": True},
                "a_field_of_a_newer_version": [1],
            }
        ),
        one_record({"status": "creating", "params": {"a": 1}, "pending": {"operation_uid": U2}, "operation_uid": U2}),
    ],
    ids=["empty", "no-version", "create-requested", "current-shape", "earlier-shape"],
)
def test_every_shape_the_collection_writes_passes_the_validator(tmp_path: Path, data: Dict[str, Any]) -> None:
    """Issue 24: every shape the collection writes, or wrote in earlier versions, passes the validator and reads as
    before; a missing version is the current one and unknown fields are kept."""
    assert check_document(data, "here", "fix it") is data
    backend = FileBackend(str(write_state(tmp_path / "state.json", data)))
    assert backend.get(INSTANCES, KEY) == (data.get("instances") or {}).get(ENCODED)
    backend.put(INSTANCES, ("default", "dummy", "other"), {"instance_uid": U2})
    assert len(backend.items(INSTANCES)) == len(data.get("instances") or {}) + 1


def secret_entry(objects: MemoryObjects, name: str, value: str) -> None:
    """Puts a raw data entry into the workspace's records Secret (written by the backend first, then damaged)."""
    secret = next(iter(objects.secrets.values()))
    secret["data"][name] = value


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("%%%", "the entry must be a mapping with table, key and record, not a string"),
        (b64("[]"), "the entry must be a mapping with table, key and record, not a list"),
        (b64(json.dumps({"table": "other", "key": list(KEY), "record": {}})), "the entry's table must be one of"),
        (b64(json.dumps({"table": INSTANCES, "key": "web", "record": {}})), "must be a list of 3 strings"),
        (b64(json.dumps({"table": INSTANCES, "key": list(KEY), "record": []})), "must be a mapping, not a list"),
        (
            b64(json.dumps({"table": INSTANCES, "key": list(KEY), "record": {"instance_uid": PASSWD}})),
            f"instance_uid {PASSWD!r} is not a UUID",
        ),
    ],
    ids=["not-base64-json", "not-a-mapping", "table", "key", "record", "uid"],
)
def test_damaged_kubernetes_entry_names_the_secret_and_entry(value: str, message: str) -> None:
    """Issue 24: the Kubernetes backend validates every entry it reads with the same validator; the error names the
    Secret, its namespace, the data entry and how to fix it (get and items alike)."""
    objects = MemoryObjects()
    backend = KubernetesBackend(objects, lease_duration=2, lock_timeout=1, sleep=lambda _seconds: None)
    StateStore(backend, "default").put(ResourceRef("dummy", 1, "default", "other"), Record(instance_uid=U2))
    name = entry_name(INSTANCES, KEY)
    secret_entry(objects, name, value)
    secret = next(iter(objects.secrets))
    for read in (lambda: backend.get(INSTANCES, KEY), lambda: backend.items(INSTANCES)):
        with pytest.raises(StateFormatError) as info:
            read()
        assert message in info.value.msg
        assert f"the state Secret {secret} in namespace state-ns (data entry {name})" in info.value.msg
        assert f"kubectl edit secret {secret} -n state-ns" in info.value.msg


def test_check_record_of_a_subresource_checks_its_parent_uid() -> None:
    """Issue 24: a sub-resource record's parent uid (in its key and its fields) is a UUID."""
    key = ("default", "postgres", U1.lower(), "user", "app")
    record = {"parent_instance_uid": U1, "status": "present"}
    assert check_record(SUBRESOURCES, key, record, "here", "fix it") is record
    with pytest.raises(StateFormatError, match="parent_instance_uid 'x' is not a UUID"):
        check_record(SUBRESOURCES, key, {"parent_instance_uid": "x"}, "here", "fix it")


@pytest.mark.parametrize(
    "call",
    [
        lambda api: api.get_instance(PASSWD),
        lambda api: api.delete_instance(PASSWD),
        lambda api: api.get_operation("x?fields=all"),
        lambda api: api.validate("../instances"),
        lambda api: api.run("a/b"),
    ],
    ids=["get_instance", "delete_instance", "get_operation", "validate", "run"],
)
def test_no_uid_but_a_uuid_goes_into_a_url(call: Any) -> None:
    """Issue 24: every path built from an instance or operation uid takes a UUID only, whatever the caller; anything
    else is refused before a request is sent (the last line of defence behind the option and record checks)."""
    sent: List[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={})

    client = ApiClient(ClientConfig("https://gw.test/api/v1/svc", "tok"), transport=httpx.MockTransport(handler))
    with pytest.raises(InputError) as info:
        call(DeckApi(client))
    assert "is not a UUID: 8-4-4-4-12 hex digits, so it is not sent to the API" in info.value.msg
    assert sent == []


def test_a_recorded_path_uid_makes_no_request(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, state_path: str
) -> None:
    """Issue 24: a record whose instance_uid is `../../etc/passwd` fails the task before any request (not only
    before any write): the token is never sent to such a path."""
    write_state(Path(state_path), one_record({"status": "present", "instance_uid": PASSWD}))
    with pytest.raises(StateFormatError) as info:
        run(services["dummy"], resource_name="web", resource_realm="dummy")
    assert f"instance_uid {PASSWD!r} is not a UUID" in info.value.msg
    assert deck.log == []
