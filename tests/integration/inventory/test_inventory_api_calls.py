"""How many deck-api calls nubes.cloud.nubes makes, and which: proved with the emulator's request log.

The rule (plugins/module_utils/inventory/reader.py): one paged `GET /instances` (per named service when
`services` is set), then `GET /instances/{uid}` only for selected, not deleted instances that pass `statuses`,
when `instance_details` is on (or the list gave no status). Also: both endpoint styles, the retry policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.integration.inventory.conftest import DUMMY, World
from tests.integration.inventory.runner import InventoryRun, InventoryRunner
from tests.integration.inventory.seed import Seed, Seeder
from tests.integration.inventory.test_inventory_hosts import DEFAULT, live_instances

BULK = 205  # three pages of 100


def detail_uids(run_calls: list[dict[str, object]]) -> set[str]:
    return {str(r["path"]).rsplit("/", 1)[-1] for r in run_calls}


def test_default_run_lists_once_and_reads_each_live_instance_once(world: World, default_run: InventoryRun) -> None:
    """Every service selected: one unfiltered list page (the world has < 100 instances), then one GET per live
    instance of a known service: none for the deleted one or the vc_org instance; nothing else at all."""
    run = default_run
    assert [r["query"] for r in run.list_calls] == [{"page": "1", "pageSize": "100"}]
    assert len(run.detail_calls) == len(live_instances(world))
    assert detail_uids(run.detail_calls) == set(live_instances(world))
    assert world.uids["gone"] not in detail_uids(run.detail_calls)
    assert world.uids["org"] not in detail_uids(run.detail_calls)
    assert len(run.requests) == 1 + len(live_instances(world))


def test_without_instance_details_only_the_list_is_read(world: World, inventory: InventoryRunner) -> None:
    """instance_details: false -> the paged list alone (the emulator's list items carry the status); hosts then
    have no params, outputs or ansible_host."""
    run = inventory.ok({**DEFAULT, "instance_details": False})
    assert len(run.requests) == 1
    assert len(run.list_calls) == 1
    assert {v["instance_uid"] for v in run.hostvars.values()} == set(live_instances(world))
    for host_vars in run.hostvars.values():
        assert not {"params", "outputs", "ansible_host"} & set(host_vars)
        assert host_vars["status"] and host_vars["status_raw"]


def test_statuses_filter_reads_only_matching_instances(world: World, inventory: InventoryRunner) -> None:
    """statuses: [suspended] -> one list call and a single detail read, of the suspended instance."""
    run = inventory.ok({**DEFAULT, "statuses": ["suspended"]})
    assert {v["instance_uid"] for v in run.hostvars.values()} == {world.uids["sleepy"]}
    assert detail_uids(run.detail_calls) == {world.uids["sleepy"]}
    assert len(run.requests) == 2
    run = inventory.ok({**DEFAULT, "statuses": ["failed", "not_created"]})
    assert {v["instance_uid"] for v in run.hostvars.values()} == {world.uids["broken"], world.uids["placeholder"]}


def test_services_filter_lists_per_service(world: World, inventory: InventoryRunner) -> None:
    """services by name, API short name or id -> one list per service with serviceId, and only their
    instances are read."""
    run = inventory.ok({**DEFAULT, "services": ["postgres", "91", "s3"]})
    assert sorted(r["query"]["serviceId"] for r in run.list_calls) == ["12", "90", "91"]
    expected = {u for u, i in live_instances(world).items() if i["serviceId"] in (12, 90, 91)}
    assert {v["instance_uid"] for v in run.hostvars.values()} == expected
    assert detail_uids(run.detail_calls) == expected
    assert len(run.requests) == 3 + len(expected)
    short = inventory.ok({**DEFAULT, "services": ["dummy"], "instance_details": False})
    assert {v["service"] for v in short.hostvars.values()} == {"dummy"}
    assert [r["query"]["serviceId"] for r in short.list_calls] == ["1"]


def test_legacy_endpoint_style_gives_the_same_inventory(
    world: World, inventory: InventoryRunner, default_run: InventoryRun
) -> None:
    """P9/P10: the legacy proxy endpoint (index.cfm?endpoint=/path) and the gateway give the same hosts and
    vars with the same number of calls; the log shows the legacy form."""
    gateway = default_run
    legacy = inventory.ok(DEFAULT, env={"NUBES_API_ENDPOINT": world.emu.legacy_endpoint})
    assert legacy.hostvars == gateway.hostvars
    assert {r["form"] for r in legacy.requests} == {"legacy"}
    assert {r["form"] for r in gateway.requests} == {"gateway"}
    assert len(legacy.requests) == len(gateway.requests)


def test_transient_faults_are_retried_like_the_modules(world: World, inventory: InventoryRunner) -> None:
    """P34: 503 on the list twice and a transient 401 on a detail read are retried (the modules' policy);
    the inventory is complete."""
    world.emu.set_faults(
        [
            {"kind": "http", "status": 503, "path": "/instances", "method": "GET", "count": 2},
            {"kind": "unauthorized", "path": "/instances/*", "method": "GET", "count": 1},
        ]
    )
    run = inventory.ok(DEFAULT)
    assert {v["instance_uid"] for v in run.hostvars.values()} == set(live_instances(world))
    assert [r["status"] for r in run.list_calls] == [503, 503, 200]
    assert sorted(r["status"] for r in run.detail_calls).count(401) == 1
    assert len(run.detail_calls) == len(live_instances(world)) + 1


def test_concurrency_one_reads_the_same(world: World, inventory: InventoryRunner, default_run: InventoryRun) -> None:
    """Detail reads one at a time give the same inventory as the default 8 at a time."""
    assert inventory.ok({**DEFAULT, "concurrency": 1}).hostvars == default_run.hostvars


@pytest.fixture(scope="module")
def bulk_emulator() -> Iterator[EmulatorServer]:
    """An emulator holding BULK running dummy instances and nothing else."""
    with EmulatorServer(seed=11, op_duration=0.05) as emu:
        with Seeder(emu.endpoint, emu.token) as seeder:
            seeder.seed([Seed(DUMMY, f"bulk-{n:03d}", {"resourceRealm": "dummy"}) for n in range(BULK)])
        yield emu


def test_paging_follows_total(bulk_emulator: EmulatorServer, tmp_path: Path) -> None:
    """205 instances -> pages 1, 2 and 3 of 100 (the answer's `total` says when to stop), 205 hosts."""
    inventory = InventoryRunner(bulk_emulator, tmp_path)
    run = inventory.ok({**DEFAULT, "instance_details": False})
    assert [r["query"]["page"] for r in run.list_calls] == ["1", "2", "3"]
    assert len(run.requests) == 3
    assert run.hosts == {f"bulk-{n:03d}" for n in range(BULK)}
    run = inventory.ok(DEFAULT)
    assert len(run.list_calls) == 3
    assert len(run.detail_calls) == BULK
    assert len(detail_uids(run.detail_calls)) == BULK
