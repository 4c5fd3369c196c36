# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Entry point of the generated modules: `run_module(SERVICE, ARGUMENT_SPEC, kind=..., sub=...)`.

A thin AnsibleModule adapter (`run_module`, through the module shell `module_entry`) sits on top of the pure
`task_result(SERVICE, params, kind, sub, check_mode, diff_mode, no_log)`, which the in-process action path and the
tests call with already validated params (`validate_params`): it returns the result dict (warnings under
`warnings`) or raises NubesError, which `errors.error_result` maps to the failed result (issue 26).
`Runner(SERVICE, params, kind).run()` is the task itself.
Input is validated (types, choices, required, references) before any write call; check mode makes no
write call and predicts `changed`; diff mode returns before/after params with secrets masked.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.common_options import argument_spec, module_kwargs
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.context import TaskContext
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError, NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import Poller
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.sealed import RESULT_KEY
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import StateBackend


class Runner:
    """Runs one task of a generated module without Ansible in the loop."""

    def __init__(
        self,
        service: Mapping[str, Any],
        params: Mapping[str, Any],
        kind: str = "instance",
        sub: Optional[str] = None,
        check_mode: bool = False,
        diff_mode: bool = False,
        transport: Any = None,
        backend: Optional[StateBackend] = None,
        poller: Optional[Poller] = None,
        no_log: bool = False,
    ) -> None:
        self.service = service
        self.no_log = no_log  # the task's no_log: required for return_secrets
        self.params = params
        self.kind = kind
        self.sub = sub
        self.check_mode = check_mode
        self.diff_mode = diff_mode
        self.transport = transport
        self.backend = backend
        self.poller = poller
        self.warnings: List[str] = []

    def run(self) -> Dict[str, Any]:
        if self.params.get("return_secrets") and not self.no_log:
            raise InputError(
                "return_secrets: true returns secret values in the result: set no_log: true on this task, so that "
                "they reach only its registered result, never the output or logs; or leave return_secrets out"
            )
        ctx = TaskContext(
            self.service,
            self.params,
            check_mode=self.check_mode,
            diff_mode=self.diff_mode,
            transport=self.transport,
            backend=self.backend,
            poller=self.poller,
        )
        # Issue 19: each kind imports only its own task module, so a module process compiles one of the three
        # (AnsiballZ ships all three: zipimport compiles a file only when it is imported).
        try:
            if self.kind == "instance":
                from ansible_collections.nubes.cloud.plugins.module_utils.nubes.instance_task import InstanceTask

                result = InstanceTask(ctx).run()
            elif self.kind == "subresource":
                if not self.sub:
                    raise InputError("kind=subresource needs sub=<sub-resource name>")
                from ansible_collections.nubes.cloud.plugins.module_utils.nubes.subresource_task import SubresourceTask

                result = SubresourceTask(ctx, self.sub).run()
            elif self.kind == "info":
                from ansible_collections.nubes.cloud.plugins.module_utils.nubes.info import InfoTask

                result = InfoTask(ctx).run()
            else:
                raise InputError(f"unknown module kind {self.kind!r}")
        except NubesError as exc:
            exc.msg = ctx.redactor(exc.msg)
            exc.details = ctx.redactor.value(exc.details)
            exc.changed = ctx.client.wrote  # Ansible's convention: a task that wrote reports changed, failed or not
            raise
        finally:
            self.warnings = list(ctx.warnings)
            ctx.client.close()
        result = ctx.redactor.value(result)
        if ctx.sealer is not None and ctx.sealer.used:  # issue 24: how the action plugin opens the sealed outputs
            result[RESULT_KEY] = ctx.sealer.public  # after redaction: a short secret could match inside the hex
        return result


def validate_params(
    service: Mapping[str, Any],
    module_spec: Mapping[str, Any],
    kind: str,
    params: Mapping[str, Any],
    sub: Optional[str] = None,
) -> Dict[str, Any]:
    """Validate `params` like AnsibleModule would (types, choices, required, env fallbacks, defaults)."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    kwargs = module_kwargs(service, kind, sub)
    kwargs.pop("supports_check_mode", None)
    validator = ArgumentSpecValidator(argument_spec(module_spec), **kwargs)
    result = validator.validate(dict(params))
    if result.errors.errors:
        raise InputError("; ".join(result.errors.messages))
    return dict(result.validated_parameters)


def task_result(
    service: Mapping[str, Any],
    params: Mapping[str, Any],
    kind: str = "instance",
    sub: Optional[str] = None,
    check_mode: bool = False,
    diff_mode: bool = False,
    no_log: bool = False,
    **wiring: Any,
) -> Dict[str, Any]:
    """The pure module shell (issue 26): the task's result dict for validated `params`, with the warnings under
    `warnings`; or the NubesError it failed with, its warnings attached (`errors.error_result` makes the failed
    result). `wiring`: Runner's transport, backend and poller (tests)."""
    runner = Runner(service, params, kind, sub, check_mode=check_mode, diff_mode=diff_mode, no_log=no_log, **wiring)
    try:
        result = runner.run()
    except NubesError as exc:
        exc.warnings = [*runner.warnings, *exc.warnings]
        raise
    if runner.warnings:
        result["warnings"] = list(runner.warnings)
    return result


def run_module(
    service: Mapping[str, Any], argument_spec_: Mapping[str, Any], kind: str = "instance", sub: Optional[str] = None
) -> None:
    """The generated module's main(): the AnsibleModule adapter around `task_result` (the module shell)."""
    from ansible_collections.nubes.cloud.plugins.module_utils.module_entry import finish, new_module

    module = new_module(argument_spec(argument_spec_), **module_kwargs(service, kind, sub))
    finish(
        module,
        lambda: task_result(
            service,
            module.params,
            kind,
            sub,
            check_mode=module.check_mode,
            diff_mode=module._diff,  # pylint: disable=protected-access
            no_log=module.no_log,
        ),
    )
