# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The common options of every generated cloud module (documented by the doc fragment nubes.cloud.common)
and the cross-option rules the core passes to AnsibleModule (docs/dev/contracts.md)."""

from __future__ import annotations

import copy
import os
from typing import Any, Dict, List, Mapping, Optional

from ansible.module_utils.errors import AnsibleFallbackNotFound


def env_fallback(*names: str, **_unused: Any) -> str:
    """ansible's env_fallback, except that an empty variable counts as unset: AWX credential types inject every
    field they declare, an optional one the credential leaves blank as "" (docs/awx/nubes_credential_type.yml)."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    raise AnsibleFallbackNotFound


COMMON_OPTIONS: Dict[str, Dict[str, Any]] = {
    "api_endpoint": {"type": "str", "fallback": (env_fallback, ["NUBES_API_ENDPOINT"])},
    "api_token": {"type": "str", "no_log": True, "fallback": (env_fallback, ["NUBES_API_TOKEN"])},
    "validate_certs": {"type": "bool", "default": True},
    "ca_path": {"type": "path"},
    "request_timeout": {"type": "float", "default": 60.0},
    "wait": {"type": "bool", "default": True},
    "wait_timeout": {"type": "int"},
    "state_backend": {
        "type": "str",
        "default": "file",
        "choices": ["file", "kubernetes"],
        "fallback": (env_fallback, ["NUBES_STATE_BACKEND"]),
    },
    "state_path": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_PATH"])},
    # P42: the Kubernetes backend (Secrets + Leases, kubernetes_backend.py) and the lock settings of both backends
    "state_namespace": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_NAMESPACE"])},
    "state_kubeconfig": {"type": "path", "fallback": (env_fallback, ["NUBES_STATE_KUBECONFIG"])},
    "state_context": {"type": "str", "fallback": (env_fallback, ["NUBES_STATE_CONTEXT"])},
    "state_lock_timeout": {"type": "int", "default": 1800, "fallback": (env_fallback, ["NUBES_STATE_LOCK_TIMEOUT"])},
    "state_lease_duration": {"type": "int", "default": 60, "fallback": (env_fallback, ["NUBES_STATE_LEASE_DURATION"])},
    "workspace": {"type": "str", "default": "default", "fallback": (env_fallback, ["NUBES_WORKSPACE"])},
}

KINDS = ("instance", "subresource", "info")


def argument_spec(module_spec: Mapping[str, Any]) -> Dict[str, Any]:
    """COMMON_OPTIONS + the module's own ARGUMENT_SPEC (the module's keys win on a clash)."""
    spec = copy.deepcopy(COMMON_OPTIONS)
    spec.update(copy.deepcopy(dict(module_spec)))
    return spec


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
