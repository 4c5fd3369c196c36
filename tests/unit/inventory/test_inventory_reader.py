"""The inventory's reading rules against a stub that answers as deck-api.md documents the real API.

The emulator's list items carry `explainedStatus`; the real API's documented list items do not (deck-api.md
2.1 and 4.1: `instanceUid, displayName, isDeleted, lastOperation, lastOperationUid, instanceConfigDtCreated`,
plus `serviceId, svc`), and no list item carries `state`. This stub answers exactly that, so the "details only
when needed" rule is proved for both shapes (the emulator shape in tests/integration/inventory).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import load_catalogue
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.reader import (
    InventoryApi,
    Selection,
    read_hosts,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, InputError, NotDeckApiError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryPolicy

ENDPOINT = "https://deck.example.test/api/v1/svc"
TOKEN = "token-for-unit-tests"
LIST_FIELDS = (
    "instanceUid",
    "displayName",
    "isDeleted",
    "lastOperation",
    "lastOperationUid",
    "instanceConfigDtCreated",
    "serviceId",
    "svc",
)


class RealShapedDeck:
    """Instances kept in memory; `GET /instances` pages them with `total` and items of the documented shape;
    `GET /instances/{uid}` answers `{"instance": {...}}` with status and state."""

    def __init__(self) -> None:
        self.instances: List[Dict[str, Any]] = []
        self.calls: List[str] = []
        self.total_key: Optional[str] = "total"
        self.honour_page = True
        self.honour_service_filter = True
        self.list_answer: Optional[Callable[[], httpx.Response]] = None

    def add(self, service_id: int, name: str, status: str = "running", **state: Any) -> str:
        uid = f"{len(self.instances) + 1:08X}-0000-4000-8000-000000000000"
        deleted = status == "deleted"
        self.instances.append(
            {
                "instanceUid": uid,
                "displayName": name,
                "serviceId": service_id,
                "svc": str(service_id),
                "isDeleted": deleted,
                "lastOperation": "delete" if deleted else "create",
                "lastOperationUid": None,
                "explainedStatus": status,
                "instanceConfigDtCreated": f"2026-01-01T00:{len(self.instances):04d}",
                "state": {"params": state.get("params", {}), "out": state.get("out", {})},
            }
        )
        return uid

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        path = url.path.split("/api/v1/svc", 1)[1]
        query = dict(parse_qsl(url.query))
        self.calls.append(path + ("?" + url.query if url.query else ""))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return httpx.Response(401, json={"error": "401 Unauthorized"})
        if path == "/instances":
            if self.list_answer is not None:
                return self.list_answer()
            items = self.instances
            if query.get("serviceId") and self.honour_service_filter:
                items = [i for i in items if str(i["serviceId"]) == query["serviceId"]]
            size = int(query.get("pageSize", 50))
            page = int(query.get("page", 1)) if self.honour_page else 1
            chosen = items[(page - 1) * size : page * size]
            body: Dict[str, Any] = {"results": [{k: i[k] for k in LIST_FIELDS} for i in chosen]}
            if self.total_key:
                body[self.total_key] = len(items)
            return httpx.Response(200, json=body)
        uid = path.rsplit("/", 1)[-1]
        for item in self.instances:
            if item["instanceUid"] == uid:
                return httpx.Response(200, json={"instance": item})
        return httpx.Response(404, json={"ERROR": f"instance {uid} not found"})

    @property
    def detail_calls(self) -> List[str]:
        return [c for c in self.calls if c.startswith("/instances/")]

    @property
    def list_calls(self) -> List[str]:
        return [c for c in self.calls if c.startswith("/instances?")]


def api(deck: RealShapedDeck) -> InventoryApi:
    client = ApiClient(ClientConfig(ENDPOINT, TOKEN), policy=RetryPolicy(scale=0), transport=deck.transport())
    return InventoryApi(client)


def selection(services: Optional[List[str]] = None, **kwargs: Any) -> Selection:
    return Selection(load_catalogue().select(services or []), all_services=not services, **kwargs)


def test_list_without_status_reads_details_even_when_they_are_off() -> None:
    """Real list items carry no explainedStatus: each live instance is read once for its status (the details
    read anyway are used); a deleted one (isDeleted / lastOperation delete) is never read."""
    deck = RealShapedDeck()
    running = deck.add(91, "cache", params={"resourceCPU": 1000})
    suspended = deck.add(91, "sleepy", "suspended")
    deck.add(91, "gone", "deleted")
    records = read_hosts(api(deck), selection(details=False), concurrency=1)
    assert [r["instance_uid"] for r in records] == [running, suspended]
    assert [r["status"] for r in records] == ["running", "suspended"]
    assert records[0]["params"]["resource_cpu"] == 1000
    assert sorted(deck.detail_calls) == [f"/instances/{running}", f"/instances/{suspended}"]
    assert len(deck.list_calls) == 1


def test_statuses_are_applied_after_the_read_when_the_list_has_none() -> None:
    deck = RealShapedDeck()
    deck.add(91, "cache")
    sleepy = deck.add(91, "sleepy", "suspended")
    records = read_hosts(api(deck), selection(statuses=["suspended"]), concurrency=4)
    assert [r["instance_uid"] for r in records] == [sleepy]


def test_total_count_and_paging() -> None:
    """`totalCount` instead of `total` (both occur): 150 instances -> pages 1 and 2 of 100, no third call."""
    deck = RealShapedDeck()
    deck.total_key = "totalCount"
    for n in range(150):
        deck.add(1, f"d{n}")
    records = read_hosts(api(deck), selection(), concurrency=8)
    assert len(records) == 150
    assert [c.split("page=")[1].split("&")[0] for c in deck.list_calls] == ["1", "2"]


def test_without_total_the_listing_stops_at_the_first_empty_page() -> None:
    deck = RealShapedDeck()
    deck.total_key = None
    for n in range(120):
        deck.add(1, f"d{n}")
    assert len(read_hosts(api(deck), selection(), concurrency=8)) == 120
    assert len(deck.list_calls) == 3


def test_a_server_that_ignores_page_does_not_loop() -> None:
    """Page 2 repeating page 1 brings nothing new: the listing stops instead of asking 1,000 times."""
    deck = RealShapedDeck()
    deck.total_key = None
    deck.honour_page = False
    for n in range(100):
        deck.add(1, f"d{n}")
    assert len(read_hosts(api(deck), selection(), concurrency=8)) == 100
    assert len(deck.list_calls) == 2


def test_a_server_that_ignores_the_service_filter_still_gives_only_that_service() -> None:
    deck = RealShapedDeck()
    deck.honour_service_filter = False
    pg = deck.add(90, "db")
    deck.add(91, "cache")
    records = read_hosts(api(deck), selection(["postgres"], details=False), concurrency=1)
    assert [r["instance_uid"] for r in records] == [pg]
    assert deck.detail_calls == [f"/instances/{pg}"]


def test_an_instance_gone_between_list_and_read_is_no_host() -> None:
    deck = RealShapedDeck()
    kept = deck.add(1, "kept")
    gone = deck.add(1, "gone-later")
    original = deck.handle

    def vanish(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(gone):
            deck.calls.append(request.url.path)
            return httpx.Response(404, json={"ERROR": "not found"})
        return original(request)

    deck.handle = vanish  # type: ignore[method-assign]
    assert [r["instance_uid"] for r in read_hosts(api(deck), selection(), concurrency=2)] == [kept]


def test_html_instead_of_a_list_is_an_error_naming_the_endpoint() -> None:
    deck = RealShapedDeck()
    deck.list_answer = lambda: httpx.Response(200, text="<html>login</html>", headers={"Content-Type": "text/html"})
    with pytest.raises(NotDeckApiError) as caught:  # the core's client refuses it, before any write
        read_hosts(api(deck), selection(), concurrency=1)
    assert ENDPOINT in caught.value.msg
    assert "text/html" in caught.value.msg
    assert "api_endpoint (NUBES_API_ENDPOINT)" in caught.value.msg


def test_json_without_results_is_an_error() -> None:
    deck = RealShapedDeck()
    deck.list_answer = lambda: httpx.Response(200, json={"items": []})
    with pytest.raises(ApiError, match="not a deck-api instance list"):
        read_hosts(api(deck), selection(), concurrency=1)


def test_404_on_the_list_points_at_the_endpoint() -> None:
    deck = RealShapedDeck()
    deck.list_answer = lambda: httpx.Response(404, json={"error": "no route"})
    with pytest.raises(NotDeckApiError, match=r"api_endpoint \(NUBES_API_ENDPOINT\)"):
        read_hosts(api(deck), selection(), concurrency=1)


def test_records_hold_no_secret_output_and_take_ansible_host_from_the_first_address() -> None:
    deck = RealShapedDeck()
    out = {"adminPass": "p4ss-word", "externalConnect": {"master": {"ip": "185.1.2.3", "fqdn": "pg.example"}}}
    deck.add(90, "db", out=out)
    (record,) = read_hosts(api(deck), selection(), concurrency=1)
    assert record["ansible_host"] == "pg.example"
    assert "adminPass" not in record["outputs"]
    assert "p4ss-word" not in json.dumps(record)
    assert record["outputs"]["externalConnect.master.ip"] == "185.1.2.3"


def test_ansible_host_outputs_override_and_reject_secrets() -> None:
    deck = RealShapedDeck()
    deck.add(90, "db", out={"externalConnect": {"master": {"ip": "185.1.2.3", "fqdn": "pg.example"}}})
    chosen = selection(host_outputs={90: ["externalConnect.master.ip"]})
    assert read_hosts(api(deck), chosen, concurrency=1)[0]["ansible_host"] == "185.1.2.3"
    with pytest.raises(InputError, match="postgres has no public output 'adminPass'"):
        selection(host_outputs={90: ["adminPass"]})


def test_unknown_status_is_refused() -> None:
    with pytest.raises(InputError, match="unknown status 'deleted'"):
        selection(statuses=["deleted"])
