# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed calls of the deck-api: instances, operations, cfs params, catalogue (deck-api.md 2.x).

Retries are the client's alone (client.py, retry.py): every method here sends each request once through it.
A 404 means "not found" only for an item path and only once the endpoint is known to be the deck-api (K2);
a 404 on the instance collection, which every deck-api has, means the endpoint is wrong.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import COLLECTION_404, ApiClient, ApiResponse
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, OutcomeUnknownError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import (
    Instance,
    Operation,
    path_uid,
    uid_from_body,
    uid_from_location,
)

PAGE_SIZE = 100
MAX_PAGES = 100
RUN_EXECUTABLE_QUIRK = "key [EXECUTABLE] doesn't exist"
RUN_CONCURRENT_QUIRK = "concurrent operations"


class RunOutcome:
    """What `POST /instanceOperations/{uid}/run` said: started, already running or queued (quirks)."""

    STARTED = "started"
    ALREADY_RUNNING = "already_running"  # 422 Concurrent operations (deck-api 5.4)
    QUEUED = "queued"  # 500 key [EXECUTABLE] doesn't exist: the job is still queued (deck-api 5.4)


class DeckApi:
    """One method per API call; every non-2xx answer becomes an ApiError with a useful message."""

    def __init__(self, client: ApiClient, read_rounds: int = 1) -> None:
        # `read_rounds` is accepted for compatibility and ignored: the client owns every retry (one budget per task).
        self.client = client

    def _read(self, path: str, query: Optional[Mapping[str, Any]] = None) -> ApiResponse:
        """A GET through the client (P32-P34 retries and the budgeted extra rounds happen there)."""
        return self.client.send("GET", path, query)

    # -- instances ---------------------------------------------------------------------------

    def get_instance(self, uid: str) -> Optional[Instance]:
        """The instance, or None when the API says it does not exist (K2: plain not found)."""
        path = f"/instances/{path_uid(uid, 'instance uid')}"  # issue 24: only a UUID goes into a URL
        response = self._read(path)
        if response.status == 404:
            self.client.confirm_deck_api()  # K2: a 404 is "not found" only when it comes from the deck-api
            return None
        if not response.ok:
            raise self.client.error(f"reading instance {uid}", "GET", path, response)
        data = _unwrap(response.body, "instance")
        if not data:
            raise self.client.error(
                f"reading instance {uid}", "GET", path, response, "The API answered without an instance object"
            )
        instance = Instance(data)
        if not instance.uid:
            instance.uid = uid
        return instance

    def list_instances(self, service_id: int) -> List[Instance]:
        """All instances of a service (including deleted ones), following pagination (total or totalCount)."""
        items: List[Instance] = []
        page = 1
        seen = 0
        while page <= MAX_PAGES:
            query = {"serviceId": service_id, "page": page, "pageSize": PAGE_SIZE}
            response = self._read("/instances", query)
            if response.status == 404:
                raise self.client.not_deck_api("GET", "/instances", COLLECTION_404)
            if not response.ok:
                raise self.client.error(f"listing instances of service {service_id}", "GET", "/instances", response)
            body = response.body if isinstance(response.body, dict) else {}
            results = body.get("results") or []
            for item in results:
                if isinstance(item, dict):
                    instance = Instance(item)
                    if instance.service_id is None or instance.service_id == service_id:
                        items.append(instance)
            seen += len(results)
            total = body.get("total", body.get("totalCount"))  # both keys occur (deck-api 2.1)
            if not results:
                break
            if total is not None and str(total).isdigit():
                if seen >= int(total):
                    break
            elif len(results) < PAGE_SIZE:
                break
            page += 1
        return items

    def find_live_by_name(self, service_id: int, display_name: str) -> List[Instance]:
        """Live (not deleted) instances of the service with this display name, oldest first."""
        found = [i for i in self.list_instances(service_id) if i.display_name == display_name and i.live and i.uid]
        return sorted(found, key=lambda i: i.created)

    def create_instance(self, service_id: int, display_name: str, descr: str = "") -> str:
        """K3: `POST /instances` never carries an id; the uid comes from Location or the body."""
        body = {"serviceId": service_id, "displayName": display_name, "descr": descr}
        response = self.client.send("POST", "/instances", body=body)
        if not response.ok:
            hint = ""
            if response.status == 400 and "not unique" in response.cfml_error().lower():
                hint = (
                    "The display name is taken (deleted instances keep their names): choose another resource_name, "
                    "or adopt the existing instance with adopt_existing_on_create=true"
                )
            raise self.client.error(
                f"creating instance {display_name!r} of service {service_id}", "POST", "/instances", response, hint
            )
        uid = uid_from_location(response.header("Location")) or uid_from_body(response.body, "instanceUid")
        if not uid:
            raise OutcomeUnknownError(
                f"creating instance {display_name!r}: the API answered {response.status} without the new uid "
                "(no Location header or body uid)",
                status=response.status,
            )
        return uid

    # -- operations ----------------------------------------------------------------------------

    def create_operation(self, instance_uid: str, operation: str, svc_operation_id: Optional[int]) -> str:
        """`POST /instanceOperations`; 409/400 with a Location naming an op = reuse it (deck-api 5.4)."""
        body: Dict[str, Any] = {"instanceUid": instance_uid, "operation": operation}
        if svc_operation_id is not None:
            body["svcOperationId"] = svc_operation_id
        response = self.client.send("POST", "/instanceOperations", body=body)
        uid = uid_from_location(response.header("Location"))
        if response.ok:
            uid = uid or uid_from_body(response.body, "instanceOperationUid")
            if not uid:
                raise OutcomeUnknownError(
                    f"creating operation {operation!r} on instance {instance_uid}: no operation uid in the answer",
                    status=response.status,
                )
            return uid
        if response.status in (400, 409) and uid:
            return uid  # an operation already exists: reuse it
        raise self.client.error(
            f"creating operation {operation!r} on instance {instance_uid}", "POST", "/instanceOperations", response
        )

    def get_operation(self, op_uid: str, with_params: bool = False) -> Operation:
        path = f"/instanceOperations/{path_uid(op_uid, 'operation uid')}"  # issue 24
        query = {"fields": "cfsParams"} if with_params else None
        response = self._read(path, query)
        if not response.ok:
            raise self.client.error(f"reading operation {op_uid}", "GET", path, response)
        data = _unwrap(response.body, "instanceOperation")
        operation = Operation(data or {})
        operation.uid = operation.uid or op_uid
        return operation

    def set_param(self, op_uid: str, param_id: int, value: str, value_uid: Optional[str] = None) -> None:
        """POST one param value; PUT when the op already holds a value row for it (deck-api 2.3)."""
        body: Dict[str, Any] = {"instanceOperationUid": op_uid, "svcOperationCfsParamId": param_id, "paramValue": value}
        method = "POST"
        if value_uid:
            body["instanceOperationCfsParamUid"] = value_uid
            method = "PUT"
        response = self.client.send(method, "/instanceOperationCfsParams", body=body)
        if not response.ok:
            raise self.client.error(
                f"setting param {param_id} of operation {op_uid}",
                method,
                "/instanceOperationCfsParams",
                response,
                "Check the value of this parameter in the task",
            )

    def validate(self, op_uid: str) -> None:
        path = f"/instanceOperations/{path_uid(op_uid, 'operation uid')}/validate-cfs"  # issue 24
        response = self._read(path)
        if response.status >= 400:
            # Only a 400/422 is a verdict on the params; 401/429/5xx left after the retries get the status's own hint.
            rejected = response.status in (400, 422)
            raise self.client.error(
                f"validating the params of operation {op_uid}",
                "GET",
                path,
                response,
                "The API rejected the parameters: fix them in the task and re-run" if rejected else "",
            )

    def run(self, op_uid: str) -> str:
        """`POST .../run` with `{}`; returns a RunOutcome; quirks of deck-api 5.4 are not errors."""
        path = f"/instanceOperations/{path_uid(op_uid, 'operation uid')}/run"  # issue 24
        response = self.client.send("POST", path, body={})
        if response.ok:
            return RunOutcome.STARTED
        text = response.cfml_error()
        if response.status == 422 and RUN_CONCURRENT_QUIRK in text.lower():
            return RunOutcome.ALREADY_RUNNING
        if response.status == 500 and RUN_EXECUTABLE_QUIRK.lower() in text.lower():
            return RunOutcome.QUEUED
        raise self.client.error(f"running operation {op_uid}", "POST", path, response)

    # -- catalogue -----------------------------------------------------------------------------

    def get_service(self, service_id: int) -> Dict[str, Any]:
        path = f"/services/{service_id}"
        response = self._read(path)
        if not response.ok:
            raise self.client.error(f"reading service {service_id}", "GET", path, response)
        return _unwrap(response.body, "svc") or {}

    def get_service_operation(self, svc_operation_id: int) -> Dict[str, Any]:
        path = f"/serviceOperation/{svc_operation_id}"
        response = self._read(path)
        if not response.ok:
            raise self.client.error(f"reading service operation {svc_operation_id}", "GET", path, response)
        return _unwrap(response.body, "svcOperation") or {}

    # -- added for live lookups and real deletion (issue 15) --------------------------------------

    def named(self, service_id: int, display_name: str) -> List[Instance]:
        """Every instance of the service with this display name, deleted ones included (they keep their names)."""
        return [i for i in self.list_instances(service_id) if i.display_name == display_name and i.uid]

    def delete_instance(self, uid: str) -> None:
        """`DELETE /instances/{uid}`: removes a placeholder no operation has run on; the API answers 422 `Instance
        deletion disabled when having state` once one has (deck-api 2.1), so that is a clear error here."""
        path = f"/instances/{path_uid(uid, 'instance uid')}"  # issue 24
        response = self.client.send("DELETE", path)
        if response.ok or response.status == 404:
            return
        hint = ""
        if response.status == 422:
            hint = (
                "An operation has run on this instance, so the API keeps it, and it offers no delete operation for it: "
                "remove it in the Cloud Console"
            )
        raise self.client.error(f"removing instance {uid}", "DELETE", path, response, hint)


def _unwrap(body: Any, key: str) -> Optional[Dict[str, Any]]:
    """`{key: {...}}` -> the inner object; a bare object is accepted too."""
    if not isinstance(body, dict):
        return None
    inner = body.get(key)
    if isinstance(inner, dict):
        return inner
    return body if body else None


def response_error_text(response: ApiResponse) -> str:
    return response.cfml_error()


__all__ = ["ApiError", "DeckApi", "RunOutcome"]
