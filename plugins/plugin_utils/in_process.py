# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin shared by every nubes.cloud module (issue 26; the generated `plugins/action/<module>.py`).

When the task's target is the controller itself (execution_path.py decides), the module's own `main()` runs in the
controller's worker process, the one ansible-core forked for this task, instead of a new Python process fed an
AnsiballZ payload. Everything from `main()` on is the module's code: AnsibleModule validates the task's arguments
with the module's ARGUMENT_SPEC (types, choices, required, env fallbacks, no_log), the Runner does the work,
exit_json/fail_json format the result. ansible-core has already applied `module_defaults` and the action group to
the task's arguments; the task's `environment:` is applied to the process environment while `main()` runs. The
module's output is parsed by ansible-core's own `_parse_returned_data`, as a module's stdout is, so results,
warnings, deprecations, failures, check and diff mode come out as from the module.

Nothing of the task's arguments is written to disk (the module path's payload was, in a temporary directory), and
nothing is printed: the arguments and the result stay in this process's memory. Secret outputs are not sealed
in-process (they never leave the process); no_log keeps them out of output and logs, as on the module path.

The module and the cloud core it runs are imported once, in ansible-playbook's main process, when a generated action
plugin's class is defined there (preload.py): each task's worker, forked from that process, finds them imported.

Anywhere else the task takes the module path: ansible-core's `normal` action with the sealed secret outputs
(sealed_action.py). At -vvv every task says which path it took and why.
"""

from __future__ import annotations

import inspect
import os
import sys

from ansible import constants as C
from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible.utils.vars import merge_hash

from ansible_collections.nubes.cloud.plugins.plugin_utils import execution_path, preload
from ansible_collections.nubes.cloud.plugins.plugin_utils.module_call import (
    PROFILE,
    call_main,
    encode_module_args,
    import_main,
)
from ansible_collections.nubes.cloud.plugins.plugin_utils.sealed_action import SealedSecretsAction

display = Display()


class InProcessMixin(ActionBase):
    """The decision and the in-process run, for an action plugin that runs a nubes.cloud module."""

    def _choose_path(self, name, task_vars):
        """(the module's main, None) for the in-process path, or (None, why the module path is taken); says which
        at -vvv."""
        main, reason = self._decide(name, task_vars)
        if main is None:
            display.vvv(f"nubes.cloud: {name} runs as a module: {reason}")
        else:
            display.vvv(f"nubes.cloud: {name} runs in the controller's process (the target is the controller)")
        return main, reason

    # -- the decision ---------------------------------------------------------------------------------------------

    def _decide(self, name, task_vars):
        use_vars = task_vars
        if self._task.delegate_to:
            use_vars = (task_vars.get("ansible_delegated_vars") or {}).get(self._task.delegate_to) or task_vars
        switch = {execution_path.SWITCH_VAR: self._templar.template(use_vars.get(execution_path.SWITCH_VAR))}
        try:
            mode = execution_path.requested_mode(os.environ, switch)
        except execution_path.SwitchError as exc:
            raise AnsibleActionFail(str(exc)) from None
        reason = execution_path.module_path_reason(
            mode=mode,
            connection=str(getattr(self._connection, "transport", "") or ""),
            become=bool(self._play_context.become),
            async_val=int(self._task.async_val or 0),
            interpreter=self._target_python(use_vars),
            controller_python=sys.executable,
        )
        if reason is not None:
            return None, reason
        return import_main(name)

    def _target_python(self, use_vars):
        """The Python the module would run with: ansible_python_interpreter (or the config), else the interpreter
        discovery found for this host earlier; None when discovery has not run yet."""
        try:
            value = C.config.get_config_value("INTERPRETER_PYTHON", variables=use_vars)
        except Exception:  # pylint: disable=broad-exception-caught  # an unreadable setting: let the module path decide
            return None
        value = self._templar.template(value) if isinstance(value, str) else value
        if not value or str(value).strip() in execution_path.DISCOVERY:
            facts = use_vars.get("ansible_facts") or {}
            return facts.get("discovered_interpreter_python") or None
        return str(value)

    # -- the in-process run ---------------------------------------------------------------------------------------

    def _run_in_process(self, main, task_vars, module_name=None, module_args=None):
        """The module's result, as `_execute_module(module_name, module_args, task_vars)` would return it."""
        module_args = dict(self._task.args if module_args is None else module_args)
        module_name = self._task.action if module_name is None else module_name
        self._update_module_args(module_name, module_args, task_vars)  # _ansible_check_mode, _ansible_no_log, ...
        payload = encode_module_args(module_args)
        environment: dict = {}
        self._compute_environment_string(environment)
        rc, stdout, stderr = call_main(main, payload, environment)
        res = {
            "rc": rc,
            "stdout": stdout,
            "stdout_lines": stdout.splitlines(),
            "stderr": stderr,
            "stderr_lines": stderr.splitlines(),
        }
        return self._module_result(res)

    def _module_result(self, res):
        """The module's output parsed and cleaned as `_execute_module` does it on each ansible-core line."""
        with_profile = "profile" in inspect.signature(self._parse_returned_data).parameters
        data = self._parse_returned_data(res, PROFILE) if with_profile else self._parse_returned_data(res)
        if hasattr(data, "as_result_dict"):  # ansible-core 2.21+: a UnifiedTaskResult
            data.remove_internal_keys()
            return data.as_result_dict(for_round_trip=True)
        from ansible.vars.clean import remove_internal_keys  # ansible-core 2.16-2.20

        data.pop("_ansible_suppress_tmpdir_delete", None)
        remove_internal_keys(data)
        if not with_profile:  # ansible-core 2.16-2.18 mark a module's result unsafe for templating
            from ansible.utils.unsafe_proxy import wrap_var

            data = wrap_var(data)
        return data


class NubesModuleAction(InProcessMixin, SealedSecretsAction):
    """Runs a nubes.cloud module in the controller's process when the target is the controller, else as a module
    (`normal` with the secret outputs sealed)."""

    def __init_subclass__(cls, **kwargs):
        """A generated action plugin's class is defined in ansible-playbook's main process, where the strategy loads
        it before forking the task's worker: its module and the cloud core are imported there, once, instead of in
        every task's worker (issue 26, preload.py; best-effort)."""
        super().__init_subclass__(**kwargs)
        preload.preload((*preload.CLOUD_CORE, preload.module_of(cls.__module__)))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars if task_vars is not None else {}
        main, _reason = self._choose_path(str(self._task.resolved_action or self._task.action), task_vars)
        if main is None:
            return super().run(tmp, task_vars)
        result = ActionBase.run(self, tmp, task_vars)  # the base checks (check mode, async support) of `normal`
        del tmp
        return merge_hash(result, self._run_in_process(main, task_vars))
