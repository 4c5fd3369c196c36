# Copyright: (c) nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bench-only callback: wall-clock start and end of every task result, written as JSON at the end of the play.

Enabled by the benchmarks only (ANSIBLE_CALLBACK_PLUGINS=bench/callback_plugins, ANSIBLE_CALLBACKS_ENABLED=
bench_timing); the file goes to $NUBES_BENCH_TIMING_FILE. Each record: task name, action, host, status,
start and end (epoch seconds, time.time()), the result's `changed`, its `api_calls` (component module) and,
for failures, its `msg`.
"""

from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: bench_timing
type: aggregate
short_description: per-task wall-clock timing for the benchmarks
description:
  - Records when each task started and when each host's result arrived.
  - Writes JSON to $NUBES_BENCH_TIMING_FILE.
options: {}
"""


class CallbackModule(CallbackBase):
    """Records (task, host) start/end times."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_timing"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self) -> None:
        super().__init__()
        self._started: dict = {}
        self._records: list = []

    def v2_playbook_on_task_start(self, task, is_conditional) -> None:
        self._started[task._uuid] = time.time()

    def v2_runner_on_start(self, host, task) -> None:
        self._started[(task._uuid, host.get_name())] = time.time()

    def _record(self, result, status: str) -> None:
        task = result._task
        host = result._host.get_name()
        start = self._started.get((task._uuid, host), self._started.get(task._uuid, 0.0))
        self._records.append(
            {
                "task": task.get_name(),
                "action": task.action,
                "host": host,
                "status": status,
                "start": start,
                "end": time.time(),
                "changed": bool(result._result.get("changed")),
                "api_calls": result._result.get("api_calls"),
                "msg": str(result._result.get("msg", ""))[:2000] if status == "failed" else "",
            }
        )

    def v2_runner_on_ok(self, result) -> None:
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False) -> None:
        self._record(result, "failed")

    def v2_runner_on_unreachable(self, result) -> None:
        self._record(result, "unreachable")

    def v2_runner_on_skipped(self, result) -> None:
        self._record(result, "skipped")

    def v2_playbook_on_stats(self, stats) -> None:
        path = os.environ.get("NUBES_BENCH_TIMING_FILE")
        if path:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self._records, handle)
