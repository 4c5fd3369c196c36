"""Fault injection: rules matched per request (path pattern + method), by count or probability, seeded.

A rule is a JSON object; see the README ("Fault rules") for the format. Kinds:

* answered before the request is handled: `http` (any status, e.g. 429 with Retry-After, 500, 502, 503,
  504), `unauthorized` (a transient 401 for a valid token), `reset` (the TCP connection is reset),
  `latency` (delay, then handle normally; several latency rules add up);
* consulted by the handlers: `concurrent` (422 Concurrent operations on run), `executable` (/run answers 500
  `key [EXECUTABLE] doesn't exist` but still queues the job), `fail_stage` (the run operation fails at a named
  stage), `stall` (a cold start: the run operation stays queued `ms` longer), `not_unique` (POST /instances
  answers 400 `not unique` for a display name already in use), `operation_exists` (POST /instanceOperations
  answers 409, or `status`, with the Location of an unfinished operation of the same kind on the instance),
  `raw_status` (explainedStatus values replaced by localised raw ones such as `Running`, `Приостановлена`).
"""

from __future__ import annotations

import fnmatch
import random
import threading
from dataclasses import asdict, dataclass, field, fields
from typing import Any

PRE_KINDS = ("http", "unauthorized", "reset")
HANDLER_KINDS = ("concurrent", "executable", "fail_stage", "stall", "not_unique", "operation_exists", "raw_status")
KINDS = (*PRE_KINDS, "latency", *HANDLER_KINDS)
RUN_PATH = "/instanceOperations/*/run"
DEFAULT_TARGETS: dict[str, tuple[str, str]] = {
    "concurrent": (RUN_PATH, "POST"),
    "executable": (RUN_PATH, "POST"),
    "fail_stage": (RUN_PATH, "POST"),
    "stall": (RUN_PATH, "POST"),
    "operation_exists": ("/instanceOperations", "POST"),
    "not_unique": ("/instances", "POST"),
    "raw_status": ("/instances*", "GET"),
}
DEFAULT_COMMIT = {"executable": True}


@dataclass
class FaultRule:
    kind: str
    path: str = ""
    method: str = ""
    count: int | None = None  # fire at most this many times (None: unlimited)
    probability: float = 1.0
    skip: int = 0  # let the first `skip` matching requests through
    form: str | None = None  # only for one endpoint form: gateway | legacy | pathinfo
    status: int | None = None  # http; operation_exists (409 default, or 400)
    body: Any = None  # http: response body (JSON); default a CFML-style error
    retry_after: int | None = None  # http: Retry-After header (429 defaults to 1)
    ms: int = 0  # latency; stall (extra queue time)
    commit: bool | None = None  # the request still takes effect although the client gets the fault
    stage: str | int | None = None  # fail_stage: stage name or 1-based index (default: the last stage)
    error: str | None = None  # fail_stage: the errorLog text
    operation: str | None = None  # run faults: only operations with this name (create, delete, create_user...)
    service: int | str | None = None  # run faults / not_unique: only this svcId or svcShort
    map: dict[str, str] | None = None  # raw_status: normalised -> raw status
    seen: int = field(default=0)
    fired: int = field(default=0)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultRule:
        if not isinstance(data, dict):
            raise ValueError(f"a fault rule must be a JSON object, got {data!r}")
        known = {f.name for f in fields(cls)} - {"seen", "fired"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"fault rule {data!r}: unknown keys {sorted(unknown)}; known keys: {sorted(known)}")
        kind = data.get("kind")
        if kind not in KINDS:
            raise ValueError(f"fault rule {data!r}: kind must be one of {', '.join(KINDS)}")
        rule = cls(**data)
        path, method = DEFAULT_TARGETS.get(kind, ("*", "*"))
        rule.path = rule.path or path
        rule.method = (rule.method or method).upper()
        if rule.commit is None:
            rule.commit = DEFAULT_COMMIT.get(kind, False)
        if kind == "http":
            if not isinstance(rule.status, int) or not 400 <= rule.status <= 599:
                raise ValueError(f"fault rule {data!r}: kind http needs a status between 400 and 599")
            if rule.status == 429 and rule.retry_after is None:
                rule.retry_after = 1
        if not 0.0 <= rule.probability <= 1.0:
            raise ValueError(f"fault rule {data!r}: probability must be between 0 and 1")
        if rule.count is not None and rule.count < 0:
            raise ValueError(f"fault rule {data!r}: count must be >= 0")
        return rule

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def targets(self, method: str, path: str, form: str | None) -> bool:
        if self.method not in ("*", method):
            return False
        if self.form and form and self.form != form:
            return False
        return fnmatch.fnmatchcase(path, self.path)

    def filters_pass(self, operation: str | None, service: tuple[int, str] | None) -> bool:
        if self.operation and operation is not None and self.operation.lower() != operation.lower():
            return False
        if self.service is not None and service is not None:
            return str(self.service).lower() in (str(service[0]), service[1].lower())
        return True


class FaultSet:
    """The active rules; matching is thread-safe and reproducible for a given seed and request order."""

    def __init__(self, seed: int = 0, rules: list[dict[str, Any]] | None = None) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._rules: list[FaultRule] = []
        if rules:
            self.replace(rules)

    def reseed(self, seed: int) -> None:
        with self._lock:
            self._rng = random.Random(seed)

    def replace(self, rules: list[dict[str, Any]]) -> list[FaultRule]:
        parsed = [FaultRule.from_dict(r) for r in rules]
        with self._lock:
            self._rules = parsed
        return parsed

    def add(self, rules: list[dict[str, Any]]) -> list[FaultRule]:
        parsed = [FaultRule.from_dict(r) for r in rules]
        with self._lock:
            self._rules.extend(parsed)
        return parsed

    def clear(self) -> None:
        with self._lock:
            self._rules = []

    def rules(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.to_dict() for r in self._rules]

    def take(
        self,
        kinds: tuple[str, ...],
        method: str,
        path: str,
        form: str | None = None,
        operation: str | None = None,
        service: tuple[int, str] | None = None,
    ) -> FaultRule | None:
        """The first rule of one of `kinds` that fires for this request (its counters are updated)."""
        with self._lock:
            for rule in self._rules:
                if rule.kind not in kinds or not rule.targets(method, path, form):
                    continue
                if not rule.filters_pass(operation, service):
                    continue
                if self._fires(rule):
                    return rule
        return None

    def latency_ms(self, method: str, path: str, form: str | None) -> int:
        total = 0
        with self._lock:
            for rule in self._rules:
                if rule.kind == "latency" and rule.targets(method, path, form) and self._fires(rule):
                    total += rule.ms
        return total

    def _fires(self, rule: FaultRule) -> bool:
        rule.seen += 1
        if rule.seen <= rule.skip:
            return False
        if rule.count is not None and rule.fired >= rule.count:
            return False
        if rule.probability < 1.0 and self._rng.random() >= rule.probability:
            return False
        rule.fired += 1
        return True
