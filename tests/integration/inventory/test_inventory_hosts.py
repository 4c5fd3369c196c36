"""Hosts, host names, host variables and default groups of nubes.cloud.nubes, read with the real
`ansible-inventory` and checked against the emulator's own view of every instance (admin API)."""

from __future__ import annotations

import subprocess
from typing import Any

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import as_text, normalize_status
from tests.integration.inventory.conftest import World
from tests.integration.inventory.runner import BIN, InventoryRun, InventoryRunner

DEFAULT = {"plugin": "nubes.cloud.nubes"}


def live_instances(world: World) -> dict[str, dict[str, Any]]:
    """The emulator's instances that must be hosts: not deleted, of a service the collection has a module for."""
    known = set(load_catalogue().by_id)
    return {i["instanceUid"]: i for i in world.emu.instances() if not i["isDeleted"] and i["serviceId"] in known}


def test_one_host_per_live_instance_of_the_collections_services(world: World, default_run: InventoryRun) -> None:
    """Every live instance of a known service is a host; deleted ones and unknown services (vc_org 19) are not."""
    run = default_run
    uids = {v["instance_uid"] for v in run.hostvars.values()}
    assert uids == set(live_instances(world))
    assert len(run.hosts) == len(uids)
    assert world.uids["gone"] not in uids
    assert world.uids["org"] not in uids


def test_host_vars_are_the_live_instance_without_secrets(world: World, default_run: InventoryRun) -> None:
    """instance_uid, resource_name, service, status, status_raw, resource_realm, params and outputs equal what
    the emulator holds; secret params and outputs are left out."""
    run = default_run
    catalogue = load_catalogue()
    for uid, live in live_instances(world).items():
        entry = catalogue.by_id[live["serviceId"]]
        host_vars = run.hostvars[run.host_of(uid)]
        state = live.get("state") or {}
        assert host_vars["resource_name"] == live["displayName"]
        assert host_vars["service"] == entry.name
        assert host_vars["service_id"] == live["serviceId"]
        assert host_vars["status_raw"] == live["explainedStatus"]
        assert host_vars["status"] == normalize_status(live["explainedStatus"])
        assert host_vars["resource_realm"] == live["resourceRealm"]
        assert host_vars["params"] == entry.params_view({k: as_text(v) for k, v in (state.get("params") or {}).items()})
        assert not set(host_vars["params"]) & {p.option for p in entry.converter.params if p.secret}
        public = set(entry.public_outputs)
        assert set(host_vars["outputs"]) <= public
        for code, value in host_vars["outputs"].items():
            node: Any = state.get("out")
            for part in code.split("."):
                node = node[part]
            assert value == node
    statuses = {
        key: run.hostvars[run.host_of(world.uids[key])]["status"]
        for key in ("orders", "sleepy", "broken", "placeholder", "slow")
    }
    assert statuses == {
        "orders": "running",
        "sleepy": "suspended",
        "broken": "failed",
        "placeholder": "not_created",
        "slow": "creating",
    }
    for secret in world.secrets():
        assert secret not in run.stdout
    assert world.emu.token not in run.stdout + run.stderr


def test_secrets_never_appear_even_verbose(world: World, inventory: InventoryRunner) -> None:
    """-vvvv output (stdout and stderr) holds neither the token nor any secret output value."""
    run = inventory.ok(DEFAULT, "-vvvv")
    assert world.secrets()
    for secret in [*world.secrets(), world.emu.token]:
        assert secret not in run.stdout
        assert secret not in run.stderr


def test_hostnames_safe_unique_and_stable_for_the_oldest(world: World, default_run: InventoryRun) -> None:
    """Display names become host names: unsafe characters -> `_`, localhost -> uid, a duplicate name keeps the
    oldest instance's host name and suffixes the later one with 8 hex digits of its uid (with a warning)."""
    run = default_run
    uids = world.uids
    assert run.host_of(uids["orders"]) == "orders_db"
    assert run.host_of(uids["reports"]) == "reports_db__v2_"
    assert run.host_of(uids["cyrillic"]) == "База-1"
    assert run.host_of(uids["localhost"]) == uids["localhost"]
    assert run.host_of(uids["cache_old"]) == "cache"
    assert run.host_of(uids["cache_new"]) == "cache-" + uids["cache_new"][:8].lower()
    assert "several instances share the host name cache" in " ".join(run.stderr.split())
    assert "localhost" not in run.hosts


def test_hostnames_work_as_host_patterns(world: World, inventory: InventoryRunner) -> None:
    """The sanitised names select exactly their host in `--limit` patterns (commas, colons and brackets of
    the display name would otherwise split or range the pattern)."""
    path = inventory.write(DEFAULT)
    proc = subprocess.run(
        [str(BIN / "ansible"), "all", "-i", str(path), "--list-hosts", "--limit", "reports_db__v2_,База-1,cache"],
        env=inventory.env(ANSIBLE_INVENTORY_UNPARSED_FAILED="true"),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    listed = {line.strip() for line in proc.stdout.splitlines()[1:] if line.strip()}
    assert listed == {"reports_db__v2_", "База-1", "cache"}


def test_ansible_host_from_the_first_address_output(world: World, default_run: InventoryRun) -> None:
    """ansible_host = the first public address output with a value: postgres externalConnect.master.fqdn;
    services without an address output (redis) get none."""
    run = default_run
    live = live_instances(world)
    orders = run.hostvars[run.host_of(world.uids["orders"])]
    assert orders["ansible_host"] == live[world.uids["orders"]]["state"]["out"]["externalConnect"]["master"]["fqdn"]
    assert "ansible_host" not in run.hostvars[run.host_of(world.uids["cache_old"])]


def test_ansible_host_outputs_choose_per_service(world: World, inventory: InventoryRunner) -> None:
    """ansible_host_outputs names the output per service (by name or id); an empty list sets none."""
    live = live_instances(world)
    run = inventory.ok({**DEFAULT, "ansible_host_outputs": {"90": ["externalConnect.slave.ip", "adminUser"]}})
    orders = run.hostvars[run.host_of(world.uids["orders"])]
    assert orders["ansible_host"] == live[world.uids["orders"]]["state"]["out"]["externalConnect"]["slave"]["ip"]
    run = inventory.ok({**DEFAULT, "ansible_host_outputs": {"postgres": []}})
    assert "ansible_host" not in run.hostvars[run.host_of(world.uids["orders"])]


def test_default_groups_by_service_and_status(
    world: World, inventory: InventoryRunner, default_run: InventoryRun
) -> None:
    """service_<service> and status_<status> hold exactly the matching hosts; default_groups: false drops them."""
    run = default_run
    for service in ("postgres", "redis", "dummy", "s3", "kafka"):
        expected = {h for h, v in run.hostvars.items() if v["service"] == service}
        assert expected
        assert run.group(f"service_{service}") == expected
    for status in ("running", "suspended", "failed", "not_created", "creating"):
        expected = {h for h, v in run.hostvars.items() if v["status"] == status}
        assert expected
        assert run.group(f"status_{status}") == expected
    plain_run = inventory.ok({**DEFAULT, "default_groups": False, "instance_details": False})
    assert not {g for g in plain_run.groups if g.startswith(("service_", "status_"))}
    assert plain_run.hosts == run.hosts
    assert {h: v["status"] for h, v in plain_run.hostvars.items()} == {h: v["status"] for h, v in run.hostvars.items()}


def test_graph_shows_the_groups(world: World, inventory: InventoryRunner) -> None:
    """`ansible-inventory --graph` draws the default groups with their hosts."""
    run = inventory.run(DEFAULT, graph=True, env={"ANSIBLE_INVENTORY_UNPARSED_FAILED": "true"})
    assert run.rc == 0, run.stderr
    lines = [line.strip() for line in run.stdout.splitlines()]
    at = lines.index("|--@service_postgres:")
    assert {lines[at + 1], lines[at + 2]} == {"|  |--orders_db", "|  |--reports_db__v2_"}
    assert "|--@status_suspended:" in lines
    assert "|  |--sleepy" in lines
