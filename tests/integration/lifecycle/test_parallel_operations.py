"""Operations in parallel: `wait: false` on the cloud modules and one `nubes.cloud.operation_info` task that waits
(real ansible-playbook against the emulator; issue 18).

What is proved is read from the emulator: its own operation timestamps (dtSubmit, dtFinish) show that the operations
ran side by side, its instances that nothing was created twice, its request log that a re-run started nothing.
No wall-clock assertion.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ansible_collections.nubes.cloud.plugins.modules import postgres
from tests.emulator import EmulatorServer
from tests.integration.lifecycle import deck
from tests.integration.lifecycle.conftest import REALM, in_process, unique
from tests.integration.modules.playbook import BIN, REPO, PlaybookRunner, write_calls

pytestmark = pytest.mark.slow

# Long enough that three task starts fit into one create even on a loaded machine (a task takes 1-5 s here), so
# the overlap shows in the timestamps; the test's own wall time is about this plus the task starts.
CREATE_SECONDS = 15.0
SERVICES = {"redis": 91, "s3": 12, "flask": 89}
EXAMPLE = REPO / "examples" / "parallel-create.yml"


def stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f")


def three_creates(prefix: str, wait: bool = False) -> list[dict[str, Any]]:
    """A cache, a storage and an app: independent of each other (nothing references another)."""
    args = {"resource_realm": REALM, "wait": wait}
    return [
        {"name": "cache", "nubes.cloud.redis": {"resource_name": f"{prefix}-cache", **args}},
        {"name": "files", "nubes.cloud.s3": {"resource_name": f"{prefix}-files", "display_name": prefix, **args}},
        {
            "name": "app",
            "nubes.cloud.flask": {
                "resource_name": f"{prefix}-app",
                "domain": f"{prefix}-app",
                "git_path": "https://git.example.org/app.git",
                **args,
            },
        },
    ]


WAIT_FOR_ALL = {"name": "wait", "nubes.cloud.operation_info": {"operations": "{{ [r0, r1, r2] }}", "wait": True}}


def creates_of(emu: EmulatorServer, prefix: str) -> list[dict[str, Any]]:
    """The emulator's create operations of the three instances."""
    return [o for o in emu.operations() if o["operation"] == "create" and o["displayName"].startswith(prefix + "-")]


def live(emu: EmulatorServer, prefix: str) -> dict[str, list[dict[str, Any]]]:
    names = {"redis": "cache", "s3": "files", "flask": "app"}
    return {svc: deck.live_named(emu, sid, f"{prefix}-{names[svc]}") for svc, sid in SERVICES.items()}


def test_three_creates_run_side_by_side_and_one_task_waits(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Three independent creates with wait=false, then one operation_info task: the emulator's timestamps show all
    three operations submitted before the first one finished (they overlapped), the wait task returns them all
    succeeded and the instances are running. The same play again starts nothing and changes nothing (P16)."""
    emu.configure(durations={"create": CREATE_SECONDS})
    prefix = unique("par")
    cache_, files_, app_, waited = playbook.run([*three_creates(prefix), WAIT_FOR_ALL])
    for created in (cache_, files_, app_):
        assert not created.get("failed"), created.get("msg")
        assert created["changed"] and created["operation"]["finished"] is False and created["status"] == "creating"
    assert not waited.get("failed"), waited.get("msg")
    assert waited["finished"] is True and [o["status"] for o in waited["operations"]] == ["succeeded"] * 3
    assert [o["uid"] for o in waited["operations"]] == [r["operation"]["uid"] for r in (cache_, files_, app_)]
    ops = creates_of(emu, prefix)
    assert len(ops) == 3 and all(o["isSuccessful"] is True for o in ops)
    assert max(stamp(o["dtSubmit"]) for o in ops) < min(stamp(o["dtFinish"]) for o in ops)  # side by side
    instances = live(emu, prefix)
    assert all(len(found) == 1 and found[0]["explainedStatus"] == "running" for found in instances.values())

    seq = emu.last_seq
    again = playbook.run([*three_creates(prefix), WAIT_FOR_ALL])
    assert [r["changed"] for r in again] == [False] * 4 and write_calls(emu.requests(since=seq)) == []
    assert [r["decision"] for r in again[:3]] == ["none"] * 3 and again[3]["operations"] == []


def test_rerun_while_in_flight_starts_no_second_operation(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """P27/P16: the same wait=false task run again while its create runs reports that operation (in_flight, not
    changed) and writes nothing; with wait=true it waits for it, again writing nothing; one instance, one create."""
    emu.configure(durations={"s3.create": 2.0})
    name = unique("par-again")
    task = {"resource_name": name, "display_name": name, "resource_realm": REALM}
    emu.clock.freeze()  # the operation stays in flight, however long the playbooks take to start
    first = playbook.one("s3", {**task, "wait": False})
    assert first["operation"]["finished"] is False
    seq = emu.last_seq
    reported = playbook.one("s3", {**task, "wait": False})
    assert reported["decision"] == "in_flight" and reported["changed"] is False
    assert reported["operation"]["uid"] == first["operation"]["uid"] and reported["operations"] == []
    assert write_calls(emu.requests(since=seq)) == []
    assert deck.live_named(emu, 12, name)[0]["explainedStatus"] == "creating"
    emu.clock.unfreeze()
    waited = playbook.one("s3", task)
    assert waited["changed"] is False and waited["status"] == "running"
    assert write_calls(emu.requests(since=seq)) == []
    assert len(deck.live_named(emu, 12, name)) == 1
    assert len([o for o in emu.operations() if o["displayName"] == name and o["operation"] == "create"]) == 1


def test_a_failed_operation_fails_the_wait_task_with_its_error_text(
    emu: EmulatorServer, playbook: PlaybookRunner
) -> None:
    """Two dummy creates started in a loop with wait=false, one of them failing in the cloud: the operation_info task
    given the loop's registered result fails with that operation's own error text and reports both."""
    prefix = unique("par-fail")
    loop = {
        "name": "dummies",
        "nubes.cloud.dummy": {
            "resource_name": "{{ item.name }}",
            "resource_realm": "dummy",
            "duration_ms": 1500,
            "fail_in_progress": "{{ item.fail }}",
            "where_fail": 2,
            "wait": False,
        },
        "loop": [{"name": f"{prefix}-ok", "fail": False}, {"name": f"{prefix}-bad", "fail": True}],
    }
    wait = {"name": "wait", "nubes.cloud.operation_info": {"operations": "{{ r0 }}", "wait": True}}
    started, waited = playbook.run([loop, wait])
    assert [item["operation"]["finished"] for item in started["results"]] == [False, False]
    bad = next(o for o in emu.operations() if o["displayName"] == f"{prefix}-bad" and o["operation"] == "create")
    assert bad["isSuccessful"] is False and bad["errorLog"]
    assert waited.get("failed") and bad["errorLog"] in waited["msg"] and bad["instanceOperationUid"] in waited["msg"]
    assert [o["status"] for o in waited["operations"]] == ["succeeded", "failed"]
    assert waited["operations"][1]["error_log"] == bad["errorLog"]


def test_check_mode_starts_nothing_and_gives_nothing_to_wait_for(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Check mode: the wait=false tasks plan their creates without any write; operation_info gets results without an
    operation and reports none."""
    prefix = unique("par-check")
    seq = emu.last_seq
    *planned, waited = playbook.run([*three_creates(prefix), WAIT_FOR_ALL], check=True)
    assert [r["operations"] for r in planned] == [["create"]] * 3 and all(r["changed"] for r in planned)
    assert not waited.get("failed") and waited["operations"] == [] and waited["finished"] is True
    assert write_calls(emu.requests(since=seq)) == []


def test_example_playbook_twice_leaves_nothing_running(tmp_path: Path) -> None:
    """examples/parallel-create.yml creates and deletes its services side by side; run twice against one emulator it
    passes both times without a warning, and the emulator holds no live instance afterwards."""
    with EmulatorServer(seed=11, op_duration=0.2) as emu:
        emu.configure(durations={"create": 2.0})
        runner = PlaybookRunner(tmp_path, emu.endpoint, emu.token)
        interpreter = f"ansible_python_interpreter={sys.executable}"
        command = [str(BIN / "ansible-playbook"), "-i", "localhost,", "-e", interpreter, str(EXAMPLE)]
        for attempt in (1, 2):
            proc = subprocess.run(
                command, cwd=tmp_path, env=runner.env(), capture_output=True, text=True, check=False, timeout=600
            )
            assert proc.returncode == 0, f"run {attempt}:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
            assert "WARNING" not in proc.stderr, proc.stderr
        creates = [o for o in emu.operations() if o["operation"] == "create"]
        assert len(creates) == 8 and all(o["isSuccessful"] is True for o in creates)
        assert [i["displayName"] for i in emu.instances() if not i.get("isDeleted")] == []


def test_subresource_wait_false_in_flight_then_waited(
    emu: EmulatorServer, playbook: PlaybookRunner, tmp_path: Path, s3_uids: list[str]
) -> None:
    """Sub-resource modules too (P17, P27): create_user with wait=false returns once it runs; the same task again
    reports it in flight and writes nothing; operation_info given its uid waits; one user, one create_user."""
    parent = in_process(
        emu, postgres, tmp_path / "parent.json", resource_name=unique("par-pg"), s3_uid=s3_uids[0], resource_realm=REALM
    )["instance_uid"]
    user = {"parent_instance_uid": parent, "username": "app", "password": "Parallel-Pass-1", "wait": False}
    emu.clock.freeze()  # the operation stays in flight while both tasks run
    try:
        seq = emu.last_seq
        started, again = playbook.run([{"nubes.cloud.postgres_user": user}] * 2)
        writes = [(w["method"], w["path"]) for w in write_calls(emu.requests(since=seq))]
    finally:
        emu.clock.unfreeze()
    assert started["operations"] == ["create_user"] and started["operation"]["finished"] is False
    assert again["decision"] == "in_flight" and again["changed"] is False
    assert again["operation"]["uid"] == started["operation"]["uid"]
    runs = [w for w in writes if w[1].endswith("/run")]
    assert [w for w in writes if w[1] == "/instanceOperations"] == [("POST", "/instanceOperations")] and len(runs) == 1
    waited = playbook.one("operation_info", {"operation_uid": started["operation"]["uid"], "wait": True})
    assert waited["operations"][0]["status"] == "succeeded" and waited["operations"][0]["instance_uid"] == parent
    users = [u for u in deck.instance(emu, parent)["state"]["subresources"]["user"] if u["username"] == "app"]
    assert len(users) == 1
    ops = [o for o in emu.operations() if o["instanceUid"].lower() == parent.lower()]
    assert [o["operation"] for o in ops].count("create_user") == 1


def test_operation_info_takes_the_groups_module_defaults(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """operation_info is in the `nubes` action group: module_defaults of group/nubes.cloud.nubes reach it (here an
    api_endpoint in the legacy proxy form, which the emulator's request log tells apart from the gateway form the
    environment names)."""
    name = unique("par-group")
    started = playbook.one("s3", {"resource_name": name, "display_name": name, "resource_realm": REALM, "wait": False})
    uid = started["operation"]["uid"]
    seq = emu.last_seq
    task = {
        "nubes.cloud.operation_info": {"operation_uid": uid, "wait": True},
        "module_defaults": {"group/nubes.cloud.nubes": {"api_endpoint": emu.legacy_endpoint, "wait_timeout": 120}},
    }
    (waited,) = playbook.run([task])
    assert not waited.get("failed"), waited.get("msg")
    reads = [r for r in emu.requests(since=seq) if uid in r["path"].lower()]
    assert reads and {r["form"] for r in reads} == {"legacy"}
