"""The application behind the HTTP server: faults, auth, routing, request log, persistence."""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.emulator import assumptions as A
from tests.emulator.auth import AuthFailure, Verifier, mint_token
from tests.emulator.catalogue import Catalogue
from tests.emulator.clock import Clock
from tests.emulator.engine import Emulator, RequestContext, Response
from tests.emulator.errors import ApiError, cfml_error
from tests.emulator.faults import PRE_KINDS, FaultRule, FaultSet
from tests.emulator.requestlog import RequestLog, redact
from tests.emulator.routes import Target, dispatch
from tests.emulator.settings import Settings
from tests.emulator.views import raw_statuses


@dataclass
class Outcome:
    """What the HTTP layer sends: a response, or a connection reset."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    reset: bool = False


class Application:
    def __init__(
        self,
        *,
        key: str,
        seed: int = 0,
        settings: Settings | None = None,
        faults: list[dict[str, Any]] | None = None,
        state_file: Path | None = None,
        catalogue: Catalogue | None = None,
        clock: Clock | None = None,
        operation_id_offset: int = 0,
    ) -> None:
        self.key = key
        self.seed = seed
        self.clock = clock or Clock()
        self.settings = settings or Settings()
        self.faults = FaultSet(seed, faults)
        self.catalogue = catalogue or Catalogue.load(operation_id_offset=operation_id_offset)
        self.engine = Emulator(self.catalogue, self.clock, self.faults, self.settings, seed, state_file)
        self.verifier = Verifier(key)
        self.log = RequestLog()

    def token(self, ttl: float = A.DEFAULT_TOKEN_TTL, username: str | None = None) -> str:
        return mint_token(self.key, ttl=ttl, now=self.clock.now(), username=username)

    # ------------------------------------------------------------------ API requests
    def handle(self, method: str, target: Target, auth_header: str | None, raw_body: bytes) -> Outcome:
        started = time.perf_counter()
        fault_kind: str | None = None
        delay = self.faults.latency_ms(method, target.path, target.form)
        if delay:
            fault_kind = "latency"
            time.sleep(delay / 1000.0)
        body, body_error = _parse_body(raw_body)
        pre = self.faults.take(PRE_KINDS, method, target.path, target.form)
        if pre is not None:
            fault_kind = pre.kind
        if pre is not None and not pre.commit:
            outcome = _fault_outcome(pre)
        else:
            outcome = self._serve(method, target, auth_header, body, body_error)
            if pre is not None:
                outcome = _fault_outcome(pre)
        self._record(
            method,
            target,
            outcome,
            body if body_error is None else raw_body[:2000].decode("utf-8", "replace"),
            started,
            fault_kind,
        )
        return outcome

    def _serve(
        self, method: str, target: Target, auth_header: str | None, body: Any, body_error: str | None
    ) -> Outcome:
        try:
            claims = self.verifier.verify(auth_header, self.clock.now())
        except AuthFailure as exc:
            return Outcome(401, exc.body, {"WWW-Authenticate": 'Bearer realm="cloud", error="invalid_token"'})
        try:
            if body_error is not None:
                raise cfml_error(400, f"JSON parsing failure: {body_error}", A.TAG_ROUTER)
            response = dispatch(
                self.engine, method, target, body, RequestContext(method, target.path, target.form, claims)
            )
        except ApiError as exc:
            response = Response(exc.status, exc.body, exc.headers)
        except Exception as exc:  # an emulator bug still answers (and is logged) instead of dropping the connection
            traceback.print_exc()
            error = {"ERROR": f"emulator internal error: {type(exc).__name__}: {exc}", "TAGCONTEXT": A.TAG_ROUTER}
            response = Response(500, error)
        finally:
            self.engine.flush()
        if method == "GET" and response.status == 200:
            rule = self.faults.take(("raw_status",), method, target.path, target.form)
            if rule is not None:
                response.body = raw_statuses(response.body, rule.map or A.RAW_STATUS_DEFAULT_MAP)
        return Outcome(response.status, response.body, response.headers)

    def _record(
        self, method: str, target: Target, outcome: Outcome, body: Any, started: float, fault: str | None
    ) -> None:
        self.log.add(
            {
                "method": method,
                "path": target.path,
                "query": dict(target.query),
                "form": target.form,
                "status": 0 if outcome.reset else outcome.status,
                "ms": round((time.perf_counter() - started) * 1000.0, 3),
                "body": redact(body, self._is_secret_param),
                "fault": fault,
            }
        )

    def _is_secret_param(self, body: dict[str, Any]) -> bool:
        pid = body.get("svcOperationCfsParamId")
        if pid is None and isinstance(body.get("instanceOperationCfsParamUid"), str):
            op_uid = self.engine.row_index.get(body["instanceOperationCfsParamUid"].lower())
            op = self.engine.find_op(op_uid) if op_uid else None
            row = (
                next(
                    (r for r in op.rows.values() if r.uid.lower() == body["instanceOperationCfsParamUid"].lower()), None
                )
                if op
                else None
            )
            pid = row.param_id if row else None
        try:
            param = self.catalogue.params.get(int(pid)) if pid is not None else None
        except (TypeError, ValueError):
            return False
        return bool(param and param.get("isSecret"))


def _parse_body(raw: bytes) -> tuple[Any, str | None]:
    if not raw.strip():
        return None, None
    try:
        return json.loads(raw.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as exc:
        return None, str(exc)


def _fault_outcome(rule: FaultRule) -> Outcome:
    if rule.kind == "reset":
        return Outcome(0, reset=True)
    if rule.kind == "unauthorized":
        return Outcome(
            401, dict(A.UNAUTHORIZED_BODY), {"WWW-Authenticate": 'Bearer realm="cloud", error="invalid_token"'}
        )
    status = rule.status or 500
    headers: dict[str, str] = {}
    if rule.retry_after is not None:
        headers["Retry-After"] = str(rule.retry_after)
    body = rule.body if rule.body is not None else _default_fault_body(status)
    return Outcome(status, body, headers)


def _default_fault_body(status: int) -> Any:
    texts = {
        429: "Too Many Requests",
        500: "Internal Server Error",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
    }
    return {"ERROR": f"{status} {texts.get(status, 'Error')}", "TAGCONTEXT": A.TAG_ROUTER}
