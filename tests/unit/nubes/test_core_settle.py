"""Issue 23, one run settles: the pure decisions of settle.py on the real specs of the generated modules."""

from __future__ import annotations

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import settle
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import load_service
from ansible_collections.nubes.cloud.plugins.modules import flask, postgres, s3

PG = load_service(postgres.SERVICE)
PG_PARAMS = ParamConverter(PG.params)


def test_a_disk_autoscale_grew_is_left_alone_with_a_warning() -> None:
    grown = {"autoScale": "true", "resourceDisk": "15"}
    kept, warnings = settle.left_alone(PG_PARAMS, (), {"resourceDisk": "10"}, grown)
    assert kept == {"resourceDisk": settle.AUTOSCALED} and "never shrunk" in warnings[0]


def test_a_smaller_disk_or_autoscale_off_is_not_left_alone() -> None:
    assert settle.left_alone(PG_PARAMS, (), {"resourceDisk": "20"}, {"autoScale": "true", "resourceDisk": "15"}) == (
        {},
        [],
    )
    assert settle.left_alone(PG_PARAMS, (), {"resourceDisk": "10"}, {"autoScale": "false", "resourceDisk": "15"}) == (
        {},
        [],
    )


def test_ignore_changes_names_options_and_wins_over_the_autoscale_warning() -> None:
    live = {"autoScale": "true", "resourceDisk": "15"}
    kept, warnings = settle.left_alone(PG_PARAMS, ("resource_disk", "resource_cpu"), {"resourceDisk": "10"}, live)
    assert kept == {"resourceDisk": settle.IGNORED, "resourceCPU": settle.IGNORED} and warnings == []


def test_after_create_follows_a_create_with_what_it_cannot_take() -> None:
    s3_spec = load_service(s3.SERVICE)
    s3_params = ParamConverter(s3_spec.params)
    assert settle.after_create(s3_spec, s3_params, {"maxSizeGbPerUser": "50"}, None) == ("modify",)
    assert settle.after_create(s3_spec, s3_params, {"displayName": "x"}, None) == ()
    app = load_service(flask.SERVICE)
    assert settle.after_create(app, ParamConverter(app.params), {}, "v1") == ("redeploy",)
    assert settle.after_create(app, ParamConverter(app.params), {}, None) == ()
