# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component's sources handed from its action plugin to the module in the same process (issue 26).

When nubes.cloud.component runs in the controller's process, its action plugin has read (or rendered with helm or
kustomize) the sources already; it hands the file contents to the module here, by reference, instead of encoding
them as JSON into the module's arguments (megabytes of CRD schemas for an operator bundle) and parsing them again.
In a module process nothing is handed over: the contents arrive in the `templates` option as before.
"""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator, Optional

_handed: Optional[Dict[str, str]] = None


@contextlib.contextmanager
def handed(files: Optional[Dict[str, str]]) -> Iterator[None]:
    """While the module runs: `files` wait for `take()`; afterwards nothing is left behind."""
    global _handed  # pylint: disable=global-statement  # one hand-over per task, in the task's own worker process
    _handed = files
    try:
        yield
    finally:
        _handed = None


def take() -> Optional[Dict[str, str]]:
    """The file contents the action plugin handed over (once), else None."""
    global _handed  # pylint: disable=global-statement
    files, _handed = _handed, None
    return files
