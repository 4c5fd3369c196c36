"""The standard `constructed` features of nubes.cloud.nubes: compose, groups, keyed_groups, strict, and the
`hostname` template."""

from __future__ import annotations

from tests.integration.inventory.conftest import PG_REALM, World
from tests.integration.inventory.runner import InventoryRunner
from tests.integration.inventory.test_inventory_hosts import DEFAULT, live_instances


def test_compose_sets_vars_from_outputs_and_params(world: World, inventory: InventoryRunner) -> None:
    """compose builds new host vars from outputs/params and may override ansible_host."""
    run = inventory.ok(
        {
            **DEFAULT,
            "services": ["postgres"],
            "compose": {
                "pg_dsn": "'postgresql://' ~ outputs['externalConnect.master.fqdn'] ~ ':5432/postgres'",
                "ansible_host": "outputs['externalConnect.master.ip']",
                "cpu_cores": "params.resource_cpu / 1000",
            },
        }
    )
    out = live_instances(world)[world.uids["orders"]]["state"]["out"]["externalConnect"]["master"]
    orders = run.hostvars["orders_db"]
    assert orders["pg_dsn"] == f"postgresql://{out['fqdn']}:5432/postgres"
    assert orders["ansible_host"] == out["ip"]
    assert orders["cpu_cores"] == 0.5


def test_groups_and_keyed_groups(world: World, inventory: InventoryRunner) -> None:
    """groups (conditionals) and keyed_groups (realm, status) hold exactly the hosts they select."""
    run = inventory.ok(
        {
            **DEFAULT,
            "groups": {"small": "params.resource_cpu | default(9999) <= 500"},
            "keyed_groups": [
                {"key": "resource_realm", "prefix": "realm"},
                {"key": "status", "prefix": "st", "separator": "-"},
            ],
        }
    )
    small = {h for h, v in run.hostvars.items() if v.get("params", {}).get("resource_cpu", 9999) <= 500}
    assert {"orders_db", "reports_db__v2_"} <= small
    assert run.group("small") == small
    in_realm = {h for h, v in run.hostvars.items() if v["resource_realm"] == PG_REALM}
    assert run.group("realm_k8s_3_ext_nubes_ru") == in_realm
    assert run.group("st_suspended") == {"sleepy"}
    assert run.group("st_running") == {h for h, v in run.hostvars.items() if v["status"] == "running"}


def test_strict_false_skips_what_cannot_be_rendered(world: World, inventory: InventoryRunner) -> None:
    """strict: false (default) -> a compose or keyed group on a variable some hosts lack is skipped for them."""
    run = inventory.ok(
        {
            **DEFAULT,
            "compose": {"master_fqdn": "outputs['externalConnect.master.fqdn']"},
            "keyed_groups": [{"key": "params.app_version", "prefix": "pg"}],
        }
    )
    assert "master_fqdn" in run.hostvars["orders_db"]
    assert "master_fqdn" not in run.hostvars["sleepy"]
    assert run.group("pg_17") == {"orders_db", "reports_db__v2_"}


def test_strict_true_fails_on_a_missing_variable(world: World, inventory: InventoryRunner) -> None:
    """strict: true -> the same compose makes the whole source fail with the host and variable named."""
    run = inventory.run(
        {**DEFAULT, "strict": True, "compose": {"master_fqdn": "outputs['externalConnect.master.fqdn']"}},
        env={"ANSIBLE_INVENTORY_UNPARSED_FAILED": "true"},
    )
    assert run.rc != 0
    assert "Could not set master_fqdn for host" in run.stderr
    run = inventory.run(
        {**DEFAULT, "strict": True, "keyed_groups": [{"key": "params.app_version", "prefix": "pg"}]},
        env={"ANSIBLE_INVENTORY_UNPARSED_FAILED": "true"},
    )
    assert run.rc != 0
    assert "Could not generate group for host" in run.stderr


def test_hostname_template(world: World, inventory: InventoryRunner) -> None:
    """hostname renders from the host vars; the result is made safe ("postgres-orders db" -> "postgres-orders_db")."""
    run = inventory.ok({**DEFAULT, "hostname": "{{ service }}-{{ resource_name }}"})
    assert run.host_of(world.uids["orders"]) == "postgres-orders_db"
    assert run.host_of(world.uids["cache_new"]) == "redis-cache-" + world.uids["cache_new"][:8].lower()
    run = inventory.ok({**DEFAULT, "hostname": "{{ instance_uid | lower }}"})
    assert run.hosts == {uid.lower() for uid in live_instances(world)}
