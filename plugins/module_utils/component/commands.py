# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How component code runs a program (kustomize, helm): it never starts one itself, it is given a runner.

module_utils may not start processes (ansible-test's ``ansible-bad-function``), so every caller passes a
:class:`CommandRunner`: on the controller ``plugin_utils.commands.run_command``, in the module
:func:`module_runner` (``module.run_command``).
"""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Protocol, Tuple


class CommandRunner(Protocol):
    """Runs a program: what the component code is given instead of starting one itself."""

    def __call__(
        self, argv: List[str], environ_update: Optional[Mapping[str, str]] = None, stdin: Optional[str] = None
    ) -> Tuple[int, str, str]:
        """argv, environment additions (or None), text for the program's stdin (or None: no input) -> (exit code,
        stdout, stderr); a non-zero exit is returned, not raised."""


def module_runner(module: Any) -> CommandRunner:
    """A CommandRunner over ``module.run_command`` (a non-zero exit is returned, not raised)."""

    def run(
        argv: List[str], environ_update: Optional[Mapping[str, str]] = None, stdin: Optional[str] = None
    ) -> Tuple[int, str, str]:
        rc, out, err = module.run_command(
            argv, environ_update=dict(environ_update or {}), check_rc=False, data=stdin, binary_data=True
        )
        return int(rc), str(out), str(err)

    return run
