"""Start the control-plane processes detached from the launcher, check and stop them by the PIDs recorded."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Started:
    """A process the launcher started: name, PID, the binary it runs and its start time in clock ticks
    since boot (PID, binary and start time together make sure a reused PID is never signalled)."""

    name: str
    pid: int
    exe: str
    start_ticks: int = 0

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Started:
        return cls(
            name=str(data["name"]),
            pid=int(str(data["pid"])),
            exe=str(data["exe"]),
            start_ticks=int(str(data.get("start_ticks", 0))),
        )


def start(name: str, argv: list[str], log_path: Path) -> Started:
    """Run argv in its own session, output to log_path, so it outlives the launcher."""
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True
        )
    _wait_for_exec(proc.pid)
    return Started(name=name, pid=proc.pid, exe=argv[0], start_ticks=_start_ticks(proc.pid))


def _stat_fields(pid: int) -> list[str]:
    """Fields of /proc/<pid>/stat after the command name: [state, ppid, ...]; [] when the PID is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return stat.rsplit(")", 1)[-1].split()


def _start_ticks(pid: int) -> int:
    fields = _stat_fields(pid)
    return int(fields[19]) if len(fields) > 19 else 0  # field 22 of stat: starttime


def _wait_for_exec(pid: int, limit_seconds: float = 2.0) -> None:
    """Return once /proc shows the new command line (or the process is gone), at most limit_seconds."""
    deadline = time.monotonic() + limit_seconds
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes():
                return
        except OSError:
            return
        time.sleep(0.01)


def is_running(proc: Started) -> bool:
    """True when the PID is alive, not a zombie, and still runs the binary we started."""
    try:
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
    except OSError:
        return False
    fields = _stat_fields(proc.pid)
    if not fields or fields[0] in ("Z", "X"):
        return False
    if proc.start_ticks and len(fields) > 19 and int(fields[19]) != proc.start_ticks:
        return False
    # cmdline reads empty for a moment while the kernel finishes exec() of a process just started
    return not cmdline or cmdline.split(b"\0", 1)[0].decode(errors="replace") == proc.exe


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (when stopped by the `up` that started it)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def stop(proc: Started, grace_seconds: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after the grace period; only if the PID still runs our binary."""
    if not is_running(proc):
        return
    os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while time.monotonic() < deadline:
        _reap(proc.pid)
        if not is_running(proc):
            return
        time.sleep(0.1)
    if is_running(proc):
        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.1)
        _reap(proc.pid)


def rss_mib(proc: Started) -> float:
    """Resident memory of the process in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{proc.pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
