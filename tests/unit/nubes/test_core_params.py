"""Params: conversion per type, P35 zero values, P36 map-fixed defaults, P37 s3Uid resolution,
ref_service_id resolution, P39 nil guard, P41 sub-key tolerance, secrets."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import (
    ParamConverter,
    equivalent,
    zero_value,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ParamSpec, load_param
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.values import differing

S3_UID = "11111111-2222-3333-4444-555555555555"


def raw(code: str, type_: str = "string", **extra: Any) -> Dict[str, Any]:
    base: Dict[str, Any] = {
        "code": code,
        "option": code.lower(),
        "type": type_,
        "required": False,
        "default": None,
        "choices": None,
        "secret": False,
        "ref_service_id": None,
        "sub_params": [],
        "operations": {"create": 1, "modify": 2},
        "immutable": False,
    }
    base.update(extra)
    return base


def p(code: str, type_: str = "string", **extra: Any) -> ParamSpec:
    """A typed param as the core reads it from a SERVICE literal."""
    return load_param(raw(code, type_, **extra))


TLS = p(
    "tlsSettings",
    "map-fixed",
    sub_params=[
        raw("type", default="off", option="type"),
        raw("durationCA", "integer", default="175200", option="duration_ca"),
        raw("s3BackupUid", default="", option="s3_backup_uid"),
    ],
)


@pytest.mark.parametrize(
    ("type_", "zero"),
    [
        ("integer", "0"),
        ("boolean", "false"),
        ("map-fixed", "{}"),
        ("array", "[]"),
        ("string", ""),
        ("int64", "0"),
        ("bool", "false"),
    ],
)
def test_zero_values(type_: str, zero: str) -> None:
    """P35: integer "0", boolean "false", map-fixed "{}", array "[]", string ""."""
    assert zero_value(type_) == zero


def test_zero_value_fallback_for_absent_params_on_create() -> None:
    """P35: a param absent from the task, without API default, gets the zero value of its type."""
    conv = ParamConverter([p("n", "integer"), p("b", "boolean"), p("a", "array"), p("s"), p("m", "map-fixed")])
    assert conv.for_create({}) == {"n": "0", "b": "false", "a": "[]", "s": "", "m": "{}"}


def test_api_default_wins_over_zero_value() -> None:
    conv = ParamConverter([p("cpu", "integer", default="500")])
    assert conv.for_create({}) == {"cpu": "500"}
    assert conv.for_create({"cpu": "1000"}) == {"cpu": "1000"}


def test_required_without_default_fails_before_any_write() -> None:
    """Bad input fails with a clear message (the runner calls this before any write)."""
    conv = ParamConverter([p("realm", required=True, option="resource_realm")])
    with pytest.raises(InputError, match=r"missing required parameter.*resource_realm"):
        conv.for_create({})


def test_a_placeholder_is_never_applied_on_create() -> None:
    """P35 (issue 23): a placeholder default is no default. Left out, an optional one gets its type's zero value and a
    required one fails before any write, naming the option and the placeholder it does not use."""
    conv = ParamConverter(
        [
            p("jsonEnv", "json", placeholder='{ "param": "value" }', option="json_env"),
            p("domain", required=True, placeholder="web01", option="domain"),
        ]
    )
    assert conv.placeholder_codes() == ["jsonEnv", "domain"]
    assert conv.for_create({"domain": "shop"}) == {"jsonEnv": "{}", "domain": "shop"}
    with pytest.raises(InputError, match=r"for create: domain; .*domain 'web01'\) are placeholders, never applied"):
        conv.for_create({})


def test_required_given_as_an_empty_string_fails_before_any_write() -> None:
    """Bad input fails with a clear message before any write: validate-cfs counts "" as not filled, so a required
    param given as "" is missing (it used to pass, and validate-cfs refused it after the instance was created).
    An optional param may be "", and a map-fixed "" still takes its defaults (P36)."""
    conv = ParamConverter(
        [p("bucketName", required=True, option="bucket_name"), p("descr", option="description"), p("m", "map-fixed")]
    )
    with pytest.raises(InputError, match=r"missing required parameter\(s\) for create: bucket_name; .*empty string"):
        conv.for_create({"bucketName": "", "descr": ""})
    assert conv.for_create({"bucketName": "b", "descr": "", "m": ""}) == {"bucketName": "b", "descr": "", "m": "{}"}


def test_values_as_strings_per_type() -> None:
    """All values travel as strings: bools "true"/"false", dicts/lists as JSON text."""
    conv = ParamConverter([p("n", "integer"), p("b", "boolean"), p("a", "array"), p("j", "json"), p("s")])
    out = conv.desired({"n": 5, "b": True, "a": ["x", "y"], "j": {"k": [1]}, "s": "t"})
    assert out == {"n": "5", "b": "true", "a": '["x","y"]', "j": '{"k":[1]}', "s": "t"}
    assert conv.desired({"j": '{"k": 1}'}) == {"j": '{"k":1}'}


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        (p("n", "integer"), "many", "must be an integer"),
        (p("b", "boolean"), "maybe", "must be a boolean"),
        (p("j", "json"), "{not json", "must be valid JSON"),
        (p("c", choices=["a", "b"]), "z", "must be one of a, b"),
    ],
)
def test_invalid_values_are_rejected(param: ParamSpec, value: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        ParamConverter([param]).desired({param.option: value})


def test_map_fixed_default_from_sub_params_when_absent() -> None:
    """P36: absent map-fixed -> JSON of the sub-params' defaults."""
    conv = ParamConverter([TLS])
    assert json.loads(conv.for_create({})["tlsSettings"]) == {"type": "off", "durationCA": "175200", "s3BackupUid": ""}


def test_map_fixed_default_when_value_is_empty_object() -> None:
    """P36: a value of "{}" is replaced by the defaults too."""
    conv = ParamConverter([TLS])
    assert json.loads(conv.desired({"tlssettings": {}})["tlsSettings"])["type"] == "off"
    assert json.loads(conv.desired({"tlssettings": "{}"})["tlsSettings"])["durationCA"] == "175200"


def test_map_fixed_option_names_become_codes_and_none_subs_are_dropped() -> None:
    """Ansible dict options (snake_case, None when unset) -> API sub-param codes with defaults filled."""
    conv = ParamConverter([TLS])
    value = json.loads(
        conv.desired({"tlssettings": {"type": "self-signed", "duration_ca": 10, "s3_backup_uid": None}})["tlsSettings"]
    )
    assert value == {"type": "self-signed", "durationCA": "10", "s3BackupUid": ""}


def test_unknown_sub_keys_are_kept() -> None:
    """P41: sub-keys the spec does not know (the other operation's, or newer) are tolerated and sent."""
    conv = ParamConverter([TLS])
    value = json.loads(conv.desired({"tlssettings": {"newKey": "x"}})["tlsSettings"])
    assert value["newKey"] == "x" and value["type"] == "off"


def test_s3_uid_keys_inside_map_fixed_are_resolved() -> None:
    """P37: keys matching s3.*uid (any case) with non-UUID values are resolved through service 12."""
    calls: List[Tuple[int, str]] = []

    def resolver(service_id: int, name: str) -> str:
        calls.append((service_id, name))
        return S3_UID

    conv = ParamConverter([TLS, p("free", "map-fixed")], resolver=resolver)
    value = json.loads(conv.desired({"tlssettings": {"s3_backup_uid": "backups"}})["tlsSettings"])
    assert value["s3BackupUid"] == S3_UID
    # without any dataDescriptor: still resolved by the key name
    free = json.loads(conv.desired({"free": {"myS3StorageUID": "archive", "other": "name"}})["free"])
    assert free == {"myS3StorageUID": S3_UID, "other": "name"}
    assert calls == [(12, "backups"), (12, "archive")]


def test_s3_uid_already_uuid_is_not_resolved() -> None:
    """P37: UUID values are left alone (no lookup)."""

    def resolver(service_id: int, name: str) -> str:
        raise AssertionError("no lookup expected")

    conv = ParamConverter([TLS], resolver=resolver)
    assert S3_UID in conv.desired({"tlssettings": {"s3_backup_uid": S3_UID}})["tlsSettings"]


def test_reference_params_resolve_names() -> None:
    """ref_service_id: a display name is resolved to the instance uid of that service."""
    conv = ParamConverter([p("s3Uid", ref_service_id=12, option="s3_uid")], resolver=lambda sid, name: S3_UID)
    assert conv.desired({"s3_uid": "backups"}) == {"s3Uid": S3_UID}
    assert conv.desired({"s3_uid": S3_UID.upper()}) == {"s3Uid": S3_UID.upper()}


def test_nil_guard_for_params_missing_from_the_live_instance() -> None:
    """P39: a map-fixed param the live instance lacks (it predates the param) is skipped: no crash, and the zero
    value "{}" is no change; a real value is."""
    params = [p("cpu", "integer"), p("tlsSettings", "map-fixed")]
    live = {"cpu": "500"}
    assert differing(params, {"cpu": "500", "tlsSettings": "{}"}, live, immutable=False) == []
    assert differing(params, {"cpu": "500", "tlsSettings": '{"type":"x"}'}, live, immutable=False) == ["tlsSettings"]
    assert differing(params, {"cpu": "600"}, live, immutable=False) == ["cpu"]


def test_secrets_never_echoed() -> None:
    """Secret params are omitted from views and masked in diffs; public() drops them for the state file."""
    conv = ParamConverter([p("password", secret=True), p("role")])
    assert conv.options_view({"password": "pw", "role": "r"}) == {"role": "r"}
    assert conv.options_view({"password": "pw", "role": "r"}, mask=True) == {"password": "********", "role": "r"}
    assert conv.public({"password": "pw", "role": "r"}) == {"role": "r"}


def test_equivalent_json_texts() -> None:
    assert equivalent('{"a":1,"b":2}', '{"b": 2, "a": 1}')
    assert equivalent("500", "500")
    assert not equivalent("500", "501")
    assert not equivalent(None, "x")


def test_sub_params_with_a_reference_resolve_against_their_service() -> None:
    """ref_service_id on a map-fixed sub-param (the generalised s3Uid rule)."""
    calls: List[Tuple[int, str]] = []

    def resolver(service_id: int, name: str) -> str:
        calls.append((service_id, name))
        return S3_UID

    param = p("cfg", "map-fixed", sub_params=[raw("parentRef", ref_service_id=90, option="parent_ref")])
    value = json.loads(ParamConverter([param], resolver=resolver).desired({"cfg": {"parent_ref": "db1"}})["cfg"])
    assert value == {"parentRef": S3_UID} and calls == [(90, "db1")]
