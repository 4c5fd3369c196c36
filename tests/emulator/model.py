"""The emulator's stored objects: instances, operations and the parameter values set on operations."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tests.emulator import assumptions as A


@dataclass
class ParamRow:
    """One `instanceOperationCfsParam`: the value of one cfsParam on one operation."""

    uid: str
    param_id: int
    value: str


@dataclass
class Operation:
    uid: str
    instance_uid: str
    svc_operation_id: int
    operation: str
    created: float
    updater: dict[str, str]
    rows: dict[int, ParamRow] = field(default_factory=dict)
    # the plan, fixed when the operation is run (None while it is a draft)
    t_submit: float | None = None
    t_start: float | None = None
    t_finish: float | None = None
    t_planned_end: float | None = None  # end of the last stage if nothing failed
    stages: list[str] = field(default_factory=list)
    fail_stage: int | None = None  # 0-based index of the stage that fails
    fail_message: str | None = None
    followup_of: str | None = None  # the delete this platform-generated operation follows
    followup_uid: str | None = None  # on a delete: its follow-up
    applied: bool = False  # effects applied to the instance
    result_state: dict[str, Any] | None = None

    @property
    def submitted(self) -> bool:
        return self.t_submit is not None

    def phase(self, now: float) -> str:
        """draft | pending | running | finished."""
        if self.t_submit is None or now < self.t_submit:
            return "draft"
        assert self.t_start is not None and self.t_finish is not None
        if now < self.t_start:
            return "pending"
        if now < self.t_finish:
            return "running"
        return "finished"

    def active(self, now: float) -> bool:
        return self.phase(now) in ("pending", "running")

    @property
    def successful(self) -> bool:
        return self.fail_stage is None and self.followup_of is None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rows"] = [asdict(r) for r in self.rows.values()]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Operation:
        data = dict(data)
        rows = [ParamRow(**r) for r in data.pop("rows", [])]
        op = cls(**data)
        op.rows = {r.param_id: r for r in rows}
        return op


@dataclass
class Instance:
    uid: str
    display_name: str
    descr: str
    service_id: int
    created: float
    state: dict[str, Any] | None = None
    status: str = A.STATUS_NOT_CREATED  # the settled status (when no operation is active)
    is_deleted: bool = False
    operation_uids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        return cls(**data)
