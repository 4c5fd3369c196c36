"""The reconciliation check: the emulator's instances against the state store (nothing created is untracked).

Rules checked (P42, beyond: "never loses track of what it created"):
- no two live instances of one service carry the same display name (no duplicate was created);
- every live instance the run created (display name in `names`, placeholders included) has a state record
  holding its uid, under the resource name it was created for.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Union

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateBackend, StateStore
from tests.emulator import EmulatorServer

# What a failure message must offer the user: something to do (errors tell what failed and what to do).
ACTIONABLE = re.compile(
    r"re-?run|retry|check |set |refresh|wait|contact|remove|use |fix|give|adopt|delete|increase|look",
    re.IGNORECASE,
)


def live_instances(emu: EmulatorServer, service_id: int, names: Iterable[str]) -> list[dict[str, Any]]:
    wanted = set(names)
    return [
        inst
        for inst in emu.instances()
        if int(inst.get("serviceId", 0)) == service_id
        and inst.get("displayName") in wanted
        and not inst.get("isDeleted")
    ]


State = Union[Path, StateBackend]


def state_records(state: State, service: str, workspace: str = "default") -> dict[str, dict[str, Any]]:
    """resource_name -> record of the service's instances in the state (a state file, or any backend)."""
    if isinstance(state, Path):
        if not state.exists():
            return {}
        state = FileBackend(str(state))
    store = StateStore(state, workspace)
    return {
        key[2]: record for key, record in store.backend.items("instances") if key[0] == workspace and key[1] == service
    }


def assert_reconciled(
    emu: EmulatorServer, state: State, service_id: int, service: str, names: Iterable[str]
) -> list[dict[str, Any]]:
    """No duplicate live instance, and every live instance is tracked by a record with its uid; returns them."""
    names = list(names)
    live = live_instances(emu, service_id, names)
    counts = Counter(inst["displayName"] for inst in live)
    duplicates = {name: n for name, n in counts.items() if n > 1}
    assert not duplicates, f"duplicate instances in the emulator: {duplicates}"
    records = state_records(state, service)
    for inst in live:
        record = records.get(inst["displayName"])
        assert record is not None, f"untracked instance {inst['instanceUid']} ({inst['displayName']}): no state record"
        assert str(record.get("instance_uid", "")).lower() == inst["instanceUid"].lower(), (
            f"state record of {inst['displayName']} holds {record.get('instance_uid')}, "
            f"the emulator has {inst['instanceUid']}"
        )
    return live


def assert_clear_failure(result: dict[str, Any]) -> None:
    """A failed task ends in fail_json with a message that says what failed and what to do; no traceback."""
    message = str(result.get("msg") or "")
    assert message, f"failed without a message: {result}"
    # ansible-core adds `exception: (traceback unavailable)` to every fail_json; a crash carries a real traceback
    assert "Traceback" not in message + str(result.get("exception", "")), f"a traceback, not a message: {result}"
    assert "MODULE FAILURE" not in message, f"the module crashed: {result}"
    assert ACTIONABLE.search(message), f"the message does not say what to do: {message!r}"
