"""Fidelity: the emulator's catalogue, read over its API, against the catalogue data produced from the live deck-api.

`../shared/reference/live-catalogue/service_<svcId>.yaml` (next to the repository; its README explains the
fields) lists, per service, the create and modify params with their real id, code, required flag, default and
type. Every listed param must be served by the emulator with the same values; a difference fails unless it is
a deliberate assumption listed, with its reason, in `assumptions.LIVE_CATALOGUE_DEVIATIONS`. The files are
read where they are, never copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.emulator import assumptions as A
from tests.emulator.tests.api import Api

REPO = Path(__file__).resolve().parents[3]
# ../shared/reference/live-catalogue next to the checkout, or where NUBES_LIVE_CATALOGUE points
LIVE_DIR = Path(os.environ.get("NUBES_LIVE_CATALOGUE") or REPO.parent / "shared" / "reference" / "live-catalogue")
# The live files' `type` is the provider tool's mapping of dataType (live-catalogue/README.md).
CONSISTENT_TYPES = {"int64": {"integer"}, "bool": {"boolean"}, "string": {"string", "map-fixed", "array", "json"}}
LIVE_OPERATIONS = ("create", "modify")  # the only operations the live files hold


def live_files() -> list[Path]:
    if not LIVE_DIR.is_dir():
        pytest.fail(
            f"no live catalogue data at {LIVE_DIR}: the fidelity check needs ../shared/reference/live-catalogue/ "
            "next to the repository, or NUBES_LIVE_CATALOGUE=<its path>"
        )
    files = sorted(LIVE_DIR.glob("service_*.yaml"), key=lambda p: int(p.stem.split("_")[1]))
    assert files, f"{LIVE_DIR} holds no service_*.yaml"
    return files


def served_params(api: Api, service_id: int) -> dict[str, dict[int, dict[str, Any]]] | None:
    """operation name -> {param id: descriptor}, read through GET /services/{id} and /serviceOperation/{id}."""
    r = api.get(f"/services/{service_id}")
    if r.status_code == 404:
        return None
    assert r.status_code == 200, r.text
    result: dict[str, dict[int, dict[str, Any]]] = {}
    for item in r.json()["svc"]["operations"]:
        if item["operation"] in LIVE_OPERATIONS:
            op = api.get(f"/serviceOperation/{item['svcOperationId']}").json()["svcOperation"]
            result[item["operation"]] = {p["svcOperationCfsParamId"]: p for p in op["cfsParams"]}
    return result


def compare(live: dict[str, Any], served: dict[str, dict[int, dict[str, Any]]] | None) -> dict[str, str]:
    """Differences as {"<svcId>/<operation>/<param id>[/<field>]": what differs}."""
    sid = live["service_id"]
    if served is None:
        return {f"{sid}": "service missing from the emulator"}
    found: dict[str, str] = {}
    for operation in LIVE_OPERATIONS:
        listed = (live.get(operation) or {}).get("params") or []
        ours = served.get(operation, {})
        if listed and operation not in served:
            found[f"{sid}/{operation}"] = "operation missing from the emulator"
        for param in listed:
            key = f"{sid}/{operation}/{param['id']}"
            mine = ours.get(param["id"])
            if mine is None:
                found[key] = f"param {param['code']} missing from the emulator"
                continue
            if mine["svcOperationCfsParam"] != param["code"]:
                found[f"{key}/code"] = f"code {mine['svcOperationCfsParam']!r}, live {param['code']!r}"
            if bool(mine["isRequired"]) != bool(param["required"]):
                found[f"{key}/required"] = f"{param['code']}: isRequired {mine['isRequired']}, live {param['required']}"
            if mine.get("defaultValue") != param.get("default"):  # the live API serves text: types are compared
                found[f"{key}/default"] = (
                    f"{param['code']}: defaultValue {mine.get('defaultValue')!r}, live {param.get('default')!r}"
                )
            if mine["dataType"] not in CONSISTENT_TYPES[param["type"]]:
                found[f"{key}/type"] = f"{param['code']}: dataType {mine['dataType']!r}, live {param['type']!r}"
        live_ids = {p["id"] for p in listed}
        for pid, mine in ours.items():
            if pid not in live_ids:
                found[f"{sid}/{operation}/{pid}"] = f"param {mine['svcOperationCfsParam']} is not in the live data"
    return found


def test_catalogue_matches_the_live_data(api: Api) -> None:
    """Every live param: id, code, isRequired, defaultValue and a consistent dataType; no extra params in the
    live-listed operations; anything else only as a documented deviation (assumptions.py)."""
    differences: dict[str, str] = {}
    for path in live_files():
        live = yaml.safe_load(path.read_text(encoding="utf-8"))
        differences.update(compare(live, served_params(api, int(live["service_id"]))))
    undocumented = {k: v for k, v in differences.items() if k not in A.LIVE_CATALOGUE_DEVIATIONS}
    stale = sorted(set(A.LIVE_CATALOGUE_DEVIATIONS) - set(differences))
    report = "\n".join(f"  {k}: {v}" for k, v in sorted(undocumented.items()))
    assert not undocumented, f"{len(undocumented)} difference(s) from the live catalogue:\n{report}"
    assert not stale, f"LIVE_CATALOGUE_DEVIATIONS lists differences that no longer exist: {stale}"


def test_deviations_say_why() -> None:
    for key, reason in A.LIVE_CATALOGUE_DEVIATIONS.items():
        assert len(reason.split()) >= 5, f"{key}: give the reason of the deviation"


def test_compare_reports_each_kind_of_difference() -> None:
    """The checker itself: a changed id, code, flag, default and type, a missing and an extra param."""
    live = {
        "service_id": 7,
        "create": {
            "params": [
                {"id": 1, "code": "a", "type": "int64", "required": True, "default": "5"},
                {"id": 2, "code": "b", "type": "string", "required": False},
                {"id": 3, "code": "c", "type": "bool", "required": False},
            ]
        },
        "modify": {"params": []},
    }
    served = {
        "create": {
            1: {"svcOperationCfsParam": "a", "isRequired": False, "defaultValue": "6", "dataType": "string"},
            2: {"svcOperationCfsParam": "x", "isRequired": False, "defaultValue": None, "dataType": "json"},
            9: {"svcOperationCfsParam": "z", "isRequired": False, "defaultValue": None, "dataType": "string"},
        }
    }
    assert set(compare(live, served)) == {
        "7/create/1/required",
        "7/create/1/default",
        "7/create/1/type",
        "7/create/2/code",
        "7/create/3",
        "7/create/9",
    }
    assert compare(live, None) == {"7": "service missing from the emulator"}
    # issue 23: a default served as a JSON value where the live API gives text is a difference, even when equal
    one_param = {"service_id": 7, "create": {"params": [{"id": 1, "code": "a", "type": "int64", "required": False,
                                                         "default": "5"}]}}  # fmt: skip
    typed = {"create": {1: {**served["create"][1], "defaultValue": 5, "dataType": "integer"}}}
    assert set(compare(one_param, typed)) == {"7/create/1/default"}
