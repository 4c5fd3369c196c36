"""Ready-made instances for the tests (created through the real HTTP API)."""

from __future__ import annotations

from tests.emulator.tests.api import Api

# Create values for every param the live catalogue requires (../shared/reference/live-catalogue/), defaults too:
# clients send required params (deck-api.md 5.1), the emulator does not fill them in.
REDIS_CREATE = {
    "resourceRealm": "k8s-3.ext.nubes.ru",
    "resourceCPU": "1000",
    "resourceMemory": "1024",
    "resourceDisk": "30",
    "resourceInstances": "1",
    "needExternalAddressMaster": "false",
    "needExternalAddressSlave": "false",
}
RABBITMQ_CREATE = {
    "resourceRealm": "k8s-3.ext.nubes.ru",
    "resourceCPU": "1000",
    "resourceMemory": "1124",
    "resourceDisk": "30",
    "resourceInstances": "1",
    "needExternalAddressMaster": "false",
}
FLASK_CREATE = {
    "domain": "myapp",
    "resourceRealm": "k8s-3.ext.nubes.ru",
    "gitPath": "https://git.example/app.git",
    "resourceCPU": "300",
    "resourceMemory": "256",
    "resourceInstances": "1",
}


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
            # required live (../shared/reference/live-catalogue/service_90.yaml), defaults or not
            "resourceInstances": "1",
            "resourceMemory": "512",
            "resourceCPU": "500",
            "resourceDisk": "10",
            "enablePgPoolerMaster": "false",
            "enablePgPoolerSlave": "false",
            "autoScalePercentage": "10",
            "autoScaleTechWindow": "0",
        },
    )
    return uid


def running_zone(api: Api, name: str, zone: str = "example.ru") -> str:
    uid = api.new_instance(110, f"{name}-zone")
    api.complete(uid, "create", {"zoneName": zone})
    return uid
