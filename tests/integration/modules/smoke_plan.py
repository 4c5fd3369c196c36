"""Plans of the smoke test: for one instance module, the tasks that create its required references first,
then create it, re-run it and destroy it (and its references), using only its spec (specs/<name>.yml)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]

# Values for required params without an API default, by option name (plausible for the emulator's checks).
VALUES: dict[str, Any] = {
    "resource_realm": "k8s-3.ext.nubes.ru",
    "domain": "smoke",
    "emails": "ops@example.test",
    "git_path": "https://git.example.test/app.git",
    "image_vm": "Ubuntu_22-20G",
    "user_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKsmoke smoke@example.test",
    "from_service_namespace": "smoke",
    "internal_addr_access": "10.0.0.10",
    "ip_space_name": "default",
    "record_input": "192.0.2.10",
    "record_name": "www",
    "zone_name": "smoke.example.test",
    "vdc_network_pool": "pool-1",
    "vdc_provider_gateway": "gateway-1",
    "storage_config": {"default": {"limitGb": 10}},
    "partitions": 1,
    "replicas": 1,
    "name_topic": "events",
    "bucket_name": "smoke-bucket",
    "vapp_name": "smoke-vapp",
    "display_name": "smoke",
}
# Params without refSvcId that still hold an instance UUID: the service they point at.
UUID_OF: dict[str, str] = {"service_uid": "dummy"}
SERVICES_WITHOUT_MODULE = {19: "organization"}


@functools.cache
def load_specs() -> dict[str, dict[str, Any]]:
    """Every spec of the collection by module name (read once per process; callers only read them)."""
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((REPO / "specs").glob("*.yml"))}


@dataclass
class SmokePlan:
    """Tasks for one module; ``raw`` lists services to create through the API first (no module)."""

    module: str
    tasks: list[dict[str, Any]] = field(default_factory=list)
    raw: list[tuple[int, str]] = field(default_factory=list)
    create_index: int = -1
    destroy_tasks: list[dict[str, Any]] = field(default_factory=list)


def value_for(param: dict[str, Any]) -> Any:
    if param["choices"]:
        return param["choices"][0] if param["type"] != "integer" else int(param["choices"][0])
    if param["option"] in VALUES:
        return VALUES[param["option"]]
    return {"string": "smoke", "integer": 1, "boolean": False, "array": [], "json": {}, "map-fixed": {}}[param["type"]]


def plan(module: str, suffix: str) -> SmokePlan:
    """The smoke plan of ``module``: dependencies first (depth-first), then create, re-run, destroy."""
    specs = load_specs()
    by_id = {s["service_id"]: name for name, s in specs.items()}
    result = SmokePlan(module)
    created: dict[str, tuple[str, int]] = {}  # module -> (resource_name, task index)

    def ensure(name: str) -> tuple[str, int]:
        if name in created:
            return created[name]
        args: dict[str, Any] = {"resource_name": f"smoke-{name.replace('_', '-')}-{suffix}"}
        for param in specs[name]["params"]:
            if not param["required"] or param["default"] is not None:
                continue
            ref = param["ref_service_id"]
            if ref in by_id:
                args[param["option"]] = ensure(by_id[ref])[0]  # a display name: the collection resolves it
            elif ref is not None:
                raw_name = f"smoke-{SERVICES_WITHOUT_MODULE.get(ref, ref)}-{suffix}"
                result.raw.append((ref, raw_name))
                args[param["option"]] = "{{ raw_uids['" + raw_name + "'] }}"
            elif param["option"] in UUID_OF:
                index = ensure(UUID_OF[param["option"]])[1]
                args[param["option"]] = "{{ r" + str(index) + ".instance_uid }}"
            else:
                args[param["option"]] = value_for(param)
        index = len(result.tasks)
        result.tasks.append({"name": f"create {name}", f"nubes.cloud.{name}": args})
        created[name] = (args["resource_name"], index)
        result.destroy_tasks.insert(
            0,
            {
                "name": f"destroy {name}",
                f"nubes.cloud.{name}": {"resource_name": args["resource_name"], "state": "absent"},
            },
        )
        return created[name]

    ensure(module)
    result.create_index = len(result.tasks) - 1
    create = result.tasks[-1]
    result.tasks.append({**create, "name": f"re-run {module}"})
    return result
