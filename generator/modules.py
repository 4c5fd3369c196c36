"""Per-spec module models (instance, sub-resource, info): option specs, docs, examples, returns.

Rules carried by the generated options: K1/K4b (instance_uid), P19/P21/P24/P28 (adopt_existing_on_create),
P19/P29 (suspend_on_destroy), P12 (state=deleted: the API's delete operation), P14/P18 (git_revision),
P13/P17 (sub-resource identity), P31 (no logic); update_password for modules with secret params.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.contract import lifecycle_options
from generator.english import ServiceTexts
from generator.errors import GeneratorError
from generator.examples import ExampleContext, info_examples, instance_examples, subresource_examples
from generator.options import option_doc, option_spec

VERSION_ADDED = "1.0.0"
AUTHOR = "nubes.cloud generator (@nubes-cloud)"
DOC_FRAGMENTS = ["nubes.cloud.common", "ansible.builtin.action_common_attributes"]


@dataclass
class ModuleModel:
    """Everything a generated module file and its resource page are made of."""

    name: str
    kind: str  # instance | subresource | info
    sub: str | None
    spec: dict[str, Any]
    argument_spec: dict[str, Any]
    documentation: dict[str, Any]
    examples: list[dict[str, Any]]
    returns: dict[str, Any]
    params: list[dict[str, Any]]
    texts: ServiceTexts  # the English texts of the service (config/english.yml, issue 27)


def _opt(spec: dict[str, Any], doc_lines: list[str], **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    doc: dict[str, Any] = {"description": doc_lines, "type": spec["type"]}
    for key in ("choices", "default", "elements"):
        if key in spec:
            doc[key] = spec[key]
    doc.update(extra)
    return spec, doc


Option = tuple[str, dict[str, Any], dict[str, Any]]


def contract_options(spec: dict[str, Any], kind: str, sub: str | None, lines: dict[str, list[str]]) -> list[Option]:
    """The kind's lifecycle options as the option contract declares them (plugins/module_utils/nubes/
    common_options.py, issue 26), each documented with its lines from here: the generator adds no spec of its own."""
    options = lifecycle_options(spec, kind, sub)
    undocumented = sorted(set(options) - set(lines))
    if undocumented:
        raise GeneratorError(f"the generator has no documentation for the contract's options {undocumented}")
    return [(name, *_opt(option, lines[name])) for name, option in options.items()]


def _state_lines(what: str, absent: str, deleted: bool = False, suspendable: bool = False) -> list[str]:
    lines = [f"V(present) creates the {what}, or modifies it when its live params differ.", f"V(absent) {absent}"]
    if deleted:
        states = "running, suspended, failed" if suspendable else "running, failed"
        lines.append(
            f"V(deleted) deletes the instance for good with the API's delete operation, whether it is {states} or"
            " a placeholder that was never created"
            + ("; O(suspend_on_destroy) does not apply." if suspendable else ".")
            + " Supports check mode and diff mode."
        )
    return lines


def update_password_lines(params: list[dict[str, Any]], what: str) -> list[str]:
    """``update_password`` (community.postgresql's convention) for modules with secret params: the API never
    returns a secret, so whether to send it again cannot be decided by reading it back."""
    secrets = [p for p in params if p["secret"]]
    names = ", ".join(f"O({p['option']})" for p in secrets)
    lines = [
        f"When to send the secret options ({names}), which the API never returns.",
        f"V(on_create) sends them only when the {what} is created; a changed value in the task is not sent to an"
        f" existing or adopted {what}.",
        f"V(always) also sets them on an existing or adopted {what} whenever they differ from the values this task"
        " last applied (kept in the state store as salted digests only); when adopting, they are always set.",
    ]
    fixed = [f"O({p['option']})" for p in secrets if p["immutable"]]
    if fixed:
        lines.append(f"{', '.join(fixed)} can be set on create only: the API cannot change it later.")
    return lines


def ignore_changes_lines(params: list[dict[str, Any]]) -> list[str]:
    """``ignore_changes`` (Terraform's ``lifecycle.ignore_changes``, Argo CD's ``ignoreDifferences``; issue 23):
    params the platform or another tool changes, whose live value the module leaves alone once created."""
    lines = [
        "Options whose live value the module leaves alone once the instance exists: it sets them on create, and"
        " after that neither compares them with the task nor sends them in a modify (the live value is kept).",
        "For params the platform or another tool manages, as Terraform's C(ignore_changes) and Argo CD's"
        " C(ignoreDifferences) do.",
        "Without it, a live value that differs from the task is corrected on the next run.",
    ]
    codes = {p["code"] for p in params}
    if {"autoScale", "resourceDisk"} <= codes:
        lines.append(
            "One param is left alone without it: while C(autoScale) is on, the platform grows the disk, so a live"
            " C(resourceDisk) larger than the task's is never shrunk; the task warns so."
        )
    return lines


def return_secrets_lines(spec: dict[str, Any]) -> list[str]:
    """``return_secrets`` for services with secret outputs (issue 16): opt in to read them, with ``no_log``."""
    names = ", ".join(f"C({out['code']})" for out in spec["outputs"] if out["secret"])
    return [
        f"Also return the secret outputs ({names}) in RV(outputs) and RV(instance.outputs); without it they are"
        " omitted.",
        "They are never written to the state store or shown in a diff. Set C(no_log: true) on the task (as"
        " amazon.aws.iam_access_key recommends for its secret key): the registered result keeps them for later"
        " tasks, while the task's output and logs (at any verbosity) show none of them. The module refuses"
        " O(return_secrets=true) in a task without C(no_log), before any API call.",
        "They come back from the module sealed: encrypted for the controller with a key pair made for the task,"
        " and opened by the module's action plugin, so even C(ANSIBLE_DEBUG), which prints a module's raw output"
        " before C(no_log) applies, shows none of them. An C(async) task with O(return_secrets=true) is refused:"
        " its result would be written in clear to the async job file on the managed host.",
    ]


def instance_lifecycle_options(spec: dict[str, Any]) -> list[Option]:
    """resource_name, instance_uid, state, adopt_existing_on_create, suspend_on_destroy, git_revision,
    update_password, ignore_changes, return_secrets: the ones the contract gives this service."""
    life = spec["lifecycle"]
    if life["suspendable"]:
        absent = (
            "suspends the instance (O(suspend_on_destroy=true)), or only forgets it (false): the instance then keeps"
            " running, and the task warns so."
        )
    elif life["deletable"]:
        absent = "deletes the instance."
    else:
        absent = "only removes the instance from the state store; the API has no delete for this service."
    lines = {
        "resource_name": [
            "Display name of the instance (the API's C(displayName)); names a new instance and finds it.",
            "One of O(resource_name) and O(instance_uid) is required.",
        ],
        "instance_uid": [
            "UUID of an existing instance. The identity comes only from this option or the state store,"
            " never from O(resource_name).",
            "When the state store has another UUID for this resource, the task fails: the identity cannot change.",
        ],
        "state": _state_lines("instance", absent, deleted=life["deletable"], suspendable=life["suspendable"]),
        "adopt_existing_on_create": [
            "When an instance named O(resource_name) already exists, adopt it instead of failing"
            " (a suspended one is resumed first when its create-only params match).",
            "When false and the name exists, the task fails and offers two choices.",
        ],
        "suspend_on_destroy": [
            "With O(state=absent): true suspends the instance; false only removes it from the state"
            " store, with no API call, and the instance keeps running (use O(state=deleted) to delete"
            " it).",
        ],
        "git_revision": [
            "Git revision to deploy. When it differs from the recorded one, the instance is redeployed"
            " (after a modify when params changed too); unchanged means no redeploy.",
        ],
        "update_password": update_password_lines(spec["params"], "instance"),
        "ignore_changes": ignore_changes_lines(spec["params"]),
        "return_secrets": return_secrets_lines(spec),
    }
    return contract_options(spec, "instance", None, lines)


def _attributes(diff: bool) -> dict[str, Any]:
    return {
        "check_mode": {"support": "full"},
        "diff_mode": {"support": "full" if diff else "none"},
        "platform": {"platforms": "all"},
    }


def _outputs_lines(spec: dict[str, Any], texts: ServiceTexts) -> list[str]:
    """One description line per output, in English (config/english.yml, issue 27). Codes may be dotted paths, so
    they are keys of a flat dict read as C(outputs['internalConnect.master']), not documented sub-keys
    (validate-modules bad-return-value-key)."""
    lines = []
    for out in spec["outputs"]:
        note = " Secret: returned only with O(return_secrets=true)." if out["secret"] else ""
        lines.append(f"C({out['code']}) ({out['type']}): {texts.output(out['code'])}{note}")
    return lines


_WAIT_FALSE_OUTPUTS = (
    "With O(wait=false) they are the instance's outputs when the task returns, before the operation has changed them"
    " (none yet for a create): read them again once it has finished."
)
_WAIT_FALSE_STATUS = " With O(wait=false), as read right after the operation was started (for example V(creating))."


def _instance_return(spec: dict[str, Any], texts: ServiceTexts, starts_operations: bool = True) -> dict[str, Any]:
    """`instance` of the result; `starts_operations`: the module runs operations (wait=false notes), not info."""
    outputs: dict[str, Any] = {
        "description": [
            "The instance outputs (C(instance.state.out) of the API) by output code; secret outputs are omitted"
            + (" unless O(return_secrets=true)." if any(o["secret"] for o in spec["outputs"]) else "."),
            *([_WAIT_FALSE_OUTPUTS] if starts_operations else []),
            "Read a dotted code with brackets, for example C(result.outputs['vault.url']).",
            *_outputs_lines(spec, texts),
        ],
        "returned": "always",
        "type": "dict",
    }
    return {
        "description": "The instance after the task (in check mode: as planned).",
        "returned": "when the instance exists or is planned",
        "type": "dict",
        "contains": {
            "instance_uid": {"description": "UUID of the instance.", "returned": "always", "type": "str"},
            "resource_name": {"description": "Display name of the instance.", "returned": "always", "type": "str"},
            "service_id": {
                "description": "Service id in the catalogue.",
                "returned": "always",
                "type": "int",
                "sample": spec["service_id"],
            },
            "status": {
                "description": "Normalised status: missing, creating, running, suspended, deleted, not_created,"
                " pending or failed." + (_WAIT_FALSE_STATUS if starts_operations else ""),
                "returned": "always",
                "type": "str",
                "sample": "running",
            },
            "status_raw": {
                "description": "The status exactly as the API said it.",
                "returned": "always",
                "type": "str",
            },
            "operation_pending": {"description": "An operation is queued.", "returned": "always", "type": "bool"},
            "operation_in_progress": {
                "description": "An operation is running.",
                "returned": "always",
                "type": "bool",
            },
            "params": {
                "description": "Current param values by option name; secrets omitted.",
                "returned": "always",
                "type": "dict",
            },
            "outputs": outputs,
        },
    }


_OPERATIONS_RETURN = {
    "description": "The API operations run, in order (in check mode: the ones that would run).",
    "returned": "always",
    "type": "list",
    "elements": "str",
    "sample": ["create"],
}
_OPERATION_RETURN = {
    "description": [
        "The last API operation the task started. With O(wait=false) it still runs when the task returns"
        " (RV(operation.finished=false)); pass the registered result to M(nubes.cloud.operation_info) to wait for it.",
        "With O(wait=false), when the operation an earlier run of this task started still runs, that one"
        " (RV(decision=in_flight)).",
    ],
    "returned": "when the task started an operation, or found its own earlier one still running",
    "type": "dict",
    "contains": {
        "uid": {"description": "UUID of the API operation.", "returned": "always", "type": "str"},
        "name": {"description": "Operation name, for example V(create).", "returned": "always", "type": "str"},
        "finished": {"description": "Whether the operation has finished.", "returned": "always", "type": "bool"},
        "duration": {
            "description": "Seconds the operation ran, as the API reports it; V(null) while it runs.",
            "returned": "always",
            "type": "float",
        },
        "timeout": {
            "description": "Seconds a wait for this operation may take: O(wait_timeout), else the service's timeout"
            " for the operation (C(config/operation_timeouts.json)). M(nubes.cloud.operation_info) waits that long"
            " by default.",
            "returned": "always",
            "type": "int",
        },
    },
}
_DIAGNOSTICS_RETURN = {
    "description": "Multi-line, human-readable account of the lifecycle decision and the identity it used.",
    "returned": "always",
    "type": "str",
}


def _top_level_instance_returns(
    spec: dict[str, Any], texts: ServiceTexts, returned: str, starts_operations: bool = True
) -> dict[str, Any]:
    """The instance's main fields repeated at the top level of the result (as the core returns them)."""
    outputs = dict(_instance_return(spec, texts, starts_operations)["contains"]["outputs"])
    outputs["returned"] = returned
    return {
        "instance_uid": {"description": "UUID of the instance.", "returned": returned, "type": "str"},
        "status": {
            "description": "Normalised status (see RV(instance.status)).",
            "returned": returned,
            "type": "str",
            "sample": "running",
        },
        "status_raw": {"description": "The status exactly as the API said it.", "returned": returned, "type": "str"},
        "outputs": outputs,
    }


def _base_doc(module: str, short: str, description: list[str], options: dict[str, Any], diff: bool) -> dict[str, Any]:
    return {
        "module": module,
        "short_description": short,
        "version_added": VERSION_ADDED,
        "description": description,
        "author": [AUTHOR],
        "extends_documentation_fragment": DOC_FRAGMENTS,
        "attributes": _attributes(diff),
        "options": options,
        "notes": [
            "Generated from the deck-api catalogue; see the resource and MAN pages under C(docs/) of the collection.",
            "The catalogue's own labels and manuals are in Russian: the resource page names each option's API label,"
            " and the MAN page has the manuals as the API gives them.",
        ],
        "seealso": [],
    }


TEST_SERVICE_NOTE = (
    "B(This is the platform's test service.) Its instances run no workload; use it to try playbooks and the "
    "collection against the API, not for real resources."
)


def service_label(spec: dict[str, Any]) -> str:
    """The English name, with the catalogue's name when it differs (`S3 bucket (S3 бакет)`), for tables."""
    title, display = spec["service_title"], spec["service_display_name"]
    return title if display == title else f"{title} ({display})"


def _service_words(spec: dict[str, Any]) -> str:
    """`S3 bucket (Russian name S3 бакет; service 13, C(s3bucket))`: English first, the API's name beside it."""
    title, display = spec["service_title"], spec["service_display_name"]
    ids = f"service {spec['service_id']}, C({spec['service_short_name']})"
    if display == title:
        return f"{title} ({ids})"
    language = "catalogue" if display.isascii() else "Russian"
    return f"{title} ({language} name {display}; {ids})"


def _short(spec: dict[str, Any], text: str) -> str:
    """A short description: English, marked when the service is the platform's test service."""
    return text + (" (test service)" if spec["test_service"] else "")


def _described(spec: dict[str, Any], description: list[str]) -> list[str]:
    return description + ([TEST_SERVICE_NOTE] if spec["test_service"] else [])


def _module_options(
    lifecycle: list[tuple[str, dict[str, Any], dict[str, Any]]],
    params: list[dict[str, Any]],
    registry: dict[int, str],
    texts: ServiceTexts,
    what: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    argument_spec: dict[str, Any] = {}
    docs: dict[str, Any] = {}
    for name, spec, doc in lifecycle:
        argument_spec[name], docs[name] = spec, doc
    for param in params:
        argument_spec[param["option"]] = option_spec(param)
        docs[param["option"]] = option_doc(param, registry, texts, what)
    return argument_spec, docs


def instance_module(
    spec: dict[str, Any], registry: dict[int, str], texts: ServiceTexts, examples_context: ExampleContext
) -> ModuleModel:
    """``<name>``: the instance itself (create/modify/delete/suspend/resume + redeploy)."""
    name = spec["name"]
    argument_spec, docs = _module_options(instance_lifecycle_options(spec), spec["params"], registry, texts, "instance")
    life = spec["lifecycle"]
    description = [
        f"Creates, modifies and destroys instances of {_service_words(spec)}.",
        *texts.description,
        "Idempotent: a re-run with the same options changes nothing.",
    ]
    if life["suspendable"]:
        description.append("Supports suspend on destroy and resume with adopt.")
    short = _short(spec, f"Manage {spec['service_title']} instances")
    documentation = _base_doc(name, short, _described(spec, description), docs, True)
    documentation["seealso"] = [{"module": f"nubes.cloud.{name}_info"}] + [
        {"module": f"nubes.cloud.{name}_{sub['name']}"} for sub in spec["subresources"]
    ]
    examples = instance_examples(spec, examples_context)
    returns = {
        "instance": _instance_return(spec, texts),
        **_top_level_instance_returns(spec, texts, "always"),
        "operations": _OPERATIONS_RETURN,
        "operation": _OPERATION_RETURN,
        "decision": {
            "description": "The lifecycle decision taken, for example V(create), V(modify), V(resume+modify), V(adopt),"
            " V(suspend), V(delete), V(forget) (removed from the state store only; the instance keeps running),"
            " V(in_flight) (O(wait=false): the operation an earlier run of this task started still runs; nothing was"
            " started), V(none).",
            "returned": "always",
            "type": "str",
        },
        "diagnostics": _DIAGNOSTICS_RETURN,
    }
    return ModuleModel(
        name, "instance", None, spec, argument_spec, documentation, examples, returns, spec["params"], texts
    )


def subresource_module(
    spec: dict[str, Any],
    sub: dict[str, Any],
    registry: dict[int, str],
    texts: ServiceTexts,
    examples_context: ExampleContext,
) -> ModuleModel:
    """``<name>_<sub>``: P13, identity {parent instance uid, key}, adopt_existing_on_create."""
    name = f"{spec['name']}_{sub['name']}"
    what = f"{sub['name']}"
    lines = {
        "parent_instance_uid": [
            f"UUID of the parent M(nubes.cloud.{spec['name']}) instance.",
            "Exactly one of O(parent_instance_uid) and O(parent_resource_name) is required.",
        ],
        "parent_resource_name": [f"Display name of the parent M(nubes.cloud.{spec['name']}) instance."],
        "state": _state_lines(what, f"deletes the {what}."),
        "adopt_existing_on_create": [
            f"When a {what} with this O({sub['key']}) already exists in the parent, adopt it instead of failing."
        ],
        "update_password": update_password_lines(sub["params"], what),
    }
    lifecycle = contract_options(spec, "subresource", sub["name"], lines)
    argument_spec, docs = _module_options(lifecycle, sub["params"], registry, texts, what)
    description = [
        f"Manages the {what} objects inside a {_service_words(spec)} instance.",
        *texts.subresource(sub["name"]),
        f"Identity: the parent instance UUID and O({sub['key']}); idempotent by identity.",
    ]
    short = _short(spec, f"Manage {what} objects of {spec['service_title']}")
    documentation = _base_doc(name, short, _described(spec, description), docs, True)
    documentation["seealso"] = [{"module": f"nubes.cloud.{spec['name']}"}]
    examples = subresource_examples(spec, sub, examples_context)
    returns = {
        "subresource": {
            "description": f"The {what} after the task (in check mode: as planned).",
            "returned": "success",
            "type": "dict",
            "contains": {
                "parent_instance_uid": {
                    "description": "UUID of the parent instance.",
                    "returned": "always",
                    "type": "str",
                },
                "name": {
                    "description": "Sub-resource kind.",
                    "returned": "always",
                    "type": "str",
                    "sample": sub["name"],
                },
                "key": {"description": f"Value of O({sub['key']}).", "returned": "always", "type": "str"},
                "exists": {
                    "description": f"Whether the {what} exists after the task (in check mode: as planned).",
                    "returned": "always",
                    "type": "bool",
                },
                "params": {
                    "description": "Param values by option name; secrets omitted.",
                    "returned": "always",
                    "type": "dict",
                },
            },
        },
        "operations": {**_OPERATIONS_RETURN, "sample": [sub["operations"]["create"]]},
        "operation": _OPERATION_RETURN,
        "decision": {
            "description": f"The decision taken, for example V({sub['operations']['create']}), V(adopt),"
            " V(in_flight) (O(wait=false): this task's earlier operation still runs; nothing was started), V(none).",
            "returned": "always",
            "type": "str",
        },
        "diagnostics": _DIAGNOSTICS_RETURN,
    }
    return ModuleModel(
        name, "subresource", sub["name"], spec, argument_spec, documentation, examples, returns, sub["params"], texts
    )


STATUSES = ["creating", "running", "suspended", "deleted", "not_created", "pending", "failed"]


def info_module(spec: dict[str, Any], texts: ServiceTexts, examples_context: ExampleContext) -> ModuleModel:
    """``<name>_info``: reads one instance, or lists the service's instances (issue 16); never writes."""
    name = f"{spec['name']}_info"
    lines = {
        "resource_name": [
            "Display name of the instance to read: the one the state store records under this name, else the"
            " live instance with this display name.",
            "Without O(resource_name) and O(instance_uid) the module lists every instance of the service in"
            " RV(instances).",
        ],
        "instance_uid": ["UUID of the instance to read."],
        "status": [
            "Only instances with one of these normalised statuses go into RV(instances).",
            "Default: every status but V(deleted) (the API keeps deleted instances for good).",
        ],
        "return_secrets": return_secrets_lines(spec),
    }
    lifecycle = contract_options(spec, "info", None, lines)
    argument_spec = {name: spec for name, spec, _doc in lifecycle}
    docs = {name: doc for name, _spec, doc in lifecycle}
    description = [
        f"Reads instances of {_service_words(spec)}: status, params and outputs. Never changes anything.",
        *texts.description,
        "With O(resource_name) or O(instance_uid) it reads that instance (RV(instance)); without them it lists the"
        " instances of the service (RV(instances)), filtered by O(status), as amazon.aws and hetzner.hcloud"
        " C(_info) modules do.",
        "API calls of a list: one C(GET /instances?serviceId=) per 100 instances of the service, then one"
        " C(GET /instances/{uid}) (params and outputs) per instance that passes the filters; the list items carry"
        " the status, so filtered-out and deleted instances cost no further call.",
    ]
    short = _short(spec, f"Read {spec['service_title']} instances")
    documentation = _base_doc(name, short, _described(spec, description), docs, False)
    documentation["seealso"] = [{"module": f"nubes.cloud.{spec['name']}"}]
    examples = info_examples(spec, examples_context)
    found = "when O(resource_name) or O(instance_uid) names one instance that was found"
    view = _instance_return(spec, texts, starts_operations=False)
    returns = {
        "exists": {
            "description": "Whether a live instance was found (a list: whether RV(instances) is not empty).",
            "returned": "always",
            "type": "bool",
        },
        "instance": {**view, "returned": found},
        "instances": {
            "description": "The instances found, each with the fields of RV(instance): every instance of the service"
            " with a status in O(status), or the one O(resource_name) or O(instance_uid) names (several when live"
            " instances share the display name).",
            "returned": "always",
            "type": "list",
            "elements": "dict",
            "contains": view["contains"],
        },
        **_top_level_instance_returns(spec, texts, found, starts_operations=False),
        "subresources": {
            "description": "Sub-resources of the instance by kind, each a list of param maps (secrets omitted).",
            "returned": found,
            "type": "dict",
        },
        "state": {
            "description": "The record of this instance in the state store.",
            "returned": "when the state store has a record",
            "type": "dict",
        },
        "operation": {
            **_OPERATION_RETURN,
            "description": "Never set: info modules start no operation (the common option O(wait) has no effect).",
            "returned": "never",
        },
    }
    return ModuleModel(name, "info", None, spec, argument_spec, documentation, examples, returns, [], texts)


def service_modules(
    spec: dict[str, Any], registry: dict[int, str], texts: ServiceTexts, examples_context: ExampleContext
) -> list[ModuleModel]:
    """The modules of one service: the instance module, one per sub-resource, and the info module; ``texts`` are
    the service's English texts, ``examples_context`` the values and services its EXAMPLES use (issue 27)."""
    models = [instance_module(spec, registry, texts, examples_context)]
    models += [subresource_module(spec, sub, registry, texts, examples_context) for sub in spec["subresources"]]
    models.append(info_module(spec, texts, examples_context))
    return models
