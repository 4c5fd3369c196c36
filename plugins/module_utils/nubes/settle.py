# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One run settles (issue 23): what a create must be followed by, and which live params a task leaves alone.

Pure functions of the task's values and the live params: they return what they decide (and the warning to give),
and the instance task feeds the result to `lifecycle.decide` and to the values it sends.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ServiceSpec

AUTOSCALE_CODE = "autoScale"  # a catalogue fact: where a service has it, the platform grows resourceDisk while on
DISK_CODE = "resourceDisk"
IGNORED = "ignore_changes"
AUTOSCALED = "autoScale"


def _as_number(text: Optional[str]) -> float:
    try:
        return float(str(text).strip())
    except ValueError:
        return float("nan")  # not a number: never "larger", so never left alone by the autoScale rule


def left_alone(
    converter: ParamConverter,
    ignore_changes: Sequence[str],
    desired: Mapping[str, str],
    live: Mapping[str, Optional[str]],
) -> Tuple[Dict[str, str], List[str]]:
    """The params of an existing instance whose live value the task neither compares nor sends (code -> why), and
    the warnings to give: the options listed in ignore_changes, and a disk that autoScale grew beyond the task's
    size (never shrunk, and said so)."""
    kept = {converter.by_option[o].code: IGNORED for o in ignore_changes if o in converter.by_option}
    wanted, grown = desired.get(DISK_CODE), live.get(DISK_CODE)
    larger = wanted is not None and grown is not None and _as_number(grown) > _as_number(wanted)  # NaN: never
    autoscaled = AUTOSCALE_CODE in converter.by_code and str(live.get(AUTOSCALE_CODE)).lower() == "true"
    if DISK_CODE in kept or not autoscaled or not larger:
        return kept, []
    option = converter.options[DISK_CODE]
    kept[DISK_CODE] = AUTOSCALED
    warning = (
        f"{option}: the live disk ({grown} GB) is larger than the task's ({wanted} GB): autoScale is on, and the "
        f"platform grew it; it is left as it is, never shrunk (list {option} in ignore_changes to say so)"
    )
    return kept, [warning]


def modify_only_codes(converter: ParamConverter, values: Mapping[str, str]) -> List[str]:
    """The codes among `values` that the modify operation takes and the create does not (a create drops them)."""
    return sorted(
        code
        for code in values
        if code in converter.by_code
        and not converter.by_code[code].in_operation("create")
        and converter.by_code[code].in_operation("modify")
    )


def after_create(
    spec: ServiceSpec, converter: ParamConverter, values: Mapping[str, str], git_revision: Optional[str]
) -> Tuple[str, ...]:
    """What a create must be followed by in the same task: a modify when the task sets params only the modify
    operation takes (P38), and a redeploy when it gives a git_revision that the create operation does not take (P14:
    the app would run its default revision)."""
    following: List[str] = []
    if modify_only_codes(converter, values):
        following.append("modify")
    if git_revision is not None and spec.lifecycle.redeploy and not create_deploys(spec):
        following.append("redeploy")
    return tuple(following)


def create_deploys(spec: ServiceSpec) -> bool:
    """P14 (issue 23): the create operation takes git_revision, so a create deploys it. Where it does not, only the
    redeploy after it does, and only that redeploy's success may record the revision as deployed."""
    return any(p.option == "git_revision" and p.in_operation("create") for p in spec.params)
