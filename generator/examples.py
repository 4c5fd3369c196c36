"""EXAMPLES of the generated modules (issue 27), built from the specs and ``config/examples.yml``.

A create task gives what the API requires without a default, plus the references to other services. A reference
to a service this collection generates is the result of an earlier task of the same example, registered and read
as ``"{{ <var>.instance.instance_uid }}"``, as examples/demo.yml does (a bucket's ``s3_user_uid`` from the S3 task);
inside that earlier task a reference is the display name of the referenced instance (the modules resolve names).
Values: the service's own value in the file, else the spec's choices and API default, else the file's shared value.
A free-text param without one is an error naming the code and the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.errors import GeneratorError
from generator.options import typed_value

EXAMPLES_PATH = "config/examples.yml"
_SERVICE_KEYS = ("resource_name", "params", "output")


@dataclass(frozen=True)
class ExampleValues:
    """The parsed ``config/examples.yml``."""

    params: dict[str, Any]
    services: dict[str, dict[str, Any]]

    def resource_name(self, service: str) -> str:
        entry = self.services.get(service, {})
        if "resource_name" not in entry:
            raise GeneratorError(
                f"{EXAMPLES_PATH} has no display name for the examples of service {service!r}: add "
                f"services.{service}.resource_name"
            )
        name: str = entry["resource_name"]
        return name

    def shown_output(self, spec: dict[str, Any]) -> str | None:
        """The output the info example shows: the service's ``output`` entry, else its first non-secret output
        besides the Vault link, else the Vault link; None without outputs."""
        codes = [o["code"] for o in spec["outputs"] if not o["secret"]]
        chosen = self.services.get(spec["name"], {}).get("output")
        if chosen is not None and chosen not in codes:
            raise GeneratorError(
                f"{EXAMPLES_PATH}: services.{spec['name']}.output is {chosen!r}, not a non-secret output of the"
                f" service ({', '.join(codes)})"
            )
        others = [code for code in codes if code != "vault.url"]
        return chosen or (others + codes + [None])[0]

    def own(self, service: str, code: str) -> tuple[bool, Any]:
        own = self.services.get(service, {}).get("params", {})
        return (code in own, own.get(code))


def parse_examples(data: Any, source: str = EXAMPLES_PATH) -> ExampleValues:
    """Validate the document: ``params`` maps codes to values; ``services`` maps module names to
    ``resource_name`` and optional ``params``."""
    if not isinstance(data, dict) or set(data) - {"params", "services"}:
        raise GeneratorError(f"{source}: expected a mapping with 'params' and 'services' only")
    params = data.get("params") or {}
    services = data.get("services") or {}
    if not isinstance(params, dict) or not isinstance(services, dict):
        raise GeneratorError(f"{source}: 'params' and 'services' must be mappings")
    for name, entry in services.items():
        where = f"{source}: services.{name}"
        if not isinstance(entry, dict) or set(entry) - set(_SERVICE_KEYS):
            raise GeneratorError(f"{where}: expected a mapping with {', '.join(_SERVICE_KEYS)}")
        if not isinstance(entry.get("resource_name", ""), str) or not isinstance(entry.get("output", ""), str):
            raise GeneratorError(f"{where}: resource_name and output must be texts")
        if not isinstance(entry.get("params", {}), dict):
            raise GeneratorError(f"{where}: params must be a mapping")
    return ExampleValues(dict(params), {name: dict(entry) for name, entry in services.items()})


def load_examples(path: Path) -> ExampleValues:
    """Read and parse ``config/examples.yml``."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise GeneratorError(f"cannot read the example values {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise GeneratorError(f"{path}: invalid YAML: {exc}") from exc
    return parse_examples(data, str(path))


def var_name(display_name: str) -> str:
    """The variable a task registers its result in: the display name in snake_case (``shop-db`` -> ``shop_db``)."""
    return display_name.replace("-", "_").replace(".", "_")


def uid_of(display_name: str) -> str:
    """The reference to the instance an earlier task registered."""
    return "{{ " + var_name(display_name) + ".instance.instance_uid }}"


@dataclass(frozen=True)
class ExampleContext:
    """What example building needs besides the service's own spec: the file and the generated services by id."""

    values: ExampleValues
    specs_by_id: dict[int, dict[str, Any]]

    def value(self, spec: dict[str, Any], param: dict[str, Any]) -> Any:
        """A realistic value for a param that is not a reference to a generated service."""
        service, code = spec["name"], param["code"]
        found, own = self.values.own(service, code)
        if found:
            if param["choices"] and str(own) not in param["choices"]:
                raise GeneratorError(
                    f"{EXAMPLES_PATH}: services.{service}.params.{code} is {own!r}, not one of the API's choices "
                    f"{param['choices']}"
                )
            return own
        if param["choices"]:
            default = param["default"]
            return typed_value(param, default if default in param["choices"] else param["choices"][0])
        if param["default"] is not None:
            return typed_value(param, param["default"])
        if code in self.values.params:
            return self.values.params[code]
        if param["ref_service_id"] is not None and param["ref_service_id"] in self.specs_by_id:
            return self.values.resource_name(self.specs_by_id[param["ref_service_id"]]["name"])
        if param["type"] == "map-fixed":
            return {s["option"]: self.value(spec, s) for s in param["sub_params"] if _must_give(s)}
        raise GeneratorError(
            f"{EXAMPLES_PATH} has no example value for param {code!r} of service {service!r} (specs/{service}.yml): "
            f"add services.{service}.params.{code} (or params.{code} when the value fits every service)"
        )

    def create_params(
        self, spec: dict[str, Any], params: list[dict[str, Any]], linked: bool | frozenset[str]
    ) -> dict[str, Any]:
        """The options of a create task: required without a default, and references. ``linked``: references to a
        generated service (True: every one; a set: those services) read the result of an earlier task; the others
        name the referenced instance."""
        task: dict[str, Any] = {}
        for param in params:
            target = self.target(param)
            if target is not None and (linked is True or (not isinstance(linked, bool) and target["name"] in linked)):
                task[param["option"]] = uid_of(self.values.resource_name(target["name"]))
            elif _must_give(param) or target is not None:
                task[param["option"]] = self.value(spec, param)
        return task

    def target(self, param: dict[str, Any]) -> dict[str, Any] | None:
        """The generated service a param refers to, if any."""
        return self.specs_by_id.get(param["ref_service_id"]) if param["ref_service_id"] is not None else None

    def create_task(
        self, spec: dict[str, Any], name: str, register: bool, earlier: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        """An earlier task: creates (or finds) the instance another example refers to; its references read the
        results of the ``earlier`` tasks (by service name), the others name the referenced instance."""
        display = self.values.resource_name(spec["name"])
        params = self.create_params(spec, spec["params"], earlier)
        task: dict[str, Any] = {"name": name, f"nubes.cloud.{spec['name']}": {"resource_name": display, **params}}
        if register:
            task["register"] = var_name(display)
        return task

    def prerequisites(self, spec: dict[str, Any], params: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One earlier task per generated service the params refer to, each once, in param order except that a
        service another of them refers to comes first (a vApp's VDC before its edge gateway, which names it)."""
        targets: dict[str, tuple[str, dict[str, Any]]] = {}
        for param in params:
            target = self.target(param)
            if target is not None and target["name"] not in targets:
                targets[target["name"]] = (param["option"], target)
        ordered: list[str] = []
        while len(ordered) < len(targets):
            for name, (_option, target) in targets.items():
                needs = {t["name"] for t in map(self.target, target["params"]) if t is not None} & set(targets)
                if name not in ordered and needs - {name} <= set(ordered):
                    ordered.append(name)
                    break
            else:  # a cycle between them: param order
                ordered += [name for name in targets if name not in ordered]
        tasks = []
        for position, name in enumerate(ordered):
            option, target = targets[name]
            title = f"Create the {target['service_title']} instance that {option} refers to"
            tasks.append(self.create_task(target, title, True, frozenset(ordered[:position])))
        return tasks


def _must_give(param: dict[str, Any]) -> bool:
    return bool(param["required"]) and param["default"] is None


def instance_examples(spec: dict[str, Any], context: ExampleContext) -> list[dict[str, Any]]:
    """Create (after the tasks it refers to), adopt, destroy and, for suspendable services, delete for good."""
    name, life = spec["name"], spec["lifecycle"]
    display = context.values.resource_name(name)
    task = {"resource_name": display, **context.create_params(spec, spec["params"], True)}
    if life["redeploy"]:
        task["git_revision"] = "v2.3.0"
    examples = context.prerequisites(spec, spec["params"])
    examples += [
        {"name": f"Create or update a {spec['service_title']} instance", f"nubes.cloud.{name}": task},
        {
            "name": "Adopt an existing instance with the same name instead of failing",
            f"nubes.cloud.{name}": {**task, "adopt_existing_on_create": True},
        },
        {
            "name": "Destroy the instance" + (" (suspends it)" if life["suspendable"] else ""),
            f"nubes.cloud.{name}": {"resource_name": display, "state": "absent"},
        },
    ]
    if life["deletable"] and life["suspendable"]:
        examples.append(
            {
                "name": "Delete the instance for good (the API's delete operation)",
                f"nubes.cloud.{name}": {"resource_name": display, "state": "deleted"},
            }
        )
    return examples


def subresource_examples(spec: dict[str, Any], sub: dict[str, Any], context: ExampleContext) -> list[dict[str, Any]]:
    """The parent's create task, registered; the sub-resource by the parent's UUID; its removal by parent name."""
    what, parent = sub["name"], context.values.resource_name(spec["name"])
    module = f"nubes.cloud.{spec['name']}_{what}"
    params = context.create_params(spec, sub["params"], True)
    return [
        context.create_task(spec, f"Create the {spec['service_title']} instance that holds the {what}", True),
        {
            "name": f"Ensure the {what} exists",
            module: {"parent_instance_uid": uid_of(parent), **params},
        },
        {
            "name": f"Remove the {what}",
            module: {"parent_resource_name": parent, sub["key"]: params[sub["key"]], "state": "absent"},
        },
    ]


def info_examples(spec: dict[str, Any], context: ExampleContext) -> list[dict[str, Any]]:
    """Read one instance and use an output, list the instances, and read the secret outputs with no_log."""
    name = f"{spec['name']}_info"
    display = context.values.resource_name(spec["name"])
    read = var_name(display) + "_info"
    shown = context.values.shown_output(spec)
    examples: list[dict[str, Any]] = [
        {"name": "Read the instance", f"nubes.cloud.{name}": {"resource_name": display}, "register": read},
    ]
    if shown is not None:
        examples.append(
            {
                "name": f"Show its output {shown}",
                "ansible.builtin.debug": {"msg": "{{ " + f"{read}.outputs['{shown}']" + " }}"},
            }
        )
    examples.append(
        {
            "name": "List the running and suspended instances of the service",
            f"nubes.cloud.{name}": {"status": ["running", "suspended"]},
            "register": f"{var_name(spec['name'])}_instances",
        }
    )
    secrets = [out["code"] for out in spec["outputs"] if out["secret"]]
    if secrets:
        examples.append(
            {
                "name": f"Read the secret outputs ({', '.join(secrets)}) for later tasks; no_log keeps them out of"
                " the output and logs",
                f"nubes.cloud.{name}": {"resource_name": display, "return_secrets": True},
                "no_log": True,
                "register": f"{read}_secrets",
            }
        )
    return examples
