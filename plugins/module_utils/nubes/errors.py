# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Exceptions of the core: each carries a message that says what failed and what to do.

:class:`NubesError` is the one error root of every entry point (the cloud modules, ``operation_info``,
``state_migrate``, ``component``, and the in-process action path): each catches it once, and
:func:`error_result` is the one mapping of an error to the task's result (issue 26, kubernetes.core's
``fail_from_exception`` shape; the module shell ``module_entry.finish`` ends a module with it).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

# Keys of a failed result that the mapping sets itself: an error's details never override them.
RESULT_KEYS = ("msg", "changed", "failed", "warnings")


class NubesError(Exception):
    """Base error; `msg` is shown to the user as is, `details` go into the module result."""

    def __init__(self, msg: str, **details: Any) -> None:
        super().__init__(msg)
        self.msg = msg
        self.details: Dict[str, Any] = details
        self.changed = False  # whether the task wrote to the cloud before it failed (set by the Runner)
        self.warnings: List[str] = []  # what the task warned about before it failed (set by the Runner)


def error_result(exc: NubesError) -> Dict[str, Any]:
    """The failed task's result: `msg`, `changed` (whether it wrote before failing), the error's details and, when
    there are any, its `warnings`. The one place an error becomes a result (issue 26)."""
    result = {key: value for key, value in exc.details.items() if key not in RESULT_KEYS}
    result.update(failed=True, msg=exc.msg, changed=bool(exc.changed))
    if exc.warnings:
        result["warnings"] = list(exc.warnings)
    return result


class InputError(NubesError):
    """The task's input is invalid; raised before any write call."""


class ApiError(NubesError):
    """The API answered with an error status."""

    def __init__(self, msg: str, status: Optional[int] = None, **details: Any) -> None:
        super().__init__(msg, status=status, **details)
        self.status = status


class OutcomeUnknownError(ApiError):
    """A write was sent but its outcome is unknown (connection lost, gateway error)."""


class NotDeckApiError(ApiError):
    """The endpoint answered with something that is not the deck-api (an HTML page, a redirect, a 404 without
    the API's error body): api_endpoint points to the wrong place. Raised before any write."""


class OperationFailedError(NubesError):
    """A cloud operation finished unsuccessfully."""


class OperationTimeoutError(NubesError):
    """A cloud operation did not finish within wait_timeout."""


class StateWriteError(NubesError):
    """The state store could not write a record (a full disk, a read-only or vanished directory). The task adds
    what this run changed in the cloud and what the next run does about it (issue 24)."""


class IdentityError(NubesError):
    """The task's identity contradicts the recorded one (K4a/K4b)."""
