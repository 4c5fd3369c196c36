"""Hostile input: hypothesis-generated values for every option of every generated module end in success or a
clean fail_json message, never a traceback, and invalid input never causes a write call (the emulator's request
log proves it). Modules run in-process through their AnsibleModule entry point (`main()`)."""

from __future__ import annotations

import importlib
import itertools
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
def test_hostile_arguments(emu: EmulatorServer, tmp_path: Path, name: str, typed_only: bool) -> None:
    """P35-P38 (input checked before any write), P13: random hostile arguments for every option of `name`: any
    type (mostly stopped by the argument spec), or the declared type with hostile content (reaches the core's
    own checks and the API)."""
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
