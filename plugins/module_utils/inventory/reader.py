# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the instances of the selected services with the fewest API calls; turn them into host records.

Calls, exactly:
1. The paged list `GET /instances?page=N&pageSize=100`: one paged list of every instance when every service is
   selected, else one paged list per selected service (`&serviceId=<id>`, so other services' instances never
   travel). Pages continue while the answer's `total` (or `totalCount`) says more exist.
2. `GET /instances/{uid}` for an instance only when all of these hold: its service is selected, the list does not
   mark it deleted, its listed status passes `statuses`, and either `instance_details` is on (params, outputs and
   `ansible_host` live only there; list items carry no `state`, deck-api.md 4.1) or the list item has no
   `explainedStatus` to take the status from. These reads run `concurrency` at a time.
Every GET goes through the core's client and DeckApi reads, so the modules' retry policy applies (P32-P34).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import ServiceEntry
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import PAGE_SIZE, DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiResponse
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, InputError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    CREATING,
    DELETED,
    FAILED,
    NOT_CREATED,
    PENDING,
    RUNNING,
    SUSPENDED,
    Instance,
)

# What `statuses` may name: every normalised status of a live instance (deleted ones are never hosts).
LIVE_STATUSES = (RUNNING, SUSPENDED, CREATING, PENDING, FAILED, NOT_CREATED)
MAX_LIST_PAGES = 1000  # 100,000 instances at 100 a page; beyond that the listing fails instead of truncating
NOT_DECK_API_HINT = (
    "check api_endpoint (NUBES_API_ENDPOINT): it must be the deck-api base URL, e.g. the gateway "
    "https://lk-api-gateway.ngcloud.ru/api/v1/svc or the legacy https://deck-api.ngcloud.ru/api/v1/index.cfm"
)


class Selection:
    """What the inventory source asks for, validated before any API call."""

    def __init__(
        self,
        services: Sequence[ServiceEntry],
        all_services: bool,
        statuses: Sequence[str] = (),
        details: bool = True,
        host_outputs: Optional[Mapping[int, Sequence[str]]] = None,
    ) -> None:
        unknown = [s for s in statuses if s not in LIVE_STATUSES]
        if unknown:
            raise InputError(
                f"statuses: unknown status {', '.join(map(repr, unknown))}; choose from {', '.join(LIVE_STATUSES)} "
                "(deleted instances are never hosts)"
            )
        self.services: Dict[int, ServiceEntry] = {s.service_id: s for s in services}
        self.all_services = all_services
        self.statuses: FrozenSet[str] = frozenset(statuses)
        self.details = details
        self.host_outputs: Dict[int, Tuple[str, ...]] = {}
        for service_id, codes in (host_outputs or {}).items():
            entry = self.services.get(service_id)
            if entry is None:
                continue
            secret_or_unknown = [c for c in codes if c not in entry.public_outputs]
            if secret_or_unknown:
                named = ", ".join(map(repr, secret_or_unknown))
                raise InputError(
                    f"ansible_host_outputs: {entry.name} has no public output {named}; "
                    f"its outputs are: {', '.join(entry.public_outputs) or 'none'} (secret outputs are never used)"
                )
            self.host_outputs[service_id] = tuple(codes)

    def wants_status(self, status: str) -> bool:
        return status != DELETED and (not self.statuses or status in self.statuses)

    def address_outputs(self, entry: ServiceEntry) -> Tuple[str, ...]:
        return self.host_outputs.get(entry.service_id, entry.address_outputs)


class InventoryApi(DeckApi):
    """DeckApi plus the one read the core does not offer: the instance list without a service filter."""

    def list_instances_paged(self, service_id: Optional[int] = None) -> List[Instance]:
        """Every instance (deleted ones too) of one service, or of all services when `service_id` is None."""
        items: List[Instance] = []
        seen: set = set()
        for page in range(1, MAX_LIST_PAGES + 1):
            query: Dict[str, Any] = {"page": page, "pageSize": PAGE_SIZE}
            if service_id is not None:
                query["serviceId"] = service_id
            results, total = self._list_page(self._read("/instances", query), service_id)
            fresh = [i for i in results if i.uid and i.uid.lower() not in seen]
            seen.update(i.uid.lower() for i in fresh)
            items.extend(fresh)
            if not fresh:  # an empty page, or a server that ignores `page`: nothing more to come
                return items
            if total is not None and len(seen) >= total:
                return items
        raise NubesError(
            f"the instance list has more than {MAX_LIST_PAGES} pages of {PAGE_SIZE}; narrow it down with services"
        )

    def _list_page(self, response: ApiResponse, service_id: Optional[int]) -> Tuple[List[Instance], Optional[int]]:
        what = "listing instances" + (f" of service {service_id}" if service_id is not None else "")
        if not response.ok:
            hint = NOT_DECK_API_HINT if response.status in (404, 405) else ""
            raise self.client.error(what, "GET", "/instances", response, hint)
        body = response.body
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            kind = response.header("Content-Type") or "no content type"
            raise ApiError(
                self.client.redactor(
                    f"{what} failed: {self.client.config.endpoint} answered HTTP {response.status} ({kind}) with "
                    f"something that is not a deck-api instance list; {NOT_DECK_API_HINT}"
                ),
                status=response.status,
            )
        results = [Instance(item) for item in body["results"] if isinstance(item, dict)]
        if service_id is not None:  # tolerate a server that ignores the filter
            results = [i for i in results if i.service_id in (None, service_id)]
        total = str(body.get("total", body.get("totalCount")))  # both keys occur (deck-api 2.1)
        return results, int(total) if total.isdigit() else None


def read_hosts(api: InventoryApi, selection: Selection, concurrency: int = 8) -> List[Dict[str, Any]]:
    """Host records (plain, JSON-safe, secret-free dicts) of the live selected instances, oldest first."""
    listed: List[Instance] = []
    if selection.all_services:
        listed = api.list_instances_paged()
    else:
        for service_id in selection.services:
            listed.extend(api.list_instances_paged(service_id))
    candidates = [i for i in listed if i.service_id in selection.services and _listed_wanted(i, selection)]
    wanted_uids = [i.uid for i in candidates if selection.details or not i.status_raw]
    details = read_details(api, wanted_uids, concurrency)
    records: List[Tuple[str, str, Dict[str, Any]]] = []
    for listed_instance in candidates:
        instance = listed_instance
        read = listed_instance.uid in details
        if read:
            detail = details[listed_instance.uid]
            if detail is None:  # gone between the list and the read
                continue
            instance = Instance({**listed_instance.data, **detail.data})
        if not selection.wants_status(instance.status):
            continue
        entry = selection.services[listed_instance.service_id or 0]
        records.append((instance.created, instance.uid, host_record(entry, instance, read, selection)))
    records.sort(key=lambda r: (r[0], r[1]))
    return [record for _created, _uid, record in records]


def _listed_wanted(instance: Instance, selection: Selection) -> bool:
    """Decided on the list alone: deleted instances and listed statuses outside `statuses` are dropped."""
    if instance.is_deleted:
        return False
    if not instance.status_raw:  # the list says nothing about the status (only `lastOperation`)
        return instance.status != DELETED
    return selection.wants_status(instance.status)


def read_details(api: DeckApi, uids: Sequence[str], concurrency: int) -> Dict[str, Optional[Instance]]:
    """`GET /instances/{uid}` for each uid, `concurrency` at a time; None for an instance the API no longer has."""
    if not uids:
        return {}
    workers = max(1, min(concurrency, len(uids)))
    if workers == 1:
        return {uid: api.get_instance(uid) for uid in uids}
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nubes-inventory") as pool:
        return dict(zip(uids, pool.map(api.get_instance, uids)))


def host_record(entry: ServiceEntry, instance: Instance, detailed: bool, selection: Selection) -> Dict[str, Any]:
    """The host variables of one instance; `params`, `outputs` and `ansible_host` only when it was read."""
    raw_params = instance.params()
    realm = instance.data.get("resourceRealm") or raw_params.get("resourceRealm")
    record: Dict[str, Any] = {
        "instance_uid": instance.uid,
        "resource_name": instance.display_name,
        "service": entry.name,
        "service_id": entry.service_id,
        "status": instance.status,
        "status_raw": instance.status_raw,
        "resource_realm": str(realm) if realm else None,
    }
    if detailed:
        record["params"] = entry.params_view(raw_params)
        outputs = entry.outputs_view(instance.outputs())
        record["outputs"] = outputs
        for code in selection.address_outputs(entry):
            value = outputs.get(code)
            if isinstance(value, str) and value.strip():
                record["ansible_host"] = value.strip()
                break
    return record
