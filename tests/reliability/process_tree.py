"""SIGKILL a playbook with every process it started, the module included.

ansible-core's worker calls `setsid()` before it runs a task, so the module process lives in another session and
process group than `ansible-playbook`: killing the playbook's group leaves the module running, and it would finish
its held call and write its record as if nothing had happened (issue 24). So the tree is walked through
`/proc/<pid>/stat` (the parent pid), which `setsid()` does not change, and every process in it is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

MODULE_MARK = "AnsiballZ_"  # the module process's command line names its AnsiballZ wrapper


@dataclass(frozen=True)
class Process:
    pid: int
    cmdline: str

    @property
    def is_module(self) -> bool:
        return MODULE_MARK in self.cmdline


def _parent_pids() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # ended meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after its last ')'
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(pid: int) -> list[Process]:
    """Every live process below `pid`, whatever its session."""
    parents = _parent_pids()
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return [Process(child, _cmdline(child)) for child in found]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting for its parent."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def kill_tree(pid: int) -> list[Process]:
    """SIGKILL `pid`'s process group and every process below it (the module first); returns what was killed."""
    tree = sorted(descendants(pid), key=lambda p: not p.is_module)
    for process in tree:
        with contextlib.suppress(ProcessLookupError):  # ended meanwhile
            os.kill(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    return tree
