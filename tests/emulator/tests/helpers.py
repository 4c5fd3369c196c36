"""Ready-made instances for the tests (created through the real HTTP API)."""

from __future__ import annotations

from tests.emulator.tests.api import Api


def running_s3(api: Api, name: str) -> str:
    uid = api.new_instance(12, f"{name}-s3")
    api.complete(uid, "create", {"resourceRealm": "s3.nubes.ru", "displayName": f"{name}-user"})
    return uid


def running_postgres(api: Api, name: str, s3_uid: str | None = None) -> str:
    s3 = s3_uid or running_s3(api, name)
    uid = api.new_instance(90, f"{name}-pg")
    api.complete(
        uid,
        "create",
        {
            "s3Uid": s3,
            "resourceRealm": "k8s-3.ext.nubes.ru",
            "appVersion": "16",
            "jsonParameters": "{}",
            "allowNoSSL": "false",
            "autoScale": "true",
            "autoScaleQuotaGb": "1",
        },
    )
    return uid


def running_zone(api: Api, name: str, zone: str = "example.ru") -> str:
    uid = api.new_instance(110, f"{name}-zone")
    api.complete(uid, "create", {"zoneName": zone})
    return uid
