"""Fixtures of the inventory tests: an emulator of their own holding a known set of instances.

The shared session emulator collects the instances of every other test, and an inventory lists all of them,
so these tests start their own EmulatorServer (127.0.0.1, free port) and seed it once through the deck-api.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.emulator import EmulatorServer
from tests.integration.inventory.runner import InventoryRun, InventoryRunner
from tests.integration.inventory.seed import Seed, Seeder

S3, POSTGRES, REDIS, DUMMY, KAFKA, PGADMIN, VC_ORG = 12, 90, 91, 1, 116, 96, 19
PG_REALM = "k8s-3.ext.nubes.ru"
PGADMIN_PASSWORD = "pgadmin-Secret-0815"  # a secret param: must never reach the inventory


@dataclass
class World:
    """The emulator and the uids of the seeded instances, by a short key."""

    emu: EmulatorServer
    uids: dict[str, str]

    def secrets(self) -> list[str]:
        """Every secret output value the emulator generated (state.out of secret outputs)."""
        found: list[str] = [PGADMIN_PASSWORD]
        for inst in self.emu.instances():
            out = (inst.get("state") or {}).get("out") or {}
            for key in ("adminPass", "standbyPass", "secretKey", "password"):
                if out.get(key):
                    found.append(str(out[key]))
        return found


# Kafka's resources are required without a default in the live catalogue (issue 14).
KAFKA_RESOURCES = {"resourceInstances": 1, "resourceMemory": 2048, "resourceCPU": 1000, "resourceDisk": 10}


def seed_world(emu: EmulatorServer) -> dict[str, str]:
    """Instances of several services in every status a host can have, plus ones that must never be hosts."""
    uids: dict[str, str] = {}
    with Seeder(emu.endpoint, emu.token) as seeder:
        s3 = Seed(S3, "inv-s3", {"resourceRealm": "s3.nubes.ru", "displayName": "inv-s3"})
        seeder.seed([s3])
        seeds = {
            "orders": Seed(POSTGRES, "orders db", {"resourceRealm": PG_REALM, "s3Uid": s3.uid}),
            "reports": Seed(POSTGRES, "reports,db:[v2]", {"resourceRealm": PG_REALM, "s3Uid": s3.uid}),
            "cache_old": Seed(REDIS, "cache", {"resourceRealm": PG_REALM}),
            "cache_new": Seed(REDIS, "cache", {"resourceRealm": PG_REALM}),
            "sleepy": Seed(REDIS, "sleepy", {"resourceRealm": PG_REALM}, ("create", "suspend")),
            "gone": Seed(REDIS, "gone", {"resourceRealm": PG_REALM}, ("create", "delete")),
            "localhost": Seed(REDIS, "localhost", {"resourceRealm": PG_REALM}),
            "broken": Seed(DUMMY, "broken", {"resourceRealm": "dummy", "failAtStart": True}),
            "cyrillic": Seed(DUMMY, "База-1", {"resourceRealm": "dummy"}),
            "placeholder": Seed(DUMMY, "placeholder", operations=()),
            "org": Seed(VC_ORG, "org-1"),
            "pgadmin": Seed(
                PGADMIN,
                "admin-ui",
                {"resourceRealm": PG_REALM, "login": "dba@example.test", "password": PGADMIN_PASSWORD},
            ),
        }
        seeder.seed(list(seeds.values()))
        emu.configure(durations={"kafka.create": 86400})
        slow = Seed(KAFKA, "slow-kafka", {"resourceRealm": PG_REALM, **KAFKA_RESOURCES})
        seeder.seed([slow], wait=False)
    uids["s3"] = s3.uid
    uids["slow"] = slow.uid
    uids.update({key: seed.uid for key, seed in seeds.items()})
    return uids


@pytest.fixture(scope="session")
def inventory_world() -> Iterator[World]:
    with EmulatorServer(seed=7, op_duration=0.05) as emu:
        yield World(emu, seed_world(emu))


@pytest.fixture
def world(inventory_world: World) -> Iterator[World]:
    """The seeded emulator with no fault rules and an empty request log."""
    inventory_world.emu.clear_faults()
    inventory_world.emu.clear_requests()
    yield inventory_world
    inventory_world.emu.clear_faults()


@pytest.fixture
def inventory(world: World, tmp_path: Path) -> InventoryRunner:
    return InventoryRunner(world.emu, tmp_path)


@pytest.fixture(scope="session")
def default_run(inventory_world: World, tmp_path_factory: pytest.TempPathFactory) -> InventoryRun:
    """One `ansible-inventory --list` of `plugin: nubes.cloud.nubes` alone (every default), with the requests it
    made; shared by the tests that only read its result."""
    inventory_world.emu.clear_faults()
    runner = InventoryRunner(inventory_world.emu, tmp_path_factory.mktemp("default-run"))
    return runner.ok({"plugin": "nubes.cloud.nubes"})
