# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which path a task of a nubes.cloud module takes (issue 26): in the controller's worker, or as a module.

A task runs in-process when its target is the controller itself (the `local` connection: implicit localhost,
`connection: local`, `delegate_to: localhost`) and nothing would make the module's own run differ from a run in the
controller's process. Everything else takes today's module path, and says why (shown at -vvv):

- the switch: `NUBES_EXECUTION=module` in the controller's environment, or the variable `nubes_execution: module`;
- another host (any connection but `local`);
- `become` (the module would run as another user);
- `async` (async_wrapper runs the module in the background);
- an interpreter on the target that is not the controller's Python (another Python, another venv: other packages);
- a dependency the module needs is missing on the controller (the module's import fails here).

Pure functions: the action plugin (in_process.py) gathers the facts, this decides.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional

SWITCH_ENV = "NUBES_EXECUTION"
SWITCH_VAR = "nubes_execution"
AUTO, MODULE = "auto", "module"
MODES = (AUTO, MODULE)
LOCAL_CONNECTIONS = frozenset({"local", "ansible.builtin.local", "ansible.legacy.local"})
DISCOVERY = ("", "auto", "auto_silent", "auto_legacy", "auto_legacy_silent")


class SwitchError(ValueError):
    """The switch holds a value that is not one of MODES."""


def requested_mode(environ: Mapping[str, str], task_vars: Mapping[str, Any]) -> str:
    """The switch: the variable `nubes_execution` wins over the controller's `NUBES_EXECUTION`; default `auto`."""
    value = task_vars.get(SWITCH_VAR)
    where = f"the variable {SWITCH_VAR}"
    if value is None or value == "":
        value, where = environ.get(SWITCH_ENV) or AUTO, f"the environment variable {SWITCH_ENV}"
    mode = str(value).strip().lower()
    if mode not in MODES:
        raise SwitchError(
            f"{where} is {str(value)[:40]!r}: use `module` to run nubes.cloud tasks as modules, or `auto` (the "
            "default) to run them in the controller's process when the target is the controller"
        )
    return mode


def same_python(interpreter: str, controller: str) -> bool:
    """Whether `interpreter` is the controller's Python: the same file in the same directory once links are
    resolved (a venv's python and python3 are the same; the system Python behind a venv is not)."""
    if not interpreter or not controller:
        return False
    first, second = os.path.expanduser(interpreter), os.path.expanduser(controller)
    if not (os.path.isabs(first) and os.path.isabs(second)):
        return False
    return os.path.realpath(os.path.dirname(first)) == os.path.realpath(os.path.dirname(second)) and (
        os.path.realpath(first) == os.path.realpath(second)
    )


def module_path_reason(
    *,
    mode: str,
    connection: str,
    become: bool,
    async_val: int,
    interpreter: Optional[str],
    controller_python: str,
) -> Optional[str]:
    """Why the task takes the module path, or None when it runs in the controller's process (issue 26)."""
    if mode == MODULE:
        return f"forced by {SWITCH_ENV}=module or {SWITCH_VAR}: module"
    if connection not in LOCAL_CONNECTIONS:
        return f"the target is another host (connection {connection})"
    if become:
        return "the task uses become"
    if async_val:
        return "the task is async"
    if interpreter is None or interpreter.strip() in DISCOVERY:
        return "the target's Python interpreter is not known yet (interpreter discovery)"
    if not same_python(interpreter.strip(), controller_python):
        return f"the target's Python interpreter {interpreter.strip()} is not the controller's ({controller_python})"
    return None


def missing_dependency(name: str) -> str:
    """The reason of a task whose module cannot be imported on the controller (checked after the others)."""
    return f"a dependency is missing on the controller ({name})"
