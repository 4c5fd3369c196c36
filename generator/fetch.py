"""fetch: the deck-api catalogue -> specs, over HTTP only (P1)."""

from __future__ import annotations

from typing import Any

from generator.api_client import CatalogueClient
from generator.config import ServiceEntry, Timeouts
from generator.errors import GeneratorError
from generator.spec_builder import FetchedService, build_spec
from generator.spec_io import validate_spec


def fetch_service(client: CatalogueClient, entry: ServiceEntry) -> FetchedService:
    """``GET /services/{id}`` and ``GET /serviceOperation/{id}`` for each of its operations."""
    svc = client.service(entry.service_id)
    if int(svc.get("svcId", entry.service_id)) != entry.service_id:
        raise GeneratorError(f"/services/{entry.service_id} answered with svcId {svc.get('svcId')}")
    listed = svc.get("operations")
    if not isinstance(listed, list) or not listed:
        raise GeneratorError(f"service {entry.service_id} ({entry.name}) lists no operations")
    operations: dict[int, dict[str, Any]] = {}
    for item in listed:
        op_id = int(item["svcOperationId"])
        operations[op_id] = client.service_operation(op_id)
    return FetchedService(entry, svc, operations)


def fetch_specs(client: CatalogueClient, entries: list[ServiceEntry], timeouts: Timeouts) -> list[dict[str, Any]]:
    """Every listed service's spec, validated against the schema, in list order."""
    specs = []
    for entry in entries:
        spec = build_spec(fetch_service(client, entry), timeouts)
        validate_spec(spec, f"spec of service {entry.service_id} ({entry.name})")
        specs.append(spec)
    return specs
