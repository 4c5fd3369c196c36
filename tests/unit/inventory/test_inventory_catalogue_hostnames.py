"""The inventory's service catalogue (from the generated SERVICE literals) and its host-name rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.hostnames import safe_hostname, unique_hostnames
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
UID = "AD45F23D-3B1A-41DF-987F-D2803BAB6C39"


def test_catalogue_is_every_generated_service() -> None:
    """P3: the services come from plugins/module_utils/services/*.py, not from a list in the plugin."""
    generated = {
        p.stem
        for p in (ROOT / "plugins/module_utils/services").glob("*.py")
        if p.stem not in ("__init__", "all_services")  # all_services: the index of the others (issue 27)
    }
    catalogue = load_catalogue()
    assert {e.name for e in catalogue.by_id.values()} == generated
    for spec in (ROOT / "specs").glob("*.yml"):
        assert catalogue.lookup(spec.stem) is not None


def test_lookup_by_module_name_short_name_or_id() -> None:
    catalogue = load_catalogue()
    bucket = catalogue.lookup("s3_bucket")
    assert bucket is not None
    assert catalogue.lookup(bucket.short_name) is bucket
    assert catalogue.lookup(str(bucket.service_id)) is bucket
    assert catalogue.lookup(bucket.service_id) is bucket
    assert catalogue.lookup(" S3_Bucket ") is bucket


def test_select_keeps_order_drops_repeats_and_names_the_known_ones() -> None:
    catalogue = load_catalogue()
    assert [e.name for e in catalogue.select(["redis", "90", "redis"])] == ["redis", "postgres"]
    assert len(catalogue.select([])) == len(catalogue.by_id)
    with pytest.raises(InputError) as caught:
        catalogue.select(["postgres", "oracle"])
    assert "unknown service 'oracle'" in caught.value.msg
    assert "postgres (90)" in caught.value.msg


def test_address_outputs_are_found_by_code_not_by_service() -> None:
    """ansible_host defaults: the public outputs whose last segment is fqdn/ip/externalIp/hostname."""
    catalogue = load_catalogue()
    postgres = catalogue.lookup("postgres")
    vm = catalogue.lookup("vm")
    redis = catalogue.lookup("redis")
    assert postgres is not None and vm is not None and redis is not None
    assert postgres.address_outputs[:2] == ("externalConnect.master.fqdn", "externalConnect.master.ip")
    assert vm.address_outputs == ("ip",)
    assert redis.address_outputs == ()


def test_views_leave_secrets_out() -> None:
    """Secret params (pgadmin password) and secret outputs (postgres adminPass) never enter host vars, even
    when the API returns them."""
    catalogue = load_catalogue()
    pgadmin = catalogue.lookup("pgadmin")
    postgres = catalogue.lookup("postgres")
    assert pgadmin is not None and postgres is not None
    assert pgadmin.params_view({"password": "s3cret", "resourceCPU": "200"}) == {"resource_cpu": 200}
    out = {"adminPass": "s3cret", "adminUser": "postgres", "externalConnect": {"master": {"ip": "1.2.3.4"}}}
    assert postgres.outputs_view(out) == {"adminUser": "postgres", "externalConnect.master.ip": "1.2.3.4"}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("orders-db", "orders-db"),
        ("orders db", "orders_db"),
        ("reports,db:[v2]", "reports_db__v2_"),
        ("!web*?&~x", "_web____x"),
        ("База-1", "База-1"),
        ("  padded  ", "padded"),
        ("", UID),
        ("   ", UID),
        ("***", UID),
        ("localhost", UID),
        ("127.0.0.1", UID),
        ("::1", UID),
        ("db.prod", "db.prod"),
    ],
)
def test_safe_hostname(name: str, expected: str) -> None:
    assert safe_hostname(name, UID) == expected


def test_duplicates_keep_the_oldest_name() -> None:
    wanted = [("cache", "AAAAAAAA-1"), ("cache", "BBBBBBBB-2"), ("web", "CCCCCCCC-3"), ("cache", "DDDDDDDD-4")]
    names, clashes = unique_hostnames(wanted)
    assert names == ["cache", "cache-bbbbbbbb", "web", "cache-dddddddd"]
    assert clashes == ["cache"]


def test_a_taken_suffix_falls_back_to_the_full_uid() -> None:
    names, _clashes = unique_hostnames([("a-1234abcd", "X"), ("a", "1234ABCD-0"), ("a", "1234ABCD-9")])
    assert names == ["a-1234abcd", "a", "a-1234abcd-9"]


PLUGIN_FILES = [ROOT / "plugins/inventory/nubes.py", *sorted((ROOT / "plugins/module_utils/inventory").glob("*.py"))]


@pytest.mark.parametrize("path", PLUGIN_FILES, ids=[p.name for p in PLUGIN_FILES])
def test_python39_grammar(path: Path) -> None:
    """plugins/ code stays importable on Python 3.9 (contracts.md); package `__init__.py` files stay empty
    (ansible-test's empty-init on ansible-core 2.16), every other file carries the licence header."""
    source = path.read_text(encoding="utf-8")
    ast.parse(source, feature_version=(3, 9))
    if path.name == "__init__.py":
        assert source == ""
    else:
        assert "GNU General Public License v3.0+" in source
        assert "from __future__ import annotations" in source
