"""URL forms (gateway, legacy proxy, path-info) and the API routes on the normalised path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.emulator import assumptions as A
from tests.emulator.engine import Emulator, RequestContext, Response
from tests.emulator.errors import cfml_error

GATEWAY = "gateway"
LEGACY = "legacy"
PATHINFO = "pathinfo"


@dataclass
class Target:
    form: str
    path: str  # normalised API path, e.g. /instanceOperations/<uid>/run
    query: dict[str, str]


def _query(text: str) -> dict[str, str]:
    return dict(parse_qsl(text, keep_blank_values=True))


def _clean(path: str) -> str:
    path = "/" + path.strip("/")
    return path


def parse_target(raw_path: str) -> Target | None:
    """The API request behind one of the three URL forms, or None if the URL is none of them."""
    parts = urlsplit(raw_path)
    path, query = parts.path, parts.query
    if path == A.GATEWAY_PREFIX or path.startswith(A.GATEWAY_PREFIX + "/"):
        return Target(GATEWAY, _clean(path[len(A.GATEWAY_PREFIX) :]), _query(query))
    if path.rstrip("/") == A.LEGACY_SCRIPT:
        outer = _query(query)
        endpoint = outer.pop("endpoint", None)
        if endpoint is None:
            return Target(LEGACY, "/", outer)
        inner = urlsplit(endpoint)
        merged = _query(inner.query)
        merged.update(outer)
        return Target(LEGACY, _clean(inner.path), merged)
    if path.startswith(A.LEGACY_SCRIPT + "/"):
        return Target(PATHINFO, _clean(path[len(A.LEGACY_SCRIPT) :]), _query(query))
    return None


def dispatch(emu: Emulator, method: str, target: Target, body: Any, ctx: RequestContext) -> Response:
    seg = [s for s in target.path.split("/") if s]
    q = target.query
    n = len(seg)
    head = seg[0] if seg else ""
    if head == "instances":
        if n == 1:
            return _by_method(
                method, {"GET": lambda: emu.list_instances(q), "POST": lambda: emu.create_instance(body, ctx)}
            )
        if n == 2:
            return _by_method(
                method, {"GET": lambda: emu.get_instance(seg[1], q), "DELETE": lambda: emu.delete_instance(seg[1])}
            )
    elif head == "instanceOperations":
        if n == 1:
            return _by_method(
                method, {"GET": lambda: emu.list_operations(q), "POST": lambda: emu.create_operation(body, ctx)}
            )
        if n == 3 and seg[1] == "default":
            return _by_method(method, {"GET": lambda: emu.default_operation(seg[2], q)})
        if n == 2:
            return _by_method(method, {"GET": lambda: emu.get_operation(seg[1], q)})
        if n == 3 and seg[2] == "validate-cfs":
            return _by_method(method, {"GET": lambda: emu.validate(seg[1])})
        if n == 3 and seg[2] == "run":
            return _by_method(method, {"POST": lambda: emu.run(seg[1], ctx)})
    elif head == "instanceOperationCfsParams" and n == 1:
        return _by_method(
            method,
            {
                "GET": lambda: emu.list_params(q),
                "POST": lambda: emu.post_param(body),
                "PUT": lambda: emu.put_param(body),
            },
        )
    elif head == "services" and n == 2:
        return _by_method(method, {"GET": lambda: emu.service(seg[1])})
    elif head == "serviceOperation" and n == 2:
        return _by_method(method, {"GET": lambda: emu.service_operation(seg[1])})
    elif head == "resourceRealms" and n == 2 and seg[1] == "available":
        return _by_method(method, {"GET": lambda: emu.realms(q)})
    raise cfml_error(404, f"Endpoint {target.path} not found", A.TAG_ROUTER)


def _by_method(method: str, handlers: dict[str, Any]) -> Response:
    handler = handlers.get(method)
    if handler is None:
        raise cfml_error(405, f"Method {method} is not allowed here (allowed: {', '.join(handlers)})", A.TAG_ROUTER)
    result: Response = handler()
    return result
