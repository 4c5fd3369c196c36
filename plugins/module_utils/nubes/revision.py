# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`git_revision` of the services that redeploy (P14, P18): which revision is deployed, whether the task's differs,
and how the diff shows it. Pure functions of the spec, the live params and the record."""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.records import Record
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ServiceSpec

Live = Mapping[str, Optional[str]]


def param_code(spec: ServiceSpec) -> str:
    """The code the redeploy operation takes git_revision as."""
    redeploy = spec.operation("redeploy")
    for param in redeploy.params if redeploy else ():
        if param.option == "git_revision":
            return param.code
    return "gitRevision"


def deployed(spec: ServiceSpec, live: Live, record: Optional[Record]) -> Optional[str]:
    """The git_revision deployed: live when the API reports it, else the one this record deployed."""
    current = live.get(param_code(spec)) or (record.git_revision if record is not None else None)
    return None if current is None else str(current)


def changed(spec: ServiceSpec, wanted: Optional[str], live: Live, record: Optional[Record]) -> bool:
    """P14/P18: the task's git_revision differs from the deployed one (live when the API reports it, else the one
    the record deployed). Unknown counts as differing (issue 23): an adopt or resume of an instance that reports no
    revision redeploys the task's, so the record only ever holds a revision a redeploy applied."""
    if not spec.lifecycle.redeploy or wanted is None:
        return False
    current = deployed(spec, live, record)
    return current is None or current != wanted


def unknown(spec: ServiceSpec, wanted: Optional[str], live: Live, record: Optional[Record]) -> bool:
    """Issue 23: the task gives a git_revision, and neither the live instance nor the record says what is deployed."""
    return bool(spec.lifecycle.redeploy and wanted is not None and deployed(spec, live, record) is None)


def diff(
    spec: ServiceSpec,
    creating: bool,
    present: bool,
    wanted: Optional[str],
    live: Live,
    record: Optional[Record],
) -> Tuple[Dict[str, str], Dict[str, str]]:
    """P14: the diff shows git_revision too (a redeploy changes nothing else): deployed before, the task's after."""
    if not spec.lifecycle.redeploy:
        return {}, {}
    before_value = None if creating else deployed(spec, live, record)
    after_value = wanted if wanted is not None else before_value
    before = {} if before_value is None else {"git_revision": before_value}
    after = {} if after_value is None or not present else {"git_revision": after_value}
    return before, after
