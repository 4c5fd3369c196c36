# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Imports done once in ansible-playbook's main process, before it forks the task workers (issue 26).

ansible-core's strategies (linear and free, which debug and host_pinned build on) load each task's action plugin
class in the main process, to read BYPASS_HOST_LOOP (`action_loader.get(task.action, class_only=True)`), and only
then fork the worker that runs the task. What the action plugin imports while its class is loaded is therefore
imported once and inherited by every worker; what the worker imports itself, every task's fresh worker imports
again. So the shared action plugin (in_process.py, when a generated action class is defined) and the component's
action plugin import here what the in-process path of their tasks runs: the module, with the cloud core or the
component engine it imports.

Best-effort: an import that fails here (a dependency missing on the controller, such as httpx or urllib3, or any
other error) is left to the worker, whose own import of the module fails the same way and takes the module path
with its reason (execution_path.py); loading the action plugin never fails because of it. The module path does not
change: its module process imports from the AnsiballZ payload. A run whose tasks all go to other hosts pays these
imports once, in the main process, unless `NUBES_EXECUTION=module` forces the module path for the whole run: then
nothing is imported here (measured: 10 no-op tasks on the module path, 1.12x the CPU of the collection before
issue 26 with the preload, 1.08x without).
"""

from __future__ import annotations

import importlib
import os
from typing import Iterable, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.plugin_utils.execution_path import MODULE, SWITCH_ENV

PLUGINS = "ansible_collections.nubes.cloud.plugins."
# The cloud core the generated modules' main() runs: runner.py imports the task kinds only when they run (issue 19),
# so they are named here; the state backend and the API client come with the runner's context.
CLOUD_CORE = (
    "module_utils.module_entry",
    "module_utils.nubes.runner",
    "module_utils.nubes.instance_task",
    "module_utils.nubes.subresource_task",
    "module_utils.nubes.info",
)
# The component module imports its engine (reconciler, kube client, sources) at its top, behind its IMPORT_ERROR guard.
COMPONENT = ("modules.component",)


def module_of(action_module: str) -> str:
    """The module of a generated action plugin (`...plugins.action.dummy` -> `modules.dummy`): the generator names
    each action plugin after its module."""
    return "modules." + action_module.rpartition(".")[2]


def preload(names: Iterable[str], environ: Optional[Mapping[str, str]] = None) -> List[str]:
    """Import each of `names` (relative to the collection's plugins package) now; returns the ones that failed,
    which stay for the worker to import (and to report) as before. Nothing, when the controller's environment
    forces the module path: no task of the run would use what is imported."""
    if (os.environ if environ is None else environ).get(SWITCH_ENV, "").strip().lower() == MODULE:
        return []
    failed = []
    for name in names:
        try:
            importlib.import_module(PLUGINS + name)
        except Exception:  # pylint: disable=broad-exception-caught  # the worker's own import reports it
            failed.append(name)
    return failed
