# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module shell of every module of the collection (issue 26): :func:`new_module` builds the AnsibleModule,
:func:`finish` ends it with the result of its work or the result of its error (`errors.error_result`, the one
mapping), so the generated modules (`runner.run_module`), `operation_info`, `state_migrate` and `component` end
alike, and the in-process action path maps errors with the same `error_result`.

AnsibleModule construction ends in fail_json, never in a traceback (bad input is a clear error: the
rulebook's beyond-the-seed rules, docs/dev/rules.md).

ansible-core's own argument check raises instead of failing on a few wrongly typed values: an `int` option given
`.inf` (OverflowError in `check_type_int`), a dictionary option given a boolean, a number given a 3-item list.
Every module of the collection builds its AnsibleModule through `new_module()`, so each of these ends in a clean
failure that says what to fix.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NoReturn

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError, error_result

CRASHING_CHECKS = (TypeError, ValueError, OverflowError, AttributeError)


def new_module(argument_spec: Mapping[str, Any], **kwargs: Any) -> AnsibleModule:
    """`AnsibleModule(argument_spec=..., **kwargs)`, or a clean fail_json when ansible-core's check crashes."""
    try:
        return AnsibleModule(argument_spec=dict(argument_spec), **kwargs)
    except CRASHING_CHECKS as exc:
        fail_before_module(exc, argument_spec)


def finish(module: AnsibleModule, work: Callable[[], Mapping[str, Any]]) -> None:
    """Run the module's `work` and exit with its result, or fail with the result of the NubesError it raised (the
    one error root, caught here once; `errors.error_result` maps it). Warnings, of a result or an error, go through
    `module.warn` (ansible-core deprecates `warnings` in exit_json and fail_json)."""
    try:
        result = dict(work())
    except NubesError as exc:
        result = error_result(exc)
    for warning in result.pop("warnings", None) or []:
        module.warn(str(warning))
    if result.pop("failed", False):
        module.fail_json(**result)
        return
    module.exit_json(**result)


def fail_before_module(exc: BaseException, argument_spec: Mapping[str, Any]) -> NoReturn:
    """fail_json through a second AnsibleModule whose options are all `raw` (nothing left to crash on, no_log
    kept so secrets stay masked), naming the options whose check crashes. Only the exception type is shown: its
    text could quote an option's value."""
    raw_spec = {name: {"type": "raw", "no_log": bool(spec.get("no_log"))} for name, spec in argument_spec.items()}
    module = AnsibleModule(argument_spec=raw_spec, supports_check_mode=True)
    culprits = [
        name
        for name, value in module.params.items()
        if value is not None and _check_crashes(name, argument_spec[name], value)
    ]
    where = f"option {', '.join(culprits)}" if culprits else "an option"
    module.fail_json(
        msg=f"invalid module arguments: Ansible's argument check failed with {type(exc).__name__} on {where}; "
        "it has a value of the wrong type (e.g. a number given .inf or a list, a dictionary option given a "
        f"boolean). Check the option's type in `ansible-doc {_documented_name(module)}` and fix the task"
    )
    raise AssertionError("fail_json returned")  # unreachable: fail_json exits


def _check_crashes(name: str, spec: Mapping[str, Any], value: Any) -> bool:
    """Whether ansible-core's check of this one option raises (rather than reporting an error)."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    try:
        ArgumentSpecValidator({name: dict(spec)}).validate({name: value})
    except CRASHING_CHECKS:
        return True
    return False


def _documented_name(module: AnsibleModule) -> str:
    name = str(getattr(module, "_name", "") or "")
    return name if name.startswith("nubes.cloud.") else "nubes.cloud.<module>"
