# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The component module's one error root, caught once in the module's ``main``.

Errors of the layers below (``kube.errors.KubeError``: connection, API answers, the reconciler's object errors)
are turned into a :class:`ComponentError` at one boundary (``runner.ComponentRun.execute``), so their messages
keep naming the object, the wave and what to do, and the module fails with the status known so far.

It is a :class:`~..nubes.errors.NubesError`, the collection's one error root (issue 26): the module shell maps it
to the result with ``errors.error_result`` like any other module's error.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError


class ComponentError(NubesError):
    """The task fails with ``message``; ``result`` holds what is known (changed, status, summary, warnings) for the
    module result: it is the error's ``details``, and its ``changed`` and ``warnings`` are the error's own."""

    def __init__(self, message: str, result: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.result = dict(result or {})

    @property
    def result(self) -> Dict[str, Any]:
        return self.details

    @result.setter
    def result(self, value: Dict[str, Any]) -> None:
        self.details = dict(value)
        self.changed = bool(self.details.get("changed"))
        self.warnings = [str(warning) for warning in self.details.get("warnings") or []]


class SourceError(ComponentError):
    """The source path cannot be read or built."""


class RenderError(ComponentError):
    """A template or manifest cannot be rendered; the message names the file and line."""


class SpecConfigurationError(ComponentError, ValueError):
    """A configuration key of the spec (C9) has a wrong type or value."""
