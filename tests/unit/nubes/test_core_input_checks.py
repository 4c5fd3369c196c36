"""Issue 24: input the API refuses or cannot hold is refused before any write: a blank name (like ""), an integer
outside int64 (the catalogue's type), a negative size or count, map-fixed integer sub-params alike."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import (
    INT64_MAX,
    ParamConverter,
    integer_range,
)
from tests.unit.nubes.conftest import RunFactory
from tests.unit.nubes.fake_deck import FakeDeck
from tests.unit.nubes.test_core_params import p, raw

MEMORY = p("resourceMemory", "integer", default="512", option="resource_memory")
LIMIT = p("connectionLimit", "integer", default="-1", option="connection_limit")
CPU = p("vmCpu", "integer", option="vm_cpu")
MAP = p(
    "mapFixed", "map-fixed", option="map_fixed", sub_params=[raw("fieldB", "integer", default="1", option="field_b")]
)


def test_integer_range_comes_from_the_catalogue_type_and_default() -> None:
    """Issue 24: int64 is the ceiling of every integer; the floor is 0, or the API default when that is negative
    (`-1`: no limit). The limits themselves are sent as before."""
    assert integer_range(MEMORY) == (0, 2**63 - 1)
    assert integer_range(CPU) == (0, INT64_MAX)
    assert integer_range(LIMIT) == (-1, INT64_MAX)
    assert integer_range(p("odd", "integer", default="n/a")) == (0, INT64_MAX)
    converter = ParamConverter([MEMORY, LIMIT, CPU])
    assert converter.to_api(INT64_MAX, MEMORY) == str(INT64_MAX)
    assert converter.to_api(0, CPU) == "0"
    assert converter.to_api("-1", LIMIT) == "-1"
    assert converter.to_api(" 512 ", MEMORY) == "512"


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        (MEMORY, -512, f"resource_memory must be an integer from 0 to {INT64_MAX}, got -512"),
        (MEMORY, 2**63, f"resource_memory must be an integer from 0 to {INT64_MAX}, got 9223372036854775808"),
        (CPU, "99999999999999999999999", "vm_cpu must be an integer from 0 to"),
        (LIMIT, -2, f"connection_limit must be an integer from -1 to {INT64_MAX}, got -2"),
        (LIMIT, 2**64, "connection_limit must be an integer from -1"),
    ],
)
def test_integers_the_api_cannot_hold_are_refused(param: Any, value: Any, message: str) -> None:
    """Issue 24: an integer beyond int64, or below the param's floor, is an InputError naming the option and the
    range (the API holds 64-bit integers; sizes, counts and durations are never negative)."""
    with pytest.raises(InputError) as info:
        ParamConverter([param]).to_api(value, param)
    assert message in info.value.msg


def test_map_fixed_integer_sub_params_have_the_same_range() -> None:
    """Issue 24: integer sub-params of a map-fixed value are checked like top-level ones, named `<option>.<sub>`."""
    converter = ParamConverter([MAP])
    assert converter.to_api({"field_b": 7}, MAP) == '{"fieldB":"7"}'
    for value, message in ((2**63, "map_fixed.field_b must be an integer from 0 to"), ("x", "must be an integer")):
        with pytest.raises(InputError) as info:
            converter.to_api({"field_b": value}, MAP)
        assert message in info.value.msg


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_blank_resource_name_is_refused_before_any_request(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, name: str
) -> None:
    """Issue 24: a blank resource_name (only whitespace) is refused like "", before any request, and says what to
    give instead."""
    with pytest.raises(InputError, match="resource_name is blank") as info:
        run(services["dummy"], resource_name=name, resource_realm="dummy")
    assert "instance_uid" in info.value.msg
    assert deck.log == []


def test_blank_resource_name_with_instance_uid_names_the_instance_by_uid(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck
) -> None:
    """Issue 24 (K1): a blank resource_name is no name, exactly like "": with instance_uid the task acts on that
    instance, under its display name."""
    uid = deck.add_instance(1, "by-uid", state={"params": {"resourceRealm": "dummy"}, "out": {}, "subresources": {}})
    result = run(services["dummy"], resource_name="  ", instance_uid=uid, adopt_existing_on_create=True)
    assert result["instance"]["resource_name"] == "by-uid"


@pytest.mark.parametrize("username", ["", "  "])
def test_blank_subresource_key_is_refused_before_any_request(
    run: RunFactory, services: Dict[str, Any], deck: FakeDeck, username: str
) -> None:
    """Issue 24: a blank key of a sub-resource (its name inside the parent) is refused like "", before any
    request."""
    parent = deck.add_instance(90, "db-blank-key")
    deck.log.clear()
    with pytest.raises(InputError, match="username is required and must not be blank"):
        run(services["postgres"], "subresource", "user", parent_instance_uid=parent, username=username, password="pw")
    assert deck.log == []
