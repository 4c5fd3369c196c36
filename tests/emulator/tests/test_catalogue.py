"""The catalogue data files against deck-api.md 3.4 and emulator-contract.md (no HTTP needed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.emulator.catalogue import CATALOGUE_DIR, Catalogue, CatalogueError

CAT = Catalogue.load()
DECK_API_34 = {1, 12, 13, 21, 22, 25, 26, 28, 81, 82, 89, 90, 91, 92, 93, 94, 95, 96, 97, 99, 111, 115, 116, 117}
SUSPENDABLE = {90, 91, 92, 93, 115, 116, 89, 95, 94, 97, 81, 82, 99, 96}
REDEPLOY = {89, 94, 95}


def params(sid: int, operation: str) -> dict[str, dict[str, Any]]:
    op = CAT.operation_by_name(sid, operation)
    assert op is not None, (sid, operation)
    return {p["svcOperationCfsParam"]: p for p in op["cfsParams"]}


def test_one_file_per_service_named_by_id_and_short_name() -> None:
    for path in sorted(CATALOGUE_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert path.name == f"{data['svcId']:03d}-{data['svcShort'].lower()}.json"
    assert DECK_API_34 | {110} <= set(CAT.services)


def test_ids_are_unique_and_references_resolve() -> None:
    """Param ids and svcOperationIds are globally unique (the loader refuses duplicates); refSvcIds exist."""
    for param in CAT.params.values():
        if "refSvcId" in param:
            assert param["refSvcId"] in CAT.services
        for sub in (param.get("dataDescriptor") or {}).get("params", []):
            assert sub.get("refSvcId", 12) in CAT.services
    duplicate = json.loads((CATALOGUE_DIR / "001-dummy.json").read_text(encoding="utf-8"))
    duplicate["svcId"] = 4242
    with pytest.raises(CatalogueError, match="duplicate svcOperationId"):
        Catalogue([*CAT.services.values(), duplicate])


def test_known_ids_from_deck_api() -> None:
    """deck-api.md 3.4 ids and codes, spot checks across services."""
    assert params(1, "create")["durationMs"]["svcOperationCfsParamId"] == 198
    assert params(90, "create")["s3Uid"]["svcOperationCfsParamId"] == 23
    assert params(90, "modify")["resourceCPU"]["svcOperationCfsParamId"] == 93
    assert params(13, "create")["s3UserUid"] == {
        **params(13, "create")["s3UserUid"],
        "refSvcId": 12,
        "isRequired": True,
    }
    assert params(116, "modify")["resourceCPU"]["dataType"] == "string"  # deck-api.md: 503 typed string
    assert params(92, "create")["needExternalAddressMaster"]["dataType"] == "string"
    assert params(28, "create")["accessPortList"]["defaultValue"] == ["22"]
    assert params(89, "create")["jsonEnv"]["defaultValue"] == "{ &quot;param&quot;: &quot;value&quot; }"


def test_dns_records_and_zone() -> None:
    ops = {o["operation"]: o["svcOperationId"] for o in CAT.services[111]["operations"]}
    assert ops == {"create": 45, "delete": 46, "modify": 90}
    labels = {p["label"]: code for code, p in params(111, "create").items()}
    assert labels == {
        "UUID Зоны": "zoneUid",
        "Тип DNS-записи": "recordType",
        "Имя записи": "recordName",
        "Значение записи": "recordInput",
        "TTL записи (в секундах)": "recordTTL",
    }
    assert params(111, "create")["zoneUid"]["refSvcId"] == 110
    assert params(111, "create")["recordName"]["uniqueScope"] == "parent"
    assert {"A", "AAAA", "CNAME", "TXT"} <= set(params(111, "create")["recordType"]["choices"])
    assert CAT.operation_by_name(111, "delete")["cfsParams"] == []  # type: ignore[index]
    assert CAT.services[110]["svcShort"] == "dnszone" and "zoneName" in params(110, "create")


def test_suspend_resume_redeploy_and_maintenance_operations() -> None:
    assert {sid for sid in CAT.services if CAT.is_suspendable(sid)} == SUSPENDABLE
    assert {sid for sid in CAT.services if CAT.operation_by_name(sid, "redeploy")} == REDEPLOY
    for sid in REDEPLOY:
        git = params(sid, "redeploy")["gitRevision"]
        assert git["dataType"] == "string" and git["isRequired"] is False
    for name in ("restart", "recovery", "reconcile"):
        assert CAT.operation_by_name(90, name) is not None


def test_subresources() -> None:
    assert CAT.subresources(90) == {"user": "username", "database": "dbName"}
    assert CAT.subresources(93) == {"vhost": "vhostName"}
    assert params(90, "create_user")["password"]["isSecret"] is True
    assert params(90, "modify_user")["username"]["uniqueScope"] == "parent"


def test_postgres_tls_settings_map_fixed() -> None:
    tls = params(90, "create")["tlsSettings"]
    assert tls["dataType"] == "map-fixed"
    subs = {p["svcOperationCfsParam"]: p for p in tls["dataDescriptor"]["params"]}
    assert subs["type"]["defaultValue"] == "off" and subs["durationCA"]["defaultValue"] == 175200
    assert "s3BackupUid" in subs
    modify_subs = {p["svcOperationCfsParam"] for p in params(90, "modify")["tlsSettings"]["dataDescriptor"]["params"]}
    assert modify_subs == {"type", "durationCA"}


def test_dummy_rich_types() -> None:
    create = params(1, "create")
    assert create["mapFixed"]["dataType"] == "map-fixed" and create["mapFixed"]["dataDescriptor"]["params"]
    assert create["arrayMapFixedExample"]["dataType"] == "array"
    assert create["arrayMapFixedExample"]["dataDescriptor"]["params"]


def test_outputs_and_secrets() -> None:
    for sid, svc in CAT.services.items():
        codes = {o["code"] for o in svc["outputs"]}
        assert "vault.url" in codes, sid
    pg = {o["code"]: o for o in CAT.services[90]["outputs"]}
    assert pg["adminPass"]["isSecret"] and pg["standbyPass"]["isSecret"] and not pg["adminUser"]["isSecret"]
    s3 = {o["code"]: o for o in CAT.services[12]["outputs"]}
    assert set(s3) >= {"endpoint", "accessKey", "secretKey"} and s3["secretKey"]["isSecret"]
    assert "bootstrapServers" in {o["code"] for o in CAT.services[116]["outputs"]}
    for sid in (89, 94, 95):
        assert "url" in {o["code"] for o in CAT.services[sid]["outputs"]}
    assert params(96, "create")["password"]["isSecret"] is True


def test_labels_and_man_texts_everywhere() -> None:
    for param in CAT.params.values():
        assert param["label"] and param["man"], param
    for svc in CAT.services.values():
        assert svc["man"].startswith("# ") and all(o["man"] for o in svc["operations"])
