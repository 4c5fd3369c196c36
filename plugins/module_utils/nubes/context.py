# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every task shares: its options (typed, checked once), the API, the state store, warnings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.api import DeckApi
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.client import ApiClient, ClientConfig, Redactor
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.controller_job import (
    ephemeral_state_job,
    ephemeral_state_warning,
)
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import ApiError, InputError, NotDeckApiError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.file_backend import FileBackend
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.models import Instance, as_text, is_uuid, lookup_dotted
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.operations import OperationExecutor, Poller
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.params import Reference
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import RetryBudget
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.sealed import Sealer
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.spec import ServiceSpec, load_service
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.state_store import (
    StateBackend,
    StateStore,
    default_state_path,
)

UID_OPTIONS = ("instance_uid", "parent_instance_uid")
MAX_DURATION = 31536000  # one year, in seconds
STATES = ("present", "absent", "deleted")
UPDATE_PASSWORD = ("always", "on_create")
CATALOGUE_ABSENT = (403, 404)  # deck-api answers for a service whose catalogue this token may not read or that has none


@dataclass(frozen=True)
class TaskOptions:
    """The lifecycle options of a task, with the service's defaults (P19) applied."""

    state: str
    adopt: bool
    suspend_on_destroy: bool
    wait: bool
    wait_timeout: Optional[int]
    update_password: str  # always | on_create (community.postgresql's convention)
    git_revision: Optional[str]
    workspace: str
    ignore_changes: Tuple[str, ...] = ()  # options whose live value is left alone once created (issue 23)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], spec: ServiceSpec) -> TaskOptions:
        state = str(params.get("state") or "present")
        update = str(params.get("update_password") or "on_create")
        if state not in STATES or update not in UPDATE_PASSWORD:
            raise InputError(f"state must be one of {', '.join(STATES)}; update_password always or on_create")
        adopt = params.get("adopt_existing_on_create")
        sod = params.get("suspend_on_destroy")
        revision = params.get("git_revision")
        timeout = params.get("wait_timeout")
        return cls(
            state=state,
            adopt=spec.lifecycle.adopt_existing_on_create if adopt is None else bool(adopt),
            suspend_on_destroy=spec.lifecycle.suspend_on_destroy if sod is None else bool(sod),
            wait=params.get("wait") is not False,
            wait_timeout=int(timeout) if timeout else None,
            update_password=update,
            git_revision=None if revision is None else str(revision),
            workspace=str(params.get("workspace") or "default"),
            ignore_changes=tuple(str(option) for option in params.get("ignore_changes") or ()),
        )


class OperationIds:
    """Issue 14: operation ids are not trustworthy in specs. An operation's `svcOperationId` comes from the live
    instance's `availableOperations` by name, else from `GET /services/{svcId}` (read once), and only when the
    API gives none from the spec."""

    def __init__(self, api: DeckApi, spec: ServiceSpec) -> None:
        self.api = api
        self.spec = spec
        self._catalogue: Optional[Dict[str, int]] = None

    def resolve(self, name: str, instance: Optional[Instance]) -> Optional[int]:
        if instance is not None:
            live = instance.available_operations()
            if name.lower() in live:
                return live[name.lower()]
        catalogue = self.catalogue()
        if name.lower() in catalogue:
            return catalogue[name.lower()]
        operation = self.spec.operation(name)
        return operation.svc_operation_id if operation else None

    def catalogue(self) -> Dict[str, int]:
        if self._catalogue is None:
            self._catalogue = {}
            try:
                svc = self.api.get_service(self.spec.service_id)
            except NotDeckApiError:
                raise  # a wrong endpoint is the user's error to see, never "no catalogue"
            except ApiError as exc:
                if exc.status not in CATALOGUE_ABSENT:
                    raise  # a rejected token or a dead endpoint fails once, after the client's own retries
                svc = {}  # the deck-api has no catalogue entry for us: the spec's ids are the fallback
            for item in svc.get("operations") or []:
                if isinstance(item, dict) and item.get("operation") and str(item.get("svcOperationId")).isdigit():
                    self._catalogue[str(item["operation"]).lower()] = int(item["svcOperationId"])
        return self._catalogue


class TaskContext:
    """The service spec, the task's options and params, the API, the state store and the warnings of a task."""

    def __init__(
        self,
        service: Any,
        params: Mapping[str, Any],
        check_mode: bool = False,
        diff_mode: bool = False,
        transport: Any = None,
        backend: Optional[StateBackend] = None,
        poller: Optional[Poller] = None,
    ) -> None:
        self.spec = load_service(service)
        self.params = params
        self.check_mode = check_mode
        self.diff_mode = diff_mode
        self.warnings: List[str] = []
        check_connection_options(params)
        check_uid_options(params)
        check_duration_options(params)
        self.options = TaskOptions.from_params(params, self.spec)
        self.client, self.redactor = connect(params, transport)
        self.api = DeckApi(self.client)
        self.executor = OperationExecutor(self.api, poller)
        self.operation_ids = OperationIds(self.api, self.spec)
        self.store = StateStore(backend or open_state_backend(params, self.client.budget), self.options.workspace)
        self._names: Dict[Tuple[int, str], str] = {}
        self._checked_uids: Set[Tuple[int, str]] = set()
        self.pending_references: List[str] = []  # check mode: references an earlier task would create
        self.ephemeral_job = ephemeral_state_job(params, os.environ)  # issue 16: AWX job + file state in its pod
        # issue 24: secret outputs go back sealed for the action plugin that asked for them (sealed.py)
        self.sealer = Sealer.from_environment(os.environ) if params.get("return_secrets") else None

    @property
    def module_name(self) -> str:
        return f"nubes.cloud.{self.spec.name}"

    def timeout(self, operation: str) -> int:
        """wait_timeout, else the per-operation timeout of the service (P8)."""
        return self.options.wait_timeout or self.spec.lifecycle.timeout(operation)

    def resolve_name(self, service_id: int, name: str) -> str:
        """A display name of a live instance of `service_id` -> its uid (P37, ref_service_id).

        An empty name is the empty uid of an instance not created yet (an earlier check-mode create's registered
        result): check mode predicts it (issue 16), a real run keeps it empty and the required check refuses it.
        """
        if not name:
            if self.check_mode:
                return self.pending_reference(f"the instance of service {service_id} (its uid is empty)")
            return ""
        cache_key = (service_id, name)
        if cache_key in self._names:
            return self._names[cache_key]
        found = self.api.find_live_by_name(service_id, name)
        if not found and self.check_mode:
            return self.pending_reference(f"the instance of service {service_id} named {name!r}")
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
        self._checked_uids.add((service_id, found[0].uid.lower()))  # found live in its service: checked already
        return found[0].uid

    def check_references(self, references: List[Reference]) -> None:
        """Issue 23 (P37 for uids): each uid given for a reference names a live instance of the referenced service,
        checked before any write as a name is; the error names both services. One read per uid and task."""
        for ref in references:
            key = (ref.service_id, ref.uid.lower())
            if key in self._checked_uids:
                continue
            instance = self.api.get_instance(ref.uid)
            if instance is None or not instance.live:
                raise InputError(
                    f"{ref.option}: no live instance has the uid {ref.uid} (an instance of service {ref.service_id} "
                    "is expected); give the uid or the name of a live one, or create it first"
                )
            if instance.service_id is not None and instance.service_id != ref.service_id:
                raise InputError(
                    f"{ref.option}: {ref.uid} is an instance of {instance.service_label}, not of "
                    f"{self._service_label(ref.service_id)}; give an instance of service {ref.service_id}"
                )
            self._checked_uids.add(key)

    def _service_label(self, service_id: int) -> str:
        """`<svcName> (service <id>)` for a message (one catalogue read, on the error path only)."""
        try:
            name = str(self.api.get_service(service_id).get("svcName") or "")
        except ApiError:
            name = ""
        return f"{name} (service {service_id})" if name else f"service {service_id}"

    def pending_reference(self, what: str) -> str:
        """Check mode only (issue 16): a reference that cannot be resolved yet, because an earlier task of the same
        check run would create what it names, stands for the uid it resolves to after that create; the task
        predicts its change. A real run resolves it or fails."""
        self.pending_references.append(f"Check mode: {what} would resolve after create (it does not exist yet)")
        return f"(would resolve after create: {what})"

    def warn_if_state_is_ephemeral(self) -> None:
        """Issue 16: in an AWX/Controller job, the default state file dies with the job's pod."""
        if self.ephemeral_job:
            self.warn(ephemeral_state_warning(self.ephemeral_job, default_state_path()))

    def warn(self, text: str) -> None:
        self.warnings.append(self.redactor(text))

    def outputs(self, instance: Optional[Instance]) -> Dict[str, Any]:
        """instance.state.out by the spec's output codes (dotted paths); secrets omitted unless return_secrets (the
        runner allows that only in a no_log task, issue 16), and then sealed when the action plugin asked for it
        (issue 24: the module's stdout never holds them in clear)."""
        if instance is None:
            return {}
        out = instance.outputs()
        if not self.spec.outputs:
            return {str(k): v for k, v in out.items()}
        with_secrets = bool(self.params.get("return_secrets"))
        result: Dict[str, Any] = {}
        for spec in self.spec.outputs:
            value = None if spec.secret and not with_secrets else lookup_dotted(out, spec.code)
            if value is not None:
                result[spec.code] = self.sealer.seal(value) if spec.secret and self.sealer else value
        return result

    def register_secrets(self, values: Mapping[str, Any]) -> None:
        for value in values.values():
            text = as_text(value)
            if text:
                self.redactor.add(text)


def check_connection_options(params: Mapping[str, Any]) -> None:
    """api_endpoint and api_token are set (by the task, module_defaults or the environment)."""
    if not params.get("api_endpoint"):
        raise InputError("api_endpoint is not set: set the option or the NUBES_API_ENDPOINT environment variable")
    if not params.get("api_token"):
        raise InputError("api_token is not set: set the option or the NUBES_API_TOKEN environment variable")


def connect(params: Mapping[str, Any], transport: Any = None) -> Tuple[ApiClient, Redactor]:
    """The API client of the connection options (checked by check_connection_options), and the redactor that keeps
    the token (and any secret added later) out of every message."""
    token = params["api_token"]
    redactor = Redactor([token])
    client = ApiClient(
        ClientConfig(
            params["api_endpoint"],
            token,
            validate_certs=bool(params.get("validate_certs", True)),
            ca_path=params.get("ca_path"),
            timeout=float(params.get("request_timeout") or 60.0),
        ),
        redactor=redactor,
        transport=transport,
    )
    return client, redactor


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


def open_state_backend(params: Mapping[str, Any], budget: Optional[RetryBudget] = None) -> StateBackend:
    """The backend selected by state_backend (P42): the local file, or Secrets + Leases in Kubernetes, whose retries
    come out of `budget`, the task's one retry budget (issue 24)."""
    if (params.get("state_backend") or "file") == "kubernetes":
        from ansible_collections.nubes.cloud.plugins.module_utils.nubes.kubernetes_backend import KubernetesBackend

        return KubernetesBackend.from_params(params, budget)
    timeout = params.get("state_lock_timeout")
    return FileBackend(params.get("state_path") or default_state_path(), float(timeout) if timeout else None)
