"""Hostile input: hypothesis-generated values for every option of every generated module end in success or a
clean fail_json message, never a traceback, and invalid input never causes a write call (the emulator's request
log proves it). Modules run in-process through their AnsibleModule entry point (`main()`)."""

from __future__ import annotations

import importlib
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import COMMON_OPTIONS
from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import write_calls
from tests.reliability.cloud.fleet import REPO, Fleet
from tests.reliability.cloud.hostile import INJECTIONS, module_arguments
from tests.reliability.cloud.module_call import call_module

NOT_GENERATED = {"component", "state_migrate"}
ALL_MODULES = sorted(p.stem for p in (REPO / "plugins" / "modules").glob("*.py") if not p.stem.startswith("_"))
MODULES = [name for name in ALL_MODULES if name not in NOT_GENERATED]
MAX_EXAMPLES = 25
COUNTER = itertools.count()


def load(name: str) -> Any:
    return importlib.import_module(f"ansible_collections.nubes.cloud.plugins.modules.{name}")


def check_outcome(name: str, result: dict[str, Any], writes: list[dict[str, Any]], args: dict[str, Any]) -> None:
    if result.get("failed"):
        message = str(result.get("msg") or "")
        assert message, f"{name}: failed without a message: {result}"
        assert "Traceback" not in message + str(result.get("exception", "")), f"{name}: traceback: {result}"
        assert not writes, f"{name}: invalid input ({message[:300]!r}) but the API saw writes: {writes[:3]}"


@pytest.mark.parametrize("typed_only", [False, True], ids=["any_type", "declared_type"])
@pytest.mark.parametrize("name", MODULES)
def test_hostile_arguments(
    emu: EmulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, typed_only: bool
) -> None:
    """P35-P38 (input checked before any write), P13: random hostile arguments for every option of `name`: any
    type (mostly stopped by the argument spec), or the declared type with hostile content (reaches the core's
    own checks and the API). The modules run in the test's temp directory: a random relative path that is valid
    (estate_export's `dest`) is written there, never into the checkout."""
    monkeypatch.chdir(tmp_path)
    module = load(name)
    base = {
        "api_endpoint": emu.endpoint,
        "api_token": emu.token,
        "state_path": str(tmp_path / "state.json"),
        "wait": False,
    }

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(args=module_arguments(module, COMMON_OPTIONS, typed_only))
    def examples(args: dict[str, Any]) -> None:
        if "resource_name" in args and isinstance(args["resource_name"], str):
            args["resource_name"] = f"{args['resource_name'][:60]}-fz{next(COUNTER)}"
        full = {**args, **base}
        since = emu.last_seq
        result = call_module(module, full)
        check_outcome(name, result, write_calls(emu.requests(since)), full)

    examples()


SOME_UID = "00000000-0000-0000-0000-000000000001"
#: Enough identity for each module kind that ansible-core reaches its type checks (a missing required option, or
#: a missing sub-resource key, ends the check earlier).
IDENTITY = {
    **dict.fromkeys(("instance_uid", "parent_instance_uid", "operation_uid"), SOME_UID),
    **dict.fromkeys(("name", "username", "db_name", "vhost_name"), "nf"),
    "namespace": "default",
}


def _options(name: str, module: Any) -> dict[str, Any]:
    """The options of `name` (the generated modules and operation_info add the common ones)."""
    return dict(module.ARGUMENT_SPEC) if name in NOT_GENERATED else {**COMMON_OPTIONS, **module.ARGUMENT_SPEC}


@pytest.mark.parametrize("name", ALL_MODULES)
def test_non_finite_numbers_fail_cleanly(emu: EmulatorServer, tmp_path: Path, name: str) -> None:
    """Bad input is a clear error before any write (beyond the seed, docs/dev/rules.md): `.inf`, `-.inf` or `.nan`
    (what YAML gives for these words) in any numeric option of any module, the hand-written ones included, is a
    clean fail_json naming the option, with no write call. ansible-core's own int check raises OverflowError on
    infinity; every module builds its AnsibleModule through `new_module()`, which turns that into a failure."""
    module = load(name)
    options = _options(name, module)
    numeric = sorted(option for option, spec in options.items() if spec.get("type") in ("int", "float"))
    assert numeric, f"{name} has no numeric option"
    base: dict[str, Any] = {} if name == "component" else {"state_path": str(tmp_path / "state.json")}
    if name not in NOT_GENERATED:
        base.update(api_endpoint=emu.endpoint, api_token=emu.token)
    base.update({option: value for option, value in IDENTITY.items() if option in options})
    since = emu.last_seq
    for option in numeric:
        for value in (float("inf"), float("-inf"), float("nan")):
            result = call_module(module, {**base, option: value})
            assert result.get("failed"), f"{name} {option}={value}: {result}"
            assert option in result["msg"], result
    assert write_calls(emu.requests(since)) == []


PLAYBOOK_CASES: list[tuple[str, dict[str, Any]]] = [
    ("dummy", {"resource_name": "pb-huge", "resource_realm": "dummy", "bodymessage": 7, "duration_ms": "x" * 100_000}),
    ("dummy", {"resource_name": "pb-nested", "resource_realm": {"a": [1, {"b": None}]}}),
    ("postgres", {"resource_name": "pb-ref", "resource_realm": "k8s-3.ext.nubes.ru", "s3_uid": INJECTIONS[5]}),
    ("postgres_user", {"parent_instance_uid": "../../etc/passwd", "username": "u", "password": "p"}),
    ("dns_record", {"resource_name": "pb-enum", "record_type": "{{ 7 * 7 }}"}),
    ("dummy", {"resource_name": "pb-core-crash", "resource_realm": "dummy", "map_fixed": False}),
    ("dummy", {"resource_name": "pb-core-int", "resource_realm": "dummy", "state_lock_timeout": [2**63, None, None]}),
    ("operation_info", {"operation_uid": SOME_UID, "wait_timeout": float("inf")}),
    ("s3_bucket", {"resource_name": "pb-empty-required", "bucket_name": "", "s3_user_uid": ""}),
    ("dummy", {"resource_name": "pb-choice", "resource_realm": "dummy; rm -rf /", "array_map_fixed_example": "x"}),
]


def test_hostile_arguments_in_playbooks(emu: EmulatorServer, tmp_path: Path) -> None:
    """P35-P38 at playbook level: hostile values reach the modules through ansible-playbook and end in a clean
    fail_json with a message; the emulator saw no write call."""
    fleet = Fleet(tmp_path, emu.endpoint, emu.token, size=1)
    since = emu.last_seq
    tasks = [{"name": f"case {i}", f"nubes.cloud.{module}": args} for i, (module, args) in enumerate(PLAYBOOK_CASES)]
    results = fleet.run(tasks).results["r0"]
    assert len(results) == len(PLAYBOOK_CASES)
    for (module, _args), result in zip(PLAYBOOK_CASES, results):
        assert result.get("failed"), f"{module}: {result}"
        assert result.get("msg") and "Traceback" not in result["msg"] and "MODULE FAILURE" not in result["msg"]
    assert write_calls(emu.requests(since)) == []


GOOD_UID = "00000000-0000-4000-8000-00000000abcd"
PASSWD = "../../etc/passwd"


def _one_record(name: str, record: Any) -> dict[str, Any]:
    """A state file holding `record` as the instance record of the dummy task named `name` (its own record)."""
    key = json.dumps(["default", "dummy", name], separators=(",", ":"))
    return {"version": 1, "instances": {key: record}}


DAMAGED_STATES: list[tuple[str, Callable[[str], Any], str]] = [
    ("instances-not-a-mapping", lambda _name: {"version": 1, "instances": "x"}, "`instances` must be a mapping"),
    ("top-level-list", lambda _name: [], "the top level must be a mapping"),
    ("record-not-a-mapping", lambda name: _one_record(name, "oops"), "must be a mapping, not a string"),
    ("unknown-version", lambda _name: {"version": 99}, "format version 99"),
    ("subresources-list", lambda _name: {"version": 1, "subresources": []}, "`subresources` must be a mapping"),
    (
        "uid-path",
        lambda name: _one_record(name, {"status": "present", "instance_uid": PASSWD}),
        f"instance_uid {PASSWD!r} is not a UUID",
    ),
    (
        "operation-uid",
        lambda name: _one_record(
            name,
            {"status": "present", "instance_uid": GOOD_UID, "operation": {"uid": PASSWD, "name": "modify"}},
        ),
        f"operation.uid {PASSWD!r} is not a UUID",
    ),
    (
        "field-type",
        lambda name: _one_record(name, {"status": "present", "instance_uid": GOOD_UID, "digests": "x"}),
        "digests must be a mapping",
    ),
]


def test_damaged_state_file_fails_before_any_request(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 24 (state file validated on read; beyond the seed, docs/dev/rules.md): a damaged state file (top level
    not a mapping, `instances`/`subresources` not mappings, a record not a mapping, a field of the wrong type, an
    unknown version, a recorded instance or operation uid that is not a UUID) fails the task with a message naming
    the file, what is wrong and the fix; the emulator's request log shows no request at all (so no write, and no
    `GET /instances/../../etc/passwd` with the token) and no instance of these names exists."""
    fleet = Fleet(tmp_path, emu.endpoint, emu.token, size=1)
    tasks = []
    for case, content, _message in DAMAGED_STATES:
        path = tmp_path / case / "state.json"
        path.parent.mkdir()
        path.write_text(json.dumps(content(case)), encoding="utf-8")
        args = {"resource_name": case, "resource_realm": "dummy", "state_path": str(path), "wait": False}
        tasks.append({"name": case, "nubes.cloud.dummy": args})
    since = emu.last_seq
    results = fleet.run(tasks).results["r0"]
    assert len(results) == len(DAMAGED_STATES)
    for (case, _content, message), result in zip(DAMAGED_STATES, results):
        msg = str(result.get("msg") or "")
        assert result.get("failed"), f"{case}: {result}"
        assert message in msg, f"{case}: {msg}"
        assert str(tmp_path / case / "state.json") in msg and "backup" in msg, f"{case}: {msg}"
        assert "Traceback" not in msg and "MODULE FAILURE" not in msg, f"{case}: {msg}"
    api_requests = [r for r in emu.requests(since) if "/_emulator/" not in r["path"]]
    assert api_requests == [], api_requests[:5]
    assert not [r for r in emu.requests(since) if "passwd" in r["path"]]
    assert not [i for i in emu.instances() if i["displayName"] in {case for case, _c, _m in DAMAGED_STATES}]


INT64_MAX = 2**63 - 1
REDIS_REALM = "k8s-3.ext.nubes.ru"
UNHOLDABLE_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("dummy", {"resource_name": "   ", "resource_realm": "dummy"}, "resource_name is blank"),
    (
        "dummy",
        {"resource_name": "pb-int64-duration", "resource_realm": "dummy", "duration_ms": 10**23},
        f"duration_ms must be an integer from 0 to {INT64_MAX}",
    ),
    (
        "redis",
        {"resource_name": "pb-int64-memory", "resource_realm": REDIS_REALM, "resource_memory": INT64_MAX + 1},
        f"resource_memory must be an integer from 0 to {INT64_MAX}",
    ),
    (
        "redis",
        {"resource_name": "pb-negative-memory", "resource_realm": REDIS_REALM, "resource_memory": -512},
        f"resource_memory must be an integer from 0 to {INT64_MAX}",
    ),
    (
        "dummy",
        {"resource_name": "pb-int64-sub-param", "resource_realm": "dummy", "map_fixed": {"field_b": 2**63}},
        f"map_fixed.field_b must be an integer from 0 to {INT64_MAX}",
    ),
]


def test_input_the_api_cannot_hold_fails_before_any_write(emu: EmulatorServer, tmp_path: Path) -> None:
    """Issue 24 (input checks before any write; beyond the seed, docs/dev/rules.md): a blank resource_name is
    refused like "", an integer outside int64 (the catalogue's type) and a negative size or count (an integer param
    whose API default is not negative) are refused naming the option and the range, map-fixed sub-params included;
    the emulator saw no write call and holds no instance of these names."""
    fleet = Fleet(tmp_path, emu.endpoint, emu.token, size=1)
    since = emu.last_seq
    tasks = [
        {"name": f"case {i}", f"nubes.cloud.{module}": {**args, "wait": False}}
        for i, (module, args, _m) in enumerate(UNHOLDABLE_INPUT)
    ]
    results = fleet.run(tasks).results["r0"]
    assert len(results) == len(UNHOLDABLE_INPUT)
    for (module, args, message), result in zip(UNHOLDABLE_INPUT, results):
        msg = str(result.get("msg") or "")
        assert result.get("failed"), f"{module} {args}: {result}"
        assert message in msg, f"{module} {args}: {msg}"
    assert write_calls(emu.requests(since)) == []
    names = {str(args["resource_name"]) for _module, args, _m in UNHOLDABLE_INPUT}
    assert not [i for i in emu.instances() if i["displayName"] in names]
