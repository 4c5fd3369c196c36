"""API data -> unified spec: kinds, sub-resources, merge, lifecycle, defaults (P11-P15, P19, P35-P41)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from generator.config import ServiceEntry, parse_timeouts
from generator.errors import GeneratorError
from generator.spec_builder import (
    EXCLUDED_OPERATIONS,
    FetchedService,
    build_spec,
    normalize_default,
    normalize_type,
)
from generator.spec_io import validate_spec
from tests.unit.generator.catalogue import SERVICES, TIMEOUTS, op, p

NAMES = {1: "dummy", 12: "s3", 13: "s3_bucket", 89: "flask", 90: "postgres"}
TITLES = {1: "Dummy"}


def spec_of(svc_id: int, services: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    svc = copy.deepcopy((services or SERVICES)[svc_id])
    ops = {o["svcOperationId"]: o for o in svc["operations"]}
    body = dict(svc, operations=[{"svcOperationId": i, "operation": o["operation"]} for i, o in ops.items()])
    spec = build_spec(
        FetchedService(ServiceEntry(svc_id, NAMES.get(svc_id, "svc"), (), TITLES.get(svc_id), svc_id == 1), body, ops),
        parse_timeouts(TIMEOUTS),
    )
    validate_spec(spec, "test")
    return spec


def param(spec: dict[str, Any], code: str) -> dict[str, Any]:
    return next(x for x in spec["params"] if x["code"] == code)


def test_required_top_level_fields_in_contract_order() -> None:
    """P11: name, service_id, service_display_name, service_short_name, lifecycle, outputs, operations,
    service_man are present (plus params and subresources), in the contract's order."""
    spec = spec_of(90)
    assert list(spec) == [
        "name", "service_id", "service_display_name", "service_title", "service_short_name", "test_service",
        "service_man", "lifecycle", "outputs", "operations", "params", "subresources",
    ]  # fmt: skip
    assert (spec["name"], spec["service_id"], spec["service_display_name"], spec["service_short_name"]) == (
        "postgres", 90, "PostgreSQL", "postgres",
    )  # fmt: skip
    assert spec["service_man"].startswith("# PostgreSQL")


def test_operation_kinds() -> None:
    """P12/P13/P14/P15: instance, subresource, action and excluded kinds, operations sorted by name."""
    spec = spec_of(90)
    kinds = {o["name"]: o["kind"] for o in spec["operations"]}
    assert kinds == {
        "create": "instance", "modify": "instance", "delete": "instance", "suspend": "instance",
        "resume": "instance", "create_user": "subresource", "modify_user": "subresource",
        "delete_user": "subresource", "restart": "excluded", "recovery": "excluded", "reconcile": "excluded",
    }  # fmt: skip
    assert [o["name"] for o in spec["operations"]] == sorted(kinds)
    flask = {o["name"]: o for o in spec_of(89)["operations"]}
    assert flask["redeploy"]["kind"] == "action"
    assert flask["redeploy"]["params"][0]["option"] == "git_revision"


def test_excluded_operations_carry_the_seed_reasons() -> None:
    """P15: restart, recovery, reconcile are excluded with the seed's reasons."""
    ops = {o["name"]: o for o in spec_of(90)["operations"]}
    assert ops["restart"]["reason"] == "modify handles pod restart when needed"
    assert ops["recovery"]["reason"] == "creates a new instance from backup, not a modification of existing"
    assert ops["reconcile"]["reason"].startswith("sync after manual changes")
    assert set(EXCLUDED_OPERATIONS) == {"restart", "recovery", "reconcile"}


def test_subresource_grouped_with_parent_scoped_key() -> None:
    """P13: create_/modify_/delete_user become sub-resource `user` keyed by the uniqueScope parent param."""
    (user,) = spec_of(90)["subresources"]
    assert user["name"] == "user"
    assert (user["key"], user["key_code"]) == ("username", "username")
    assert user["operations"] == {"create": "create_user", "modify": "modify_user", "delete": "delete_user"}
    by_code = {x["code"]: x for x in user["params"]}
    assert by_code["username"]["operations"] == {"create": 700, "modify": 703, "delete": 705}
    assert by_code["password"]["secret"] is True and by_code["password"]["required"] is True
    assert by_code["role"]["immutable"] is False and by_code["password"]["immutable"] is True


def test_subresource_without_key_fails_fast() -> None:
    """P47: a sub-resource without a uniqueScope parent param is a generator error, not a guess."""
    services = copy.deepcopy(SERVICES)
    services[90]["operations"].append(op(9030, "create_topic", p(800, "topicName", req=True)))
    with pytest.raises(GeneratorError, match="uniqueScope 'parent'"):
        spec_of(90, services)


def test_unknown_operation_fails_fast() -> None:
    """P47: an operation of unknown kind stops the generator with a message saying what to do."""
    services = copy.deepcopy(SERVICES)
    services[12]["operations"].append(op(124, "teleport"))
    with pytest.raises(GeneratorError, match="unknown operation 'teleport'"):
        spec_of(12, services)


def test_union_merge_of_create_and_modify() -> None:
    """P41: the same code in create and modify with different sub-params -> their union; ids per op."""
    map_fixed = param(spec_of(1), "mapFixed")
    assert [s["code"] for s in map_fixed["sub_params"]] == ["fieldA", "fieldB", "fieldC"]
    assert [s["option"] for s in map_fixed["sub_params"]] == ["field_a", "field_b", "field_c"]
    assert map_fixed["operations"] == {"create": 647, "modify": 648}
    assert [s["default"] for s in map_fixed["sub_params"]] == ["a", "1", "false"]  # P36 sub-param defaults
    array = param(spec_of(1), "arrayMapFixedExample")
    assert [(s["option"], s["required"]) for s in array["sub_params"]] == [("name", True), ("value", False)]


def test_sub_params_carry_the_operations_whose_descriptor_has_them() -> None:
    """Issue 23 (P41): each sub-param lists the operations whose dataDescriptor has it (under its parent's id); one
    that modify's descriptor lacks is create-only."""
    subs = {s["code"]: s for s in param(spec_of(1), "mapFixed")["sub_params"]}
    assert subs["fieldA"]["operations"] == {"create": 647, "modify": 648} and subs["fieldA"]["immutable"] is False
    assert subs["fieldB"]["operations"] == {"create": 647} and subs["fieldB"]["immutable"] is True
    assert subs["fieldC"]["operations"] == {"modify": 648} and subs["fieldC"]["immutable"] is False


def test_immutable_means_not_in_modify() -> None:
    """P21/P23: params modify does not carry are create-only (key params for adopt)."""
    spec = spec_of(90)
    assert param(spec, "resourceCPU")["immutable"] is False
    assert param(spec, "s3Uid")["immutable"] is True
    assert param(spec, "resourceCPU")["operations"] == {"create": 82, "modify": 93}
    assert all(x["immutable"] for x in spec_of(13)["params"])  # no modify operation at all


def test_param_fields() -> None:
    """Per-param data as in contracts.md: type, required (by create), API default string, choices, ref."""
    spec = spec_of(90)
    cpu = param(spec, "resourceCPU")
    assert list(cpu) == [
        "code", "option", "label", "type", "required", "default", "choices", "secret",
        "ref_service_id", "sub_params", "man", "operations", "immutable",
    ]  # fmt: skip
    assert (cpu["option"], cpu["type"], cpu["default"], cpu["label"]) == (
        "resource_cpu", "integer", "500", "CPU (миллиядра)",
    )  # fmt: skip
    assert param(spec, "allowNoSSL")["default"] == "false" and param(spec, "allowNoSSL")["required"] is True
    assert param(spec, "s3Uid")["ref_service_id"] == 12
    assert param(spec, "appVersion")["choices"] == ["16", "17"]
    assert param(spec, "state")["option"] == "state_param"  # collision with the lifecycle option
    assert [x["code"] for x in spec["params"]] == sorted(x["code"] for x in spec["params"])


def test_stricter_type_when_create_and_modify_disagree() -> None:
    """P41: live postgres resourceDisk is a string on create and an integer on modify -> an integer option."""
    disk = param(spec_of(90), "resourceDisk")
    assert (disk["type"], disk["default"], disk["operations"]) == ("integer", "10", {"create": 83, "modify": 94})


def test_placeholder_defaults_are_not_applied() -> None:
    """P1/P35: a create-required param whose API default is a portal placeholder (flask domain `web01`) has no default:
    the task must give it; the placeholder is kept for the docs."""
    domain = param(spec_of(89), "domain")
    assert (domain["required"], domain["default"], domain["placeholder"]) == (True, None, "web01")
    assert list(domain)[5:7] == ["default", "placeholder"]
    assert "placeholder" not in param(spec_of(89), "resourceCPU")
    env = param(spec_of(89), "jsonEnv")  # issue 23: optional, and a placeholder all the same (one rule)
    assert (env["required"], env["default"], env["placeholder"]) == (False, None, '{ "param": "value" }')


def test_html_entities_in_defaults_are_decoded() -> None:
    """Defaults like flask jsonEnv `{ &quot;param&quot;: ... }` come out as real text (kept as its placeholder)."""
    assert param(spec_of(89), "jsonEnv")["placeholder"] == '{ "param": "value" }'


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), (True, "true"), (False, "false"), (0, "0"), (-1, "-1"), ({}, "{}"), (["22"], '["22"]'),
     ("a &amp; b", "a & b")],
)  # fmt: skip
def test_normalize_default(value: Any, expected: str | None) -> None:
    """API defaults are kept as the API's strings (values travel as strings)."""
    assert normalize_default(value) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("string", "string"), ("int64", "integer"), ("bool", "boolean"), ("map-fixed", "map-fixed"),
     ("array", "array"), ("list", "array"), ("json", "json"), ("map", "json"), (None, "string")],
)  # fmt: skip
def test_normalize_type(raw: Any, expected: str) -> None:
    """dataType values map onto the six spec types."""
    assert normalize_type(raw) == expected


def test_lifecycle_flags_and_timeouts() -> None:
    """P19/P8: suspendable services get suspend_on_destroy true, timeouts come from the config."""
    pg = spec_of(90)["lifecycle"]
    assert pg["suspendable"] and pg["deletable"] and not pg["redeploy"]
    assert (pg["adopt_existing_on_create"], pg["suspend_on_destroy"]) == (False, True)
    assert pg["timeouts"] == {
        "create": 200, "modify": 100, "delete": 50, "suspend": 50, "resume": 50,
        "create_user": 30, "delete_user": 30, "modify_user": 30,
    }  # fmt: skip
    s3 = spec_of(12)["lifecycle"]
    assert not s3["suspendable"] and "suspend_on_destroy" not in s3
    assert spec_of(89)["lifecycle"]["redeploy"] is True
    assert "restart" not in spec_of(89)["lifecycle"]["timeouts"]


def test_outputs_sorted_with_secret_flag() -> None:
    """Outputs from svc.outputs, sorted by code; secret ones flagged."""
    outputs = spec_of(12)["outputs"]
    assert [(o["code"], o["secret"]) for o in outputs] == [("accessKey", False), ("secretKey", True)]


def test_minimal_real_api_shapes_are_accepted() -> None:
    """deck-api.md 2.4: the real catalogue may omit svcName, man, outputs, labels and use older dataType
    spellings; the spec still validates with sensible fallbacks."""
    minimal = {
        77: {
            "svcId": 77,
            "svcShort": "legacy",
            "operations": [
                {
                    "svcOperationId": 770,
                    "operation": "create",
                    "cfsParams": [
                        {"svcOperationCfsParamId": 1, "svcOperationCfsParam": "sizeGb", "dataType": "int64",
                         "isRequired": True, "defaultValue": 5},
                        {"svcOperationCfsParamId": 2, "svcOperationCfsParam": "enabled", "dataType": "bool",
                         "defaultValue": True},
                    ],
                },
                {"svcOperationId": 771, "operation": "delete"},
            ],
        }
    }  # fmt: skip
    spec = spec_of(77, minimal)
    assert (spec["service_display_name"], spec["service_short_name"], spec["service_man"]) == ("legacy", "legacy", "")
    assert [(p["option"], p["type"], p["default"], p["label"]) for p in spec["params"]] == [
        ("enabled", "boolean", "true", ""),
        ("size_gb", "integer", "5", ""),
    ]
    assert spec["outputs"] == [] and spec["lifecycle"]["deletable"] and not spec["lifecycle"]["suspendable"]


def test_docs_title_is_english(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16: the spec's service_title is the list's title, else the catalogue name when it is English; a
    Russian catalogue name without a title fails fast, naming the line to add."""
    assert spec_of(90)["service_title"] == "PostgreSQL"
    dummy = spec_of(1)
    assert (dummy["service_title"], dummy["service_display_name"], dummy["test_service"]) == ("Dummy", "Болванка", True)
    monkeypatch.delitem(TITLES, 1)
    with pytest.raises(GeneratorError, match=r'add title="<English name>" to its line'):
        spec_of(1)
