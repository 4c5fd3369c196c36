# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a program on the controller, for controller-side code such as the Helm renderer (issue 17).

module_utils code may not start processes itself (modules use ``module.run_command``); it takes a runner instead,
and on the controller this is the runner: ``argv, environ_update, stdin -> (exit code, stdout, stderr)``.
"""

from __future__ import annotations

import os
import subprocess
from typing import List, Mapping, Optional, Tuple

DEFAULT_TIMEOUT_SECONDS = 300
TIMEOUT_EXIT_CODE = 124  # as coreutils' timeout(1)


def run_command(
    argv: List[str],
    environ_update: Optional[Mapping[str, str]] = None,
    stdin: Optional[str] = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> Tuple[int, str, str]:
    """Run ``argv`` with the environment plus ``environ_update``, ``stdin`` as its input (through a pipe, issue 26:
    e.g. a chart's values, which may hold secrets, never go to a file); a hung program is stopped after
    ``timeout`` s."""
    env = dict(os.environ)
    env.update(environ_update or {})
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return TIMEOUT_EXIT_CODE, "", f"{argv[0]} did not finish within {timeout:g} s"
    except OSError as exc:
        return 127, "", f"cannot run {argv[0]}: {exc.strerror}"
    return proc.returncode, proc.stdout, proc.stderr
