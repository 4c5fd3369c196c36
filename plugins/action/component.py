# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of nubes.cloud.component: reads ``source`` (and a ``kubeconfig`` file) on the controller.

The module then gets the file contents (option ``templates``, with the resolved ``source_kind``) and the
kubeconfig's content, so it can run on any host the task is delegated to. A kustomize source is built here, in
place, so overlays that reference ``../base`` resolve. Rendering of templates happens in the module, where the
target cluster is reachable for ``lookup()``.
"""

from __future__ import annotations

import os
import subprocess

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase

from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import SourceError
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import read_source

try:
    import yaml

    HAS_YAML = True
except ImportError:  # pragma: no cover - ansible-core depends on PyYAML
    HAS_YAML = False


def _run_on_controller(argv):
    """Run a command (kustomize) on the controller: (exit code, stdout, stderr)."""
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout, proc.stderr


class ActionModule(ActionBase):
    """Resolve controller-side files, then run the module."""

    TRANSFERS_FILES = False

    def _controller_source(self, source, kind):
        try:
            path = self._find_needle("files", source)
        except AnsibleError:
            path = os.path.expanduser(source)
        try:
            return read_source(path, kind or "auto", _run_on_controller)
        except SourceError as exc:
            raise AnsibleActionFail(str(exc)) from None

    def _controller_kubeconfig(self, value):
        if not isinstance(value, str) or "\n" in value or not HAS_YAML:
            return value
        path = os.path.expanduser(value)
        if not os.path.isfile(path):
            return value  # maybe a path on the host that runs the module
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # a SafeLoader (libyaml)
        if not isinstance(data, dict):
            raise AnsibleActionFail(f"kubeconfig {value} is not a kubeconfig (YAML mapping)")
        base = os.path.dirname(path)
        for section, keys in (
            ("clusters", ("certificate-authority",)),
            ("users", ("client-certificate", "client-key")),
        ):
            for entry in data.get(section) or []:
                inner = entry.get(section[:-1]) or {}
                for key in keys:
                    if inner.get(key) and not os.path.isabs(inner[key]):
                        inner[key] = os.path.join(base, inner[key])
        return data

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        source = args.pop("source", None)
        file_count = None
        if source:
            if args.get("templates") is not None or args.get("definitions") is not None:
                raise AnsibleActionFail("source, templates and definitions are mutually exclusive; give one")
            read = self._controller_source(source, args.get("source_kind"))
            args["templates"], args["source_kind"] = read["files"], read["kind"]
            file_count = len(args["templates"])
        if args.get("kubeconfig") is not None:
            args["kubeconfig"] = self._controller_kubeconfig(args["kubeconfig"])
        module_result = self._execute_module(module_name="nubes.cloud.component", module_args=args, task_vars=task_vars)
        invocation = module_result.get("invocation") or {}
        module_args = invocation.get("module_args") or {}
        if file_count is not None and "templates" in module_args:
            module_args["templates"] = f"({file_count} files read from {source} on the controller)"
            if args["source_kind"] == "kustomize":
                module_args["templates"] = f"(kustomize build of {source} on the controller)"
            module_args["source"] = source
        if isinstance(module_args.get("kubeconfig"), dict):
            module_args["kubeconfig"] = "(kubeconfig content, not shown)"
        result.update(module_result)
        return result
