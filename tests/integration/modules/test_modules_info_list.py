"""`<service>_info` lists (issue 16): without resource_name and instance_uid it returns the service's instances with
the fields of the single view, filtered by status (and resource_name), at one list call per 100 instances plus one
read per instance listed. Real ansible-playbook against the session emulator; checked against the emulator's
admin API."""

from __future__ import annotations

import math
import uuid

import pytest

from tests.emulator import EmulatorServer
from tests.integration.modules.playbook import PlaybookRunner, api_gets, write_calls

REALM = "s3.nubes.ru"
S3_SERVICE_ID = 12
PAGE_SIZE = 100
pytestmark = pytest.mark.slow


def test_info_lists_instances_with_status_filter(emu: EmulatorServer, playbook: PlaybookRunner) -> None:
    """Every live instance of the service (deleted ones only on request), each with the fields and values of the
    single view; the API calls are the paged list plus one read per instance listed; nothing is written."""
    prefix = f"lst-{uuid.uuid4().hex[:8]}"
    names = [f"{prefix}-a", f"{prefix}-b", f"{prefix}-gone"]
    made = playbook.run(
        [{"name": n, "nubes.cloud.s3": {"resource_name": n, "display_name": n, "resource_realm": REALM}} for n in names]
        + [{"name": "delete one", "nubes.cloud.s3": {"resource_name": names[2], "state": "deleted"}}]
    )
    assert not [r.get("msg") for r in made if r.get("failed")]
    uids = {n: r["instance_uid"] for n, r in zip(names, made)}

    seq = emu.last_seq
    listed, deleted, single, named = playbook.run(
        [
            {"name": "list", "nubes.cloud.s3_info": {}},
            {"name": "deleted ones", "nubes.cloud.s3_info": {"status": ["deleted"]}},
            {"name": "one", "nubes.cloud.s3_info": {"resource_name": names[0]}},
            {"name": "by name", "nubes.cloud.s3_info": {"resource_name": names[1], "status": ["running"]}},
        ]
    )
    log = emu.requests(since=seq)
    assert write_calls(log) == []
    mine = {i["resource_name"]: i for i in listed["instances"] if i["resource_name"].startswith(prefix)}
    assert set(mine) == set(names[:2]) and listed["exists"] and not listed["changed"]
    assert mine[names[0]] == single["instance"]  # the same fields, the same values
    live = {i["instanceUid"]: i for i in emu.instances() if int(i["serviceId"]) == S3_SERVICE_ID}
    assert {i["instance_uid"] for i in listed["instances"]} == {u for u, i in live.items() if not i["isDeleted"]}
    assert mine[names[1]]["outputs"]["accessKey"] == live[uids[names[1]]]["state"]["out"]["accessKey"]
    assert uids[names[2]] in {i["instance_uid"] for i in deleted["instances"]}
    assert all(i["status"] == "deleted" for i in deleted["instances"])
    assert [i["instance_uid"] for i in named["instances"]] == [uids[names[1]]]

    pages = math.ceil(len(live) / PAGE_SIZE)
    lists = [r for r in api_gets(log) if r["path"] == "/instances"]
    reads = [r for r in api_gets(log) if r["path"].startswith("/instances/")]
    assert len(lists) == 2 * pages  # the two listings; the named ones are recorded, so read by uid, never listed
    listed_reads = len(listed["instances"]) + len(deleted["instances"])
    assert len(reads) == listed_reads + 2, (len(reads), listed_reads)  # + the two named reads
