# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Export an existing estate as a playbook (issue 27): read every live instance of the selected services and
their sub-resources from the API and describe each as the task that manages it.

Each task names its instance by `instance_uid` (K2: read, never looked up by name, so two instances that share a
name stay apart) and sets `adopt_existing_on_create: true`, with the instance's live params as options, so the
first run of the exported playbook adopts what exists and writes nothing. A reference to another exported
instance becomes the registered result of that instance's task (tasks are ordered so that it runs first).
Secret params are never read back (the API does not return them); each becomes a variable the header names, to
be defined in a vault. Nothing here names a service: the services, their params and sub-resources come from
the generated SERVICE literals (P2, P3). What is left out is listed with the reason (`not_exported`): an instance
that is creating, failed or never created, and, when every service is exported, one of a service the API serves and
the collection has no module for.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.inventory.catalogue import ServiceEntry
from ansible_collections.nubes.cloud.plugins.module_utils.inventory.reader import InventoryApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes import revision
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import RUNNING, SUSPENDED, Instance, as_text
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import ParamConverter
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ParamSpec, ServiceSpec

ADOPT = "adopt_existing_on_create"


@dataclass(frozen=True)
class LeftOut:
    """A live instance the export leaves out, and why: it is not in a state a task can adopt, or the collection has
    no module for its service (issue 27: never left out in silence)."""

    module: str  # "" when the collection has no module for the service
    resource_name: str
    instance_uid: str
    status: str
    reason: str
    service_id: Optional[int] = None

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


def unsettled(spec: ServiceSpec, instance: Instance) -> LeftOut:
    """An instance of a module's service that is creating, failed or never created."""
    reason = f"status {instance.status}: only running and suspended instances are exported; re-run when it settles"
    return LeftOut(spec.name, instance.display_name, instance.uid, instance.status, reason, spec.service_id)


def without_module(item: Instance) -> LeftOut:
    """A live instance of a service the API serves and the collection has no module for (an organization, a quick
    start): no task could adopt it."""
    reason = f"{item.service_label} has no module in this collection: no task can manage it; it stays as it is"
    return LeftOut("", item.display_name, item.uid, item.status, reason, item.service_id)


@dataclass
class ExportTask:
    """One task of the exported playbook: the module, its options (jinja references as strings) and the name
    its result is registered under."""

    name: str
    module: str
    options: Dict[str, Any]
    register: str
    depends_on: Tuple[str, ...] = ()  # registered names of the tasks whose results it reads


@dataclass
class Estate:
    tasks: List[ExportTask] = field(default_factory=list)
    secret_variables: List[str] = field(default_factory=list)
    not_exported: List[LeftOut] = field(default_factory=list)


def slug(text: str) -> str:
    """A variable-name part: lower case letters, digits and underscores."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "unnamed"


class _Names:
    """Registered variable names, unique within the playbook."""

    def __init__(self) -> None:
        self.used: Dict[str, int] = {}

    def new(self, base: str) -> str:
        count = self.used.get(base, 0)
        self.used[base] = count + 1
        return base if count == 0 else f"{base}_{count + 1}"


def read_estate(api: InventoryApi, entries: Sequence[ServiceEntry], every_service: bool = False) -> Estate:
    """The export of every live instance of `entries`, read with one list per service and one GET per live
    instance; with `every_service`, one list of all instances, and the live instances of services the collection
    has no module for are listed in `not_exported` (issue 27)."""
    found: List[Tuple[ServiceSpec, Instance]] = []
    estate = Estate()
    for spec, item in _listed(api, entries, every_service, estate):
        instance = api.get_instance(item.uid)
        if instance is None or not instance.live:
            continue
        if instance.status not in (RUNNING, SUSPENDED):
            estate.not_exported.append(unsettled(spec, instance))
            continue
        found.append((spec, instance))
    names = _Names()
    registered = {instance.uid: names.new(f"{spec.name}_{slug(instance.display_name)}") for spec, instance in found}
    tasks = [_instance_task(spec, instance, registered, estate) for spec, instance in found]
    for (spec, instance), task in zip(found, tasks):
        task_list = [task, *_subresource_tasks(spec, instance, task.register, names, estate)]
        estate.tasks.extend(task_list)
    estate.tasks = _ordered(estate.tasks)
    return estate


def _listed(
    api: InventoryApi, entries: Sequence[ServiceEntry], every_service: bool, estate: Estate
) -> List[Tuple[ServiceSpec, Instance]]:
    """The live list items of the selected services, service by service in the order of `entries`. With
    `every_service` they come from one list without a service filter (deck-api 2.1), whose live items of services
    without a module go to `estate.not_exported` (issue 27: the API serves more services than the collection has
    modules for)."""
    if not every_service:
        listed = [(entry.spec, item) for entry in entries for item in api.list_instances(entry.service_id)]
        return [(spec, item) for spec, item in listed if item.uid and item.live]
    specs = {entry.service_id: entry.spec for entry in entries}
    order = {entry.service_id: index for index, entry in enumerate(entries)}
    found: List[Tuple[ServiceSpec, Instance]] = []
    for item in api.list_instances_paged():
        if not item.uid or not item.live:
            continue
        spec = specs.get(item.service_id) if item.service_id is not None else None
        if spec is None:
            estate.not_exported.append(without_module(item))
        else:
            found.append((spec, item))
    return sorted(found, key=lambda pair: order[pair[0].service_id])  # stable: the API's order within a service


def _instance_task(spec: ServiceSpec, instance: Instance, registered: Mapping[str, str], estate: Estate) -> ExportTask:
    register = registered[instance.uid]
    options: Dict[str, Any] = {"resource_name": instance.display_name, "instance_uid": instance.uid, ADOPT: True}
    if instance.status == SUSPENDED:
        options["state"] = "absent"  # P21: absent keeps a suspendable instance suspended
    live = instance.params()
    params, depends = _params(spec.params, live, registered, register, estate)
    options.update(params)
    if spec.lifecycle.redeploy:  # P14: the revision deployed, so that the playbook states what runs
        deployed = revision.deployed(spec, live, None)
        if deployed:
            options["git_revision"] = deployed
    label = f"{spec.name} {instance.display_name}"
    return ExportTask(label, f"nubes.cloud.{spec.name}", options, register, tuple(depends))


def _subresource_tasks(
    spec: ServiceSpec, instance: Instance, parent: str, names: _Names, estate: Estate
) -> List[ExportTask]:
    tasks = []
    for sub in spec.subresources:
        for item in instance.subresources(sub.name):
            raw = {str(k): as_text(v) for k, v in item.items()}
            key = raw.get(sub.key_code) or ""
            register = names.new(f"{parent}_{sub.name}_{slug(key)}")
            options: Dict[str, Any] = {"parent_instance_uid": f"{{{{ {parent}.instance.instance_uid }}}}", ADOPT: True}
            params, _depends = _params(sub.params, raw, {}, register, estate)
            options.update(params)
            label = f"{spec.name}_{sub.name} {key} of {instance.display_name}"
            tasks.append(ExportTask(label, f"nubes.cloud.{spec.name}_{sub.name}", options, register, (parent,)))
    return tasks


def _params(
    params: Sequence[ParamSpec],
    live: Mapping[str, Optional[str]],
    registered: Mapping[str, str],
    register: str,
    estate: Estate,
) -> Tuple[Dict[str, Any], List[str]]:
    """Options from live params: secrets as vault variables, references to exported instances as their task's
    registered uid, placeholders (never applied, P35) and unset params left out."""
    converter = ParamConverter(params)
    options: Dict[str, Any] = {}
    depends: List[str] = []
    for param in params:
        if param.secret:
            variable = f"vault_{register}_{param.option}"
            estate.secret_variables.append(variable)
            options[param.option] = f"{{{{ {variable} }}}}"
            continue
        text = live.get(param.code)
        if text is None or (param.placeholder is not None and text == param.placeholder):
            continue
        if param.ref_service_id is not None and text in registered:
            depends.append(registered[text])
            options[param.option] = f"{{{{ {registered[text]}.instance.instance_uid }}}}"
            continue
        options[param.option] = _option_value(converter, param, text)
    return options, depends


def _option_value(converter: ParamConverter, param: ParamSpec, text: str) -> Any:
    """The live API string as the option's value; an object's (or a list of objects') keys as the sub-options."""
    value = converter.from_api(text, param)
    if not param.sub_params:
        return value
    if isinstance(value, dict):
        return _sub_options(converter, param, value)
    if isinstance(value, list):
        return [_sub_options(converter, param, item) if isinstance(item, dict) else item for item in value]
    return value


def _sub_options(converter: ParamConverter, param: ParamSpec, obj: Mapping[str, Any]) -> Dict[str, Any]:
    """API sub-codes -> sub-option names, typed; a key the module does not take is left out (P41: the API may add
    keys, and the module compares only the ones the task gives)."""
    subs = {sub.code: sub for sub in param.sub_params}
    result: Dict[str, Any] = {}
    for key, raw in obj.items():
        sub = subs.get(str(key))
        if sub is None or raw is None:
            continue
        result[sub.option] = raw if isinstance(raw, (dict, list)) else converter.from_api(as_text(raw), sub)
    return result


def _ordered(tasks: List[ExportTask]) -> List[ExportTask]:
    """Tasks in their given order, except that a task runs after every task whose result it reads."""
    by_register = {task.register: task for task in tasks}
    done: Dict[str, bool] = {}
    ordered: List[ExportTask] = []

    def visit(task: ExportTask) -> None:
        if task.register in done:
            return
        done[task.register] = False
        for name in task.depends_on:
            if name in by_register and name not in done:
                visit(by_register[name])
        done[task.register] = True
        ordered.append(task)

    for task in tasks:
        visit(task)
    return ordered


def render_playbook(estate: Estate, source: str) -> str:
    """The playbook as YAML text (scalars as JSON, which YAML reads as they are), with a header that says where it
    comes from and which secret variables to define."""
    lines = [
        "---",
        f"# Exported by nubes.cloud.estate_export from {source}.",
        "# Each task adopts the live instance it names (instance_uid, adopt_existing_on_create) with its live",
        "# params: the first run writes nothing. Edit the options to change the estate.",
    ]
    if estate.secret_variables:
        lines.append("# Secrets are never exported. Define these variables, e.g. in an ansible-vault file given with")
        lines.append("# -e @secrets.yml (with update_password: on_create, the default, they are sent only on create):")
        lines += [f"#   {name}" for name in estate.secret_variables]
    lines += [
        "- name: Nubes estate",
        "  hosts: localhost",
        "  connection: local",
        "  gather_facts: false",
        "  tasks:",
    ]
    if not estate.tasks:
        lines[-1] = "  tasks: []"
    for task in estate.tasks:
        lines.append(f"    - name: {json.dumps(task.name, ensure_ascii=False)}")
        lines.append(f"      {task.module}:")
        for option, value in task.options.items():
            lines.append(f"        {option}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}")
        lines.append(f"      register: {task.register}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
