"""Run-time settings of the emulator (changeable through the admin API)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.emulator import assumptions as A

OPERATION_ID_OFFSET_ENV = "NUBES_EMULATOR_OPERATION_ID_OFFSET"


def operation_id_offset_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The operation-id offset `NUBES_EMULATOR_OPERATION_ID_OFFSET` asks for (unset or empty: 0)."""
    raw = (os.environ if environ is None else environ).get(OPERATION_ID_OFFSET_ENV, "").strip()
    if not raw:
        return 0
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{OPERATION_ID_OFFSET_ENV} must be a whole number >= 0, got {raw!r}")
    return value


@dataclass
class Settings:
    op_duration: float | None = None  # every operation takes this long (None: per-kind defaults)
    durations: dict[str, float] = field(default_factory=dict)  # "postgres", "postgres.create", "90.create", "create"
    unique_display_names: bool = A.UNIQUE_DISPLAY_NAMES_DEFAULT
    pending_fraction: float = A.PENDING_FRACTION

    def duration_for(self, svc_id: int, svc_short: str, operation: str) -> float:
        for key in (f"{svc_short}.{operation}", f"{svc_id}.{operation}", svc_short, str(svc_id), operation):
            if key in self.durations:
                return float(self.durations[key])
        if self.op_duration is not None:
            return float(self.op_duration)
        return A.DEFAULT_DURATIONS.get(operation, A.DEFAULT_DURATIONS["*"])

    def update(self, data: dict[str, Any]) -> None:
        known = set(asdict(self))
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(known)}")
        if "op_duration" in data:
            self.op_duration = None if data["op_duration"] is None else float(data["op_duration"])
        if "durations" in data:
            self.durations = {str(k): float(v) for k, v in dict(data["durations"]).items()}
        if "unique_display_names" in data:
            self.unique_display_names = bool(data["unique_display_names"])
        if "pending_fraction" in data:
            fraction = float(data["pending_fraction"])
            if not 0.0 <= fraction < 1.0:
                raise ValueError("pending_fraction must be in [0, 1)")
            self.pending_fraction = fraction

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
