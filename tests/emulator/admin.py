"""The admin API under /_emulator/ (the real deck-api has none): log, faults, settings, clock, state."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.emulator import autoscale
from tests.emulator.app import Application
from tests.emulator.engine import Response
from tests.emulator.errors import ApiError
from tests.emulator.timefmt import fmt

PREFIX = "/_emulator"


def _rules(body: Any) -> list[dict[str, Any]]:
    if isinstance(body, dict) and "rules" in body:
        body = body["rules"]
    if isinstance(body, dict):
        body = [body]
    if not isinstance(body, list):
        raise ValueError('send a rule object, a list of rules or {"rules": [...]}')
    return body


def handle(app: Application, method: str, raw_path: str, body: Any) -> Response:
    parts = urlsplit(raw_path)
    path = parts.path[len(PREFIX) :].strip("/")
    query = dict(parse_qsl(parts.query))
    try:
        return _route(app, method, path, query, body)
    except (ValueError, TypeError) as exc:
        return Response(400, {"error": str(exc)})


def _route(app: Application, method: str, path: str, query: dict[str, str], body: Any) -> Response:
    key = (method, path)
    if key == ("GET", "health"):
        return Response(200, {"ok": True})
    if key == ("GET", "requests"):
        entries = app.log.since(int(query.get("since", "0")))
        return Response(200, {"requests": entries, "last": app.log.last_seq})
    if key == ("DELETE", "requests"):
        app.log.clear()
        return Response(200, {"last": app.log.last_seq})
    if path == "faults":
        if method == "GET":
            return Response(200, {"rules": app.faults.rules()})
        if method == "DELETE":
            app.faults.clear()
            return Response(200, {"rules": []})
        if isinstance(body, dict) and "seed" in body:
            app.faults.reseed(int(body["seed"]))
        if method == "PUT":
            app.faults.replace(_rules(body))
            return Response(200, {"rules": app.faults.rules()})
        if method == "POST":
            app.faults.add(_rules(body))
            return Response(200, {"rules": app.faults.rules()})
    if path == "settings":
        if method in ("PATCH", "PUT", "POST"):
            app.settings.update(dict(body or {}))
        if method in ("GET", "PATCH", "PUT", "POST"):
            return Response(200, app.settings.to_dict())
    if key == ("GET", "instances"):
        return Response(200, {"results": app.engine.all_instances()})
    if method == "POST" and path.startswith("instances/") and path.endswith("/platform-change"):
        uid = path[len("instances/") : -len("/platform-change")]
        try:
            request = dict(body or {})
            subresource = request.get("subresource")
            return Response(
                200,
                app.engine.platform_change(
                    uid, dict(request.get("params") or {}), dict(subresource) if subresource else None
                ),
            )
        except ApiError as exc:
            return Response(exc.status, {"error": exc.body})
    if method == "POST" and path.startswith("instances/") and path.endswith("/grow-disk"):
        return _grow_disk(app, path[len("instances/") : -len("/grow-disk")], body)
    if key == ("GET", "operations"):
        return Response(200, {"results": app.engine.all_operations()})
    if path == "clock":
        if method == "POST":
            data = dict(body or {})
            if data.get("freeze") is True:
                app.clock.freeze()
            if "advance" in data:
                app.clock.advance(float(data["advance"]))
            if data.get("freeze") is False:
                app.clock.unfreeze()
        if method in ("GET", "POST"):
            now = app.clock.now()
            return Response(200, {"now": now, "iso": fmt(now), "frozen": app.clock.frozen, "offset": app.clock.offset})
    if key == ("POST", "token"):
        data = dict(body or {})
        return Response(200, {"token": app.token(float(data.get("ttl", 24 * 3600)), data.get("username"))})
    if key == ("POST", "reset"):
        app.engine.reset()
        app.engine.flush()
        app.log.clear()
        app.faults.clear()
        return Response(200, {"ok": True})
    return Response(404, {"error": f"no admin endpoint {method} {PREFIX}/{path}"})


def _grow_disk(app: Application, uid: str, body: Any) -> Response:
    """POST instances/{uid}/grow-disk {"gb": N}: autoScale grows the disk (issue 23); 409 when the platform would not
    (autoScale off, or not larger than the live disk), 404 for an unknown instance, 400 for a malformed body."""
    if not isinstance(body, dict):
        raise ValueError('grow-disk takes a JSON object {"gb": N}')
    try:
        return Response(200, autoscale.grow_disk(app.engine, uid, body.get("gb")))
    except ApiError as exc:
        return Response(exc.status, {"error": exc.body})
