# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of nubes.cloud.component: reads ``source`` (and a ``kubeconfig`` file) on the controller.

The module then gets the file contents (option ``templates``, with the resolved ``source_kind``) and the
kubeconfig's content, so it can run on any host the task is delegated to. A kustomize source is built here, in
place, so overlays that reference ``../base`` resolve; a Helm chart is rendered here with ``helm template`` (the
chart, its values files and the helm binary are on the controller), as the release of the component's placement
with the spec as values. A chart of a repository or an OCI registry (``helm.chart_ref``, issue 27) is pulled here
into the controller's chart cache, verified and rendered the same way; its failures (an unreachable repository, a
missing version, a digest mismatch) end the task before the module runs, so nothing is written to the cluster.
Rendering of templates happens in the module, where the target cluster is reachable for ``lookup()``. With
``state: absent`` the source is not read (nor a chart pulled): a deletion needs only the record.

When the target is the controller (issue 26, plugin_utils/in_process.py), the module runs in this process and the
contents read from ``source`` are handed to it by reference (module_utils/component/handoff.py), never encoded into
a payload.
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.nubes.cloud.plugins.module_utils.component import handoff
from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_pull import PulledChart, pull_chart
from ansible_collections.nubes.cloud.plugins.module_utils.component.chart_ref import RemoteChart, remote_chart
from ansible_collections.nubes.cloud.plugins.module_utils.component.errors import ComponentError
from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import SOURCE_KIND as HELM
from ansible_collections.nubes.cloud.plugins.module_utils.component.helm import find_helm
from ansible_collections.nubes.cloud.plugins.module_utils.component.sources import ReadInput, read_source, resolve_kind
from ansible_collections.nubes.cloud.plugins.module_utils.component.spec_config import merge_spec_configuration
from ansible_collections.nubes.cloud.plugins.plugin_utils.commands import run_command
from ansible_collections.nubes.cloud.plugins.plugin_utils.in_process import InProcessMixin
from ansible_collections.nubes.cloud.plugins.plugin_utils.preload import COMPONENT, preload

MODULE = "nubes.cloud.component"

try:
    import yaml

    HAS_YAML = True
except ImportError:  # pragma: no cover - ansible-core depends on PyYAML
    HAS_YAML = False

# Issue 26: the module with its engine, imported once in ansible-playbook's main process, where the strategy loads
# this plugin before forking each task's worker (preload.py; best-effort, a missing dependency is the worker's to
# report, which then takes the module path)
preload(COMPONENT)


class ActionModule(InProcessMixin, ActionBase):
    """Resolve controller-side files, then run the module (in the controller's process when the target is the
    controller, issue 26)."""

    TRANSFERS_FILES = False

    def _controller_path(self, path):
        """A path as the ``files`` of a role or playbook are searched, else the path itself (``~`` expanded)."""
        try:
            return self._find_needle("files", path)
        except AnsibleError:
            return os.path.expanduser(path)

    def _helm_read_input(self, args):
        """C2, C10: the chart's values are the spec, its release the placement (after the spec's configuration, C9);
        the helm options with the values files found on the controller."""
        spec = args.get("spec") or {}
        if not isinstance(spec, dict):
            raise AnsibleActionFail("spec must be a mapping: a Helm chart gets it as its values")
        name, namespace = args.get("name"), args.get("namespace")
        if not (isinstance(name, str) and name and isinstance(namespace, str) and namespace):
            raise AnsibleActionFail("name and namespace are required: they are the Helm release's default placement")
        task_options = dict(args, spec_configuration=boolean(args.get("spec_configuration", False), strict=False))
        placement = merge_spec_configuration(task_options, spec)["placement"]
        helm = dict(args.get("helm") or {})
        values_files = helm.get("values_files")
        if isinstance(values_files, str):
            values_files = [values_files]
        if isinstance(values_files, list):
            helm["values_files"] = [self._controller_path(p) if isinstance(p, str) else p for p in values_files]
        return ReadInput(
            run_command=run_command,
            spec=spec,
            namespace=placement["namespace"] or namespace,
            name=placement["name"] or name,
            helm=helm,
        )

    def _controller_source(self, source, args):
        path = self._controller_path(source)
        try:
            kind = resolve_kind(path, args.get("source_kind") or "auto")
            read_input = self._helm_read_input(args) if kind == HELM else ReadInput(run_command=run_command)
            return read_source(path, kind, read_input)
        except ComponentError as exc:
            raise AnsibleActionFail(str(exc)) from None

    def _remote_chart(self, args, source):
        """The chart that ``helm.chart_ref`` names (issue 27), its options checked; None for a chart given as source."""
        options = args.get("helm")
        if not isinstance(options, dict):
            return None  # the module's argument spec names the wrong type
        try:
            remote = remote_chart(options, source)
        except ComponentError as exc:
            raise AnsibleActionFail(str(exc)) from None
        if remote is not None:
            if args.get("templates") is not None or args.get("definitions") is not None:
                raise AnsibleActionFail("helm.chart_ref, templates and definitions are mutually exclusive; give one")
            if (args.get("source_kind") or "auto") not in ("auto", HELM):
                raise AnsibleActionFail(
                    f"helm.chart_ref names a Helm chart, but source_kind is {args['source_kind']}; use helm or auto"
                )
        return remote

    def _pulled_chart(self, remote: RemoteChart, args):
        """Pull the chart into the controller's cache (or find it there), then render it as a chart directory."""
        try:
            helm = find_helm((args.get("helm") or {}).get("helm_binary") or "")
            pulled: PulledChart = pull_chart(remote, helm, run_command)
            read = read_source(pulled.path, HELM, self._helm_read_input(args))
        except ComponentError as exc:
            raise AnsibleActionFail(str(exc)) from None
        return pulled, read

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

    def _run_module(self, args, task_vars, handed):
        """The module's result: in the controller's process when the target is the controller (issue 26), with the
        contents read from ``source`` handed over by reference (``handed``), else as a module."""
        main, _reason = self._choose_path(MODULE, task_vars or {})
        if main is None:
            return self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars)
        files = args.pop("templates") if handed else None
        with handoff.handed(files):
            return self._run_in_process(main, task_vars or {}, module_name=MODULE, module_args=args)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        source = args.pop("source", None)
        remote = self._remote_chart(args, source)
        shown = chart = None
        if remote is not None:
            if args.get("state", "present") == "absent":
                shown = f"({remote.describe()}: not pulled for state absent)"
            else:
                pulled, read = self._pulled_chart(remote, args)
                args["templates"], args["source_kind"] = read["files"], read["kind"]
                shown = f"(helm template of {remote.describe()}, pulled on the controller)"
                chart = pulled.to_result(remote)
        elif source:
            if args.get("templates") is not None or args.get("definitions") is not None:
                raise AnsibleActionFail("source, templates and definitions are mutually exclusive; give one")
            if args.get("state", "present") == "absent":
                shown = f"({source}: not read for state absent)"
            else:
                read = self._controller_source(source, args)
                args["templates"], args["source_kind"] = read["files"], read["kind"]
                shown = {
                    "kustomize": f"(kustomize build of {source} on the controller)",
                    HELM: f"(helm template of {source} on the controller)",
                }.get(read["kind"], f"({len(read['files'])} files read from {source} on the controller)")
        if args.get("kubeconfig") is not None:
            args["kubeconfig"] = self._controller_kubeconfig(args["kubeconfig"])
        module_result = self._run_module(args, task_vars, handed=shown is not None and "templates" in args)
        invocation = module_result.get("invocation") or {}
        module_args = invocation.get("module_args") or {}
        if shown is not None and "templates" in module_args:
            module_args["templates"] = shown  # rendered Secrets of a chart are not shown either
            module_args["source"] = source
        if isinstance(module_args.get("kubeconfig"), dict):
            module_args["kubeconfig"] = "(kubeconfig content, not shown)"
        result.update(module_result)
        if chart is not None:
            result["chart"] = chart  # what was rendered: its digest pins it (helm.chart_digest)
        return result
