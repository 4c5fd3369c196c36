"""What the platform does to an instance by itself, with no operation: autoScale grows the disk of a PostgreSQL or
MariaDB as its data grows (emulator-contract; issue 23). The admin API's `grow-disk` call models that growth, and
refuses what the platform never does: grow a disk while autoScale is off, or shrink one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.emulator import views
from tests.emulator.errors import ApiError

if TYPE_CHECKING:
    from tests.emulator.engine import Emulator

Json = dict[str, Any]
AUTOSCALE = "autoScale"
DISK = "resourceDisk"
REFUSED = 409  # the request is well formed, the instance's state forbids it


def requested_size(gb: Any) -> int:
    """The size asked for, in GB: a positive integer (a JSON number or its text), else ValueError (the admin API
    answers 400)."""
    text = str(gb).strip()
    if isinstance(gb, bool) or not text.isdigit() or int(text) < 1:
        raise ValueError(f'grow-disk takes {{"gb": N}} with N a positive integer (the new size in GB), got {gb!r}')
    return int(text)


def checked_growth(uid: str, live: Any, gb: int) -> int:
    """`gb` once the live params allow it: the instance has autoScale on and a disk smaller than `gb`; else an
    ApiError 409 whose message says why."""
    if not isinstance(live, dict) or DISK not in live or AUTOSCALE not in live:
        raise ApiError(
            REFUSED,
            f"instance {uid} has no live {AUTOSCALE} and {DISK}: only a running PostgreSQL or MariaDB grows its disk",
        )
    if str(live[AUTOSCALE]).lower() != "true":
        raise ApiError(
            REFUSED, f"instance {uid} has {AUTOSCALE} off: the platform grows the disk only while {AUTOSCALE} is on"
        )
    current = int(str(live[DISK]))
    if gb <= current:
        raise ApiError(
            REFUSED,
            f"instance {uid} has a {current} GB disk: the platform only grows a disk, so {gb} GB (no growth or a "
            "shrink) is refused",
        )
    return gb


def grow_disk(engine: Emulator, uid: str, gb: Any) -> Json:
    """Grow the instance's live `resourceDisk` to `gb` GB as autoScale does: no operation, no request in the log;
    returns the instance as GET /instances/{uid} shows it. 404 for an unknown instance, 409 when refused."""
    size = requested_size(gb)
    with engine.lock:
        engine.settle(engine.now())
        inst = engine.find_instance(uid)
        if inst is None:
            raise ApiError(404, f"no instance {uid}")
        live: Any = (inst.state or {}).get("params")
        live[DISK] = checked_growth(uid, live, size)  # checked_growth refuses a live that is not a dict
        engine.dirty = True
        return views.instance_view(engine, inst, engine.now())
