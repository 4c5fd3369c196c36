# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How component code runs a program (kustomize, helm): it never starts one itself, it is given a runner.

module_utils may not start processes (ansible-test's ``ansible-bad-function``), so every caller passes a
:data:`CommandRunner`: on the controller ``plugin_utils.commands.run_command``, in the module
:func:`module_runner` (``module.run_command``).
"""

from __future__ import annotations

from typing import Any, Callable, List, Mapping, Optional, Tuple

# argv, environment additions (or None) -> (exit code, stdout, stderr)
CommandRunner = Callable[[List[str], Optional[Mapping[str, str]]], Tuple[int, str, str]]


def module_runner(module: Any) -> CommandRunner:
    """A CommandRunner over ``module.run_command`` (a non-zero exit is returned, not raised)."""

    def run(argv: List[str], environ_update: Optional[Mapping[str, str]] = None) -> Tuple[int, str, str]:
        rc, out, err = module.run_command(argv, environ_update=dict(environ_update or {}), check_rc=False)
        return int(rc), str(out), str(err)

    return run
