# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The option contract of the collection, the one place every option spec is declared (docs/dev/contracts.md
"The option contract"; issue 26), in kubernetes.core's ``args_common.py`` shape: plain dicts of option specs,
composed per module kind.

- The common options of every cloud module (:data:`COMMON_OPTIONS`, documented by the doc fragment
  nubes.cloud.common) are composed of groups that other modules reuse: ``state_migrate`` takes the state store
  groups.
- The lifecycle options of each module kind (:func:`lifecycle_options`) are what the generator emits into a
  generated module's ARGUMENT_SPEC (it loads this file; docs/dev/contracts.md) and what the tests compose.
- The cross-option rules per kind go to AnsibleModule as kwargs (:func:`module_kwargs`).
"""

from __future__ import annotations

import copy
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ansible.module_utils.errors import AnsibleFallbackNotFound


def env_fallback(*names: str, **_unused: Any) -> str:
    """ansible's env_fallback, except that an empty variable counts as unset: AWX credential types inject every
    field they declare, an optional one the credential leaves blank as "" (docs/awx/nubes_credential_type.yml)."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    raise AnsibleFallbackNotFound


Spec = Dict[str, Dict[str, Any]]

CONNECTION_ARG_SPEC: Spec = {
    "api_endpoint": {"type": "str", "fallback": (env_fallback, ["NUBES_API_ENDPOINT"])},
    "api_token": {"type": "str", "no_log": True, "fallback": (env_fallback, ["NUBES_API_TOKEN"])},
    "validate_certs": {"type": "bool", "default": True},
    "ca_path": {"type": "path"},
    "request_timeout": {"type": "float", "default": 60.0},
}
WAIT_ARG_SPEC: Spec = {
    "wait": {"type": "bool", "default": True},
    "wait_timeout": {"type": "int"},
}
STATE_BACKEND_ARG_SPEC: Spec = {
    "state_backend": {
        "type": "str",
        "default": "file",
        "choices": ["file", "kubernetes"],
        "fallback": (env_fallback, ["NUBES_STATE_BACKEND"]),
    },
}
STATE_FILE_ARG_SPEC: Spec = {
    "state_path": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_PATH"])},
}
# P42: the Kubernetes backend (Secrets + Leases, kubernetes_backend.py) and the lock settings of both backends.
STATE_KUBERNETES_ARG_SPEC: Spec = {
    "state_namespace": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_NAMESPACE"])},
    "state_kubeconfig": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_KUBECONFIG"])},
    "state_context": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_CONTEXT"])},
}
# P42, issue 26: docs/state.md promises 1800 s; state_migrate had its own 300 until it took this group.
STATE_LOCK_ARG_SPEC: Spec = {
    "state_lock_timeout": {"type": "int", "default": 1800, "fallback": (env_fallback, ["NUBES_STATE_LOCK_TIMEOUT"])},
    "state_lease_duration": {"type": "int", "default": 60, "fallback": (env_fallback, ["NUBES_STATE_LEASE_DURATION"])},
}
WORKSPACE_ARG_SPEC: Spec = {
    "workspace": {"type": "str", "default": "default", "fallback": (env_fallback, ["NUBES_WORKSPACE"])},
}


def compose(*groups: Mapping[str, Any]) -> Spec:
    """One argument spec of the groups, in order; a later group's option wins on a clash (deep copies, so a module
    that changes its spec never changes the contract)."""
    spec: Spec = {}
    for group in groups:
        spec.update(copy.deepcopy(dict(group)))
    return spec


# The state store options, as a module that reads or writes the state takes them (state_migrate).
STATE_STORE_ARG_SPEC: Spec = compose(STATE_FILE_ARG_SPEC, STATE_KUBERNETES_ARG_SPEC, STATE_LOCK_ARG_SPEC)
COMMON_OPTIONS: Spec = compose(
    CONNECTION_ARG_SPEC,
    WAIT_ARG_SPEC,
    STATE_BACKEND_ARG_SPEC,
    STATE_STORE_ARG_SPEC,
    WORKSPACE_ARG_SPEC,
)

# -- the lifecycle options of each module kind (emitted by the generator into ARGUMENT_SPEC) ----------------------
PRESENCE = ["present", "absent"]
STATUSES = ["creating", "running", "suspended", "deleted", "not_created", "pending", "failed"]

INSTANCE_ARG_SPEC: Spec = {
    "resource_name": {"type": "str"},
    "instance_uid": {"type": "str"},
    "state": {"type": "str", "choices": PRESENCE, "default": "present"},  # + "deleted" when the API can delete (P12)
    "adopt_existing_on_create": {"type": "bool", "default": False},  # the service's lifecycle default (P19)
}
SUSPEND_ARG_SPEC: Spec = {"suspend_on_destroy": {"type": "bool", "default": True}}  # suspendable services (P29)
REDEPLOY_ARG_SPEC: Spec = {"git_revision": {"type": "str"}}  # services with a redeploy operation (P14/P18)
# modules with secret params; no_log False: the name only looks secret (validate-modules)
UPDATE_PASSWORD_ARG_SPEC: Spec = {
    "update_password": {"type": "str", "choices": ["always", "on_create"], "default": "on_create", "no_log": False}
}
# instance modules with modifiable params (issue 23); the choices are those params
IGNORE_CHANGES_ARG_SPEC: Spec = {"ignore_changes": {"type": "list", "elements": "str", "choices": [], "default": []}}
# services with secret outputs (issue 16)
RETURN_SECRETS_ARG_SPEC: Spec = {"return_secrets": {"type": "bool", "default": False, "no_log": False}}
SUBRESOURCE_ARG_SPEC: Spec = {  # P13/P17: the identity is the parent and the key param
    "parent_instance_uid": {"type": "str"},
    "parent_resource_name": {"type": "str"},
    "state": {"type": "str", "choices": PRESENCE, "default": "present"},
    "adopt_existing_on_create": {"type": "bool", "default": False},
}
INFO_ARG_SPEC: Spec = {  # issue 16: neither resource_name nor instance_uid lists the service's instances
    "resource_name": {"type": "str"},
    "instance_uid": {"type": "str"},
    "status": {"type": "list", "elements": "str", "choices": STATUSES},
}

KINDS = ("instance", "subresource", "info")
# Every lifecycle option a module of the kind may have; service params must not shadow them (generator/naming.py).
KIND_OPTION_NAMES: Dict[str, Tuple[str, ...]] = {
    "instance": tuple(
        compose(
            INSTANCE_ARG_SPEC,
            SUSPEND_ARG_SPEC,
            REDEPLOY_ARG_SPEC,
            UPDATE_PASSWORD_ARG_SPEC,
            IGNORE_CHANGES_ARG_SPEC,
            RETURN_SECRETS_ARG_SPEC,
        )
    ),
    "subresource": tuple(compose(SUBRESOURCE_ARG_SPEC, UPDATE_PASSWORD_ARG_SPEC)),
    "info": tuple(compose(INFO_ARG_SPEC, RETURN_SECRETS_ARG_SPEC)),
}


def _secret(items: List[Mapping[str, Any]]) -> bool:
    return any(item.get("secret") for item in items)


def lifecycle_options(service: Mapping[str, Any], kind: str, sub: Optional[str] = None) -> Spec:
    """The lifecycle options of a module of `kind` for `service` (the SERVICE dict or the generator's spec: both
    have `lifecycle`, `params`, `outputs` and `subresources`), exactly as they head the module's ARGUMENT_SPEC."""
    if kind == "info":
        return compose(INFO_ARG_SPEC, RETURN_SECRETS_ARG_SPEC if _secret(service["outputs"]) else {})
    if kind == "subresource":
        entry = next((s for s in service["subresources"] if s["name"] == sub), None)
        if entry is None:
            raise ValueError(f"service {service['name']!r} has no sub-resource {sub!r}")
        return compose(SUBRESOURCE_ARG_SPEC, UPDATE_PASSWORD_ARG_SPEC if _secret(entry["params"]) else {})
    if kind != "instance":
        raise ValueError("kind must be one of {}, got {!r}".format(", ".join(KINDS), kind))
    life, params = service["lifecycle"], service["params"]
    spec = compose(INSTANCE_ARG_SPEC)
    if life["deletable"]:
        spec["state"]["choices"] = [*PRESENCE, "deleted"]
    spec["adopt_existing_on_create"]["default"] = bool(life["adopt_existing_on_create"])
    if life["suspendable"]:
        spec.update(compose(SUSPEND_ARG_SPEC))
        spec["suspend_on_destroy"]["default"] = bool(life["suspend_on_destroy"])
    if life["redeploy"]:
        spec.update(compose(REDEPLOY_ARG_SPEC))
    if _secret(params):
        spec.update(compose(UPDATE_PASSWORD_ARG_SPEC))
    modifiable = sorted(p["option"] for p in params if not p["immutable"] and not p["secret"])
    if modifiable:
        spec.update(compose(IGNORE_CHANGES_ARG_SPEC))
        spec["ignore_changes"]["choices"] = modifiable
    if _secret(service["outputs"]):
        spec.update(compose(RETURN_SECRETS_ARG_SPEC))
    return spec


def argument_spec(module_spec: Mapping[str, Any]) -> Spec:
    """COMMON_OPTIONS + the module's own ARGUMENT_SPEC (the module's keys win on a clash)."""
    return compose(COMMON_OPTIONS, module_spec)


def module_kwargs(service: Mapping[str, Any], kind: str, sub: Optional[str] = None) -> Dict[str, Any]:
    """required_one_of / mutually_exclusive / required_if per kind (contracts.md)."""
    if kind not in KINDS:
        raise ValueError("kind must be one of {}, got {!r}".format(", ".join(KINDS), kind))
    kwargs: Dict[str, Any] = {"supports_check_mode": True}
    if kind == "info":
        return kwargs  # neither resource_name nor instance_uid: list the service's instances (issue 16)
    if kind == "instance":
        kwargs["required_one_of"] = [["resource_name", "instance_uid"]]
        return kwargs
    from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import load_service

    key = load_service(service).subresource(str(sub)).key
    pair: List[str] = ["parent_instance_uid", "parent_resource_name"]
    kwargs["required_one_of"] = [pair]
    kwargs["mutually_exclusive"] = [pair]
    kwargs["required_if"] = [["state", "present", [key]], ["state", "absent", [key]]]
    return kwargs
