# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin of the modules that return secret outputs (issue 24; the generated `plugins/action/<module>.py`).

It runs the module as ansible-core's `normal` action does, with one addition: for each run of the module it makes
an ephemeral key pair, gives the module the public half in `NUBES_SEALED_RESULT_KEY` (the environment of that one
command), and opens the secret outputs the module returns sealed (`module_utils/nubes/sealed.py`). ansible-core
prints a module's raw stdout under ANSIBLE_DEBUG before `no_log` applies; that stdout now holds only ciphertext and
public values. The opened values reach the registered result as before, and `no_log` keeps them out of the output.

An `async` task with `return_secrets` is refused before the module runs: async_wrapper writes the module's result to
the job file on the managed host and async_status reads it back, both in clear and out of this plugin's reach.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action.normal import ActionModule as NormalAction

from ansible_collections.nubes.cloud.plugins.module_utils.nubes import sealed


class SealedSecretsAction(NormalAction):
    """`ansible.builtin.normal`, with the module's secret outputs sealed on their way back."""

    _seal_public = None  # this run's public value while the module runs

    def run(self, tmp=None, task_vars=None):
        if self._task.async_val and boolean(self._task.args.get("return_secrets", False), strict=False):
            raise AnsibleActionFail(
                "return_secrets cannot be used in an async task: its result is written in clear to the async job "
                "file on the managed host. Leave async out (wait: false starts the operation without waiting, and "
                "nubes.cloud.operation_info waits for it), or read the secrets in a later task without async"
            )
        return super().run(tmp, task_vars)

    def _compute_environment_string(self, raw_environment_out=None):
        """The task's environment, plus the public value while the module of this task runs."""
        if self._seal_public is None:
            return super()._compute_environment_string(raw_environment_out)
        environment: dict = {}
        super()._compute_environment_string(environment)
        environment[sealed.ENV] = self._seal_public
        if isinstance(raw_environment_out, dict):
            raw_environment_out.clear()
            raw_environment_out.update(environment)
        return self._connection._shell.env_prefix(**environment)

    def _execute_module(self, *args, **kwargs):
        if kwargs.get("wrap_async") or self._task.async_val:
            return super()._execute_module(*args, **kwargs)
        private = sealed.new_private()
        self._seal_public = sealed.public_text(private)
        try:
            result = super()._execute_module(*args, **kwargs)
        finally:
            controller, self._seal_public = self._seal_public, None
        module_public = result.pop(sealed.RESULT_KEY, None)
        if module_public is None:
            return result  # nothing sealed: no secret output was asked for (or the module failed before)
        try:
            return sealed.open_all(result, private, controller, module_public)
        except (sealed.SealError, ValueError) as exc:
            raise AnsibleActionFail(
                f"the module's sealed secret outputs cannot be opened ({exc}); nothing was shown. Re-run the task; "
                "if it fails again, report it with the module's version"
            ) from None
