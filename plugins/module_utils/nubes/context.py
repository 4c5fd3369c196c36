# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Everything one task needs, built from the SERVICE spec and the validated params."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig, Redactor
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import InputError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text, is_uuid
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationExecutor, Poller
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    StateBackend,
    StateStore,
    default_state_path,
)

DEFAULT_TIMEOUT = 1800


UID_OPTIONS = ("instance_uid", "parent_instance_uid")
MAX_DURATION = 31536000  # one year, in seconds


class TaskContext:
    """The API, the state store, the service spec and the task's params, with small lookups on them."""

    def __init__(
        self,
        service: Mapping[str, Any],
        params: Mapping[str, Any],
        check_mode: bool = False,
        diff_mode: bool = False,
        transport: Any = None,
        backend: Optional[StateBackend] = None,
        poller: Optional[Poller] = None,
    ) -> None:
        self.service = service
        self.params = params
        self.check_mode = check_mode
        self.diff_mode = diff_mode
        self.warnings: List[str] = []
        self.service_id = int(service["service_id"])
        self.service_name = str(service["name"])
        endpoint = params.get("api_endpoint")
        token = params.get("api_token")
        if not endpoint:
            raise InputError("api_endpoint is not set: set the option or the NUBES_API_ENDPOINT environment variable")
        if not token:
            raise InputError("api_token is not set: set the option or the NUBES_API_TOKEN environment variable")
        check_uid_options(params)
        check_duration_options(params)
        self.redactor = Redactor([token])
        self.client = ApiClient(
            ClientConfig(
                endpoint,
                token,
                validate_certs=bool(params.get("validate_certs", True)),
                ca_path=params.get("ca_path"),
                timeout=float(params.get("request_timeout") or 60.0),
            ),
            redactor=self.redactor,
            transport=transport,
        )
        self.api = DeckApi(self.client)
        self.executor = OperationExecutor(self.api, poller)
        if backend is None:
            backend = open_state_backend(params)
        self.store = StateStore(backend, str(params.get("workspace") or "default"))
        self._names: Dict[tuple, str] = {}

    # -- spec lookups ----------------------------------------------------------------------------

    @property
    def lifecycle(self) -> Mapping[str, Any]:
        return self.service.get("lifecycle") or {}

    def timeout(self, operation: str) -> int:
        """wait_timeout, else the per-operation timeout of the service (P8), else 1800 s."""
        if self.params.get("wait_timeout"):
            return int(self.params["wait_timeout"])
        timeouts = self.lifecycle.get("timeouts") or {}
        base = operation.split("_", 1)[0] if operation not in timeouts else operation
        return int(timeouts.get(operation) or timeouts.get(base) or DEFAULT_TIMEOUT)

    def operation_spec(self, name: str) -> Mapping[str, Any]:
        for item in self.service.get("operations") or []:
            if item.get("name") == name:
                return item
        return {}

    def svc_operation_id(self, name: str, instance: Optional[Instance] = None) -> Optional[int]:
        op_id = self.operation_spec(name).get("svc_operation_id")
        if op_id is None and instance is not None:
            op_id = instance.available_operations().get(name.lower())
        return int(op_id) if op_id is not None else None

    @property
    def module_name(self) -> str:
        return f"nubes.cloud.{self.service_name}"

    # -- references ------------------------------------------------------------------------------

    def resolve_name(self, service_id: int, name: str) -> str:
        """A display name of a live instance of `service_id` -> its uid (P37, ref_service_id)."""
        cache_key = (service_id, name)
        if cache_key in self._names:
            return self._names[cache_key]
        found = self.api.find_live_by_name(service_id, name)
        if not found:
            raise InputError(
                f"no live instance of service {service_id} is named {name!r}; give its uid or create it first"
            )
        if len(found) > 1:
            raise InputError(
                f"{len(found)} live instances of service {service_id} are named {name!r} "
                f"({', '.join(i.uid for i in found)}); give the uid instead"
            )
        self._names[cache_key] = found[0].uid
        return found[0].uid

    def flag(self, option: str, default: bool) -> bool:
        """A boolean option; unset (None) means the SERVICE's lifecycle default (P19), else `default`."""
        value = self.params.get(option)
        if value is None:
            value = self.lifecycle.get(option, default)
        return bool(value)

    def warn(self, text: str) -> None:
        self.warnings.append(self.redactor(text))

    def outputs(self, instance: Optional[Instance]) -> Dict[str, Any]:
        """instance.state.out by the spec's output codes (dotted paths), secrets omitted."""
        if instance is None:
            return {}
        out = instance.outputs()
        specs = self.service.get("outputs")
        if not specs:
            return {str(k): v for k, v in out.items()}
        result: Dict[str, Any] = {}
        for spec in specs:
            if spec.get("secret"):
                continue
            code = str(spec["code"])
            value = lookup_dotted(out, code)
            if value is not None:
                result[code] = value
        return result

    def register_secrets(self, values: Mapping[str, Any]) -> None:
        for value in values.values():
            text = as_text(value)
            if text:
                self.redactor.add(text)


def check_uid_options(params: Mapping[str, Any]) -> None:
    """K4b/P35: a uid option is a UUID; anything else would end up inside a URL path, so it is refused before
    any call."""
    for option in UID_OPTIONS:
        value = params.get(option)
        if value and not is_uuid(value):
            raise InputError(
                f"{option} must be an instance UUID (8-4-4-4-12 hex digits), got {str(value)[:80]!r}: copy it from "
                "the Cloud Console or an earlier task result, or name the instance by resource_name instead"
            )


def check_duration_options(params: Mapping[str, Any]) -> None:
    """Durations are finite and within a year: a socket or a lock timer cannot take NaN, infinity or 2**63 s."""
    timeout = params.get("request_timeout")
    if timeout is not None and not (isinstance(timeout, (int, float)) and 0 < timeout <= MAX_DURATION):
        raise InputError(
            f"request_timeout must be a number of seconds above 0 and at most {MAX_DURATION}, got {timeout!r}"
        )
    for option in ("wait_timeout", "state_lock_timeout", "state_lease_duration"):
        value = params.get(option)
        if value is not None and not (isinstance(value, (int, float)) and 0 <= value <= MAX_DURATION):
            raise InputError(f"{option} must be a number of seconds from 0 to {MAX_DURATION}, got {value!r}")


def open_state_backend(params: Mapping[str, Any]) -> StateBackend:
    """The backend selected by state_backend (P42): the local file, or Secrets + Leases in Kubernetes."""
    if (params.get("state_backend") or "file") == "kubernetes":
        from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend

        return KubernetesBackend.from_params(params)
    timeout = params.get("state_lock_timeout")
    return FileBackend(params.get("state_path") or default_state_path(), float(timeout) if timeout else None)


def lookup_dotted(data: Mapping[str, Any], code: str) -> Any:
    if code in data:
        return data[code]
    current: Any = data
    for part in code.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current
