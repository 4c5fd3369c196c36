"""The standard inventory cache of nubes.cloud.nubes, checked through the emulator's request log."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tests.integration.inventory.conftest import World
from tests.integration.inventory.runner import InventoryRunner
from tests.integration.inventory.test_inventory_hosts import DEFAULT


def cached(cache_dir: Path, timeout: int = 3600, **extra: Any) -> dict[str, Any]:
    return {
        **DEFAULT,
        "cache": True,
        "cache_plugin": "ansible.builtin.jsonfile",
        "cache_connection": str(cache_dir),
        "cache_timeout": timeout,
        **extra,
    }


def test_second_run_within_the_timeout_makes_no_api_call(
    world: World, inventory: InventoryRunner, tmp_path: Path
) -> None:
    """The first run reads the API and fills the cache; the second one, within cache_timeout, makes no deck-api
    call at all and prints the same inventory; --flush-cache reads the API again."""
    config = cached(tmp_path / "cache")
    first = inventory.ok(config)
    assert first.requests
    second = inventory.ok(config)
    assert second.requests == []
    assert second.hostvars == first.hostvars
    assert second.groups == first.groups
    flushed = inventory.ok(config, "--flush-cache")
    assert len(flushed.requests) == len(first.requests)
    assert flushed.hostvars == first.hostvars


def test_expired_cache_reads_the_api_again(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """Once the cache entry is older than cache_timeout the API is read again (the jsonfile cache ages its
    entries by file time: the entry is made 61 s old instead of sleeping)."""
    cache_dir = tmp_path / "cache"
    config = cached(cache_dir, timeout=60, instance_details=False)
    assert inventory.ok(config).requests
    assert inventory.ok(config).requests == []
    old = time.time() - 61
    for entry in cache_dir.iterdir():
        os.utime(entry, (old, old))
    assert inventory.ok(config).requests


def test_cache_holds_no_token_and_no_secret(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """The cache files hold the hosts but neither the API token nor any secret param or output value."""
    cache_dir = tmp_path / "cache"
    inventory.ok(cached(cache_dir))
    text = "".join(p.read_text(encoding="utf-8") for p in cache_dir.iterdir())
    assert world.uids["orders"] in text
    for secret in [*world.secrets(), world.emu.token]:
        assert secret not in text


def test_cache_key_follows_endpoint_and_selection(world: World, inventory: InventoryRunner, tmp_path: Path) -> None:
    """A cached answer is only reused for the same endpoint and the same selection: another endpoint or other
    services read the API (the token is not part of the key, so a refreshed token keeps the cache)."""
    cache_dir = tmp_path / "cache"
    config = cached(cache_dir, instance_details=False)
    assert inventory.ok(config).requests
    assert inventory.ok(config, env={"NUBES_API_ENDPOINT": world.emu.legacy_endpoint}).requests
    assert inventory.ok({**config, "services": ["postgres"]}).requests
    refreshed = world.emu.mint_token(ttl=3600)
    assert inventory.ok(config, env={"NUBES_API_TOKEN": refreshed}).requests == []


def test_damaged_cache_entry_is_read_again_from_the_api(
    world: World, inventory: InventoryRunner, tmp_path: Path
) -> None:
    """A cache entry of another format (or a damaged one) is not trusted: the API is read and the hosts are right."""
    cache_dir = tmp_path / "cache"
    config = cached(cache_dir, instance_details=False)
    first = inventory.ok(config)
    for entry in cache_dir.iterdir():
        entry.write_text(json.dumps({"version": 1, "hosts": [{"instance_uid": 7}]}), encoding="utf-8")
    again = inventory.ok(config)
    assert again.requests
    assert again.hostvars == first.hostvars
