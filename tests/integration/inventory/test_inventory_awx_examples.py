"""The shipped inventory files work as documented: the AWX source with the "Nubes API" credential type, the
examples under examples/inventory/ (inventory files and playbooks), and the ways to give the token."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.integration.inventory.conftest import World
from tests.integration.inventory.runner import BIN, REPO, InventoryRun, InventoryRunner, plain
from tests.integration.inventory.test_inventory_hosts import live_instances
from tests.integration.state.awx_credential import inject

AWX_SOURCE = REPO / "docs/awx/inventory.nubes.yml"
EXAMPLES = REPO / "examples/inventory"


def injected_env(endpoint: str, token: str, private_dir: Path) -> dict[str, str]:
    """What AWX injects for a credential of the type holding only the endpoint and the token."""
    return inject({"api_endpoint": endpoint, "api_token": token}, private_dir)


def test_awx_source_reads_the_credential_types_environment(world: World, inventory: InventoryRunner) -> None:
    """The AWX source file holds no endpoint or token; the variables the credential type injects are all it
    needs. Run as AWX runs an inventory update (`--list --export`, unparsed sources fatal)."""
    source = AWX_SOURCE.read_text(encoding="utf-8")
    assert "api_token" not in source
    assert "api_endpoint" not in source
    env = inventory.env(ANSIBLE_INVENTORY_UNPARSED_FAILED="True")
    del env["NUBES_API_ENDPOINT"], env["NUBES_API_TOKEN"]
    env.update(injected_env(world.emu.endpoint, world.emu.token, inventory.workdir / "private"))
    assert {name for name, value in injected_env("e", "t", inventory.workdir / "private").items() if value} == {
        "NUBES_API_ENDPOINT",
        "NUBES_API_TOKEN",
    }  # the optional state fields, left blank, are injected empty
    proc = subprocess.run(
        [str(BIN / "ansible-inventory"), "-i", str(AWX_SOURCE), "--list", "--export"],
        env=env,
        cwd=inventory.workdir,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert world.emu.token not in proc.stdout + proc.stderr
    run = InventoryRun(0, proc.stdout, proc.stderr, [], plain(json.loads(proc.stdout)))
    assert {v["instance_uid"] for v in run.hostvars.values()} == set(live_instances(world))
    assert run.hostvars["orders_db"]["admin_user"] == "postgres"
    assert "admin_user" not in run.hostvars["sleepy"]
    assert "orders_db" in run.group("realm_k8s_3_ext_nubes_ru")
    assert run.group("version_17") == {"orders_db", "reports_db__v2_"}
    assert {v["status"] for v in run.hostvars.values()} >= {"running", "suspended"}  # enabled_var: status


def example_env(inventory: InventoryRunner, home: Path) -> dict[str, str]:
    """The emulator's endpoint and token, a throw-away HOME (the example's cache dir `~/.cache/...`) and state."""
    home.mkdir(exist_ok=True)
    return {
        "HOME": str(home),
        "NUBES_STATE_PATH": str(home / "state.json"),
        "ANSIBLE_INVENTORY_UNPARSED_FAILED": "true",
    }


def test_example_inventory_files_parse(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """examples/inventory/*.nubes.yml list the instances they promise (databases: the running data services,
    cached under ~/.cache/nubes-inventory)."""
    home = tmp_path / "home"
    everything = inventory.ok(EXAMPLES / "inventory.nubes.yml", env=example_env(inventory, home))
    assert {v["instance_uid"] for v in everything.hostvars.values()} == set(live_instances(world))
    assert "orders_db" in everything.group("realm_k8s_3_ext_nubes_ru")
    databases = inventory.ok(EXAMPLES / "databases.nubes.yml", env=example_env(inventory, home))
    assert {v["service"] for v in databases.hostvars.values()} == {"postgres", "redis"}
    assert {v["status"] for v in databases.hostvars.values()} == {"running"}
    assert databases.hostvars["orders_db"]["postgres_dsn"].startswith("postgresql://postgres@pg-")
    assert databases.group("small_databases") == {"orders_db", "reports_db__v2_"}
    assert databases.group("engine_redis") == {h for h, v in databases.hostvars.items() if v["service"] == "redis"}
    assert any((home / ".cache/nubes-inventory").iterdir())
    assert inventory.ok(EXAMPLES / "databases.nubes.yml", env=example_env(inventory, home)).requests == []


def run_playbook(
    inventory: InventoryRunner, playbook: Path, source: Path, home: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "ansible-playbook"), "-i", str(source), str(playbook)],
        env=inventory.env(**example_env(inventory, home)),
        cwd=inventory.workdir,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_example_report_playbook(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """examples/inventory-report.yml counts the hosts per default group and lists every instance."""
    proc = run_playbook(
        inventory, REPO / "examples/inventory-report.yml", EXAMPLES / "inventory.nubes.yml", tmp_path / "home"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "service_postgres: 2" in proc.stdout
    assert "status_suspended: 1" in proc.stdout
    assert f"uid {world.uids['orders']}" in proc.stdout


def test_example_postgres_info_playbook(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """examples/inventory-postgres-info.yml runs nubes.cloud.postgres_info for each postgres host by its
    instance_uid (delegated to the controller)."""
    proc = run_playbook(
        inventory, REPO / "examples/inventory-postgres-info.yml", EXAMPLES / "inventory.nubes.yml", tmp_path / "home"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok=2" in proc.stdout
    assert "orders_db (running): users" in " ".join(proc.stdout.split())
    assert "reports_db__v2_ (running): users" in " ".join(proc.stdout.split())


def test_token_from_an_extra_variable(world: World, inventory: InventoryRunner) -> None:
    """api_token may be a template: here an extra variable (-e), with NUBES_API_TOKEN unset."""
    run = inventory.ok(
        {"plugin": "nubes.cloud.nubes", "api_token": "{{ nubes_token }}", "instance_details": False},
        "-e",
        f"nubes_token={world.emu.token}",
        env={"NUBES_API_TOKEN": ""},
    )
    assert {v["instance_uid"] for v in run.hostvars.values()} == set(live_instances(world))


def test_token_vault_encrypted_in_the_file(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """api_token may be a vault-encrypted string in the inventory file (ansible-vault encrypt_string)."""
    password = tmp_path / "vault-pass"
    password.write_text("inventory-test-vault-password\n", encoding="utf-8")
    encrypted = subprocess.run(
        [
            str(BIN / "ansible-vault"),
            "encrypt_string",
            "--vault-password-file",
            str(password),
            world.emu.token,
            "--name",
            "api_token",
        ],
        env=inventory.env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    path = tmp_path / "vaulted.nubes.yml"
    path.write_text("plugin: nubes.cloud.nubes\ninstance_details: false\n" + encrypted, encoding="utf-8")
    assert world.emu.token not in path.read_text(encoding="utf-8")
    run = inventory.ok(path, "--vault-password-file", str(password), env={"NUBES_API_TOKEN": ""})
    assert {v["instance_uid"] for v in run.hostvars.values()} == set(live_instances(world))
    assert world.emu.token not in run.stdout + run.stderr
