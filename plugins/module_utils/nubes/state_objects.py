# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Secrets and Leases of the Kubernetes state backend: retried calls and errors that name their cause (P42,
beyond the seed; issue 24).

- Retries, as the component engine retries: an error a later attempt may cure (no answer: refused, reset, timeout;
  an apiserver 5xx, or a 429 still throttled after the access layer waited out its Retry-After) is retried with the
  engine's backoff (``kube.backoff``), paid from the task's ONE retry budget (``retry.RetryBudget``, shared with the
  API client): every failed attempt costs the time it took, every wait its seconds, and a retry starts only while
  the budget still holds its wait. An apiserver restart is thus ridden out; a dead one fails the task once the
  budget is used up, the message counting the attempts and the real time.
- A write whose outcome is unknown (sent, no answer, or a 5xx) is never sent again blindly: the object is read back
  first. A create is sent again only while the object does not exist; a replace or a delete only while the object
  still has the resourceVersion it was sent with (its precondition). Otherwise the write, ours or another writer's,
  has landed: the caller gets Conflict, or NotFound, as after a 409 or a 404, and re-reads and re-applies its change
  (which finds it done), so nothing is applied twice.
- 409 and 404 pass through to the caller (optimistic concurrency); a 403 names the verb and the resource to grant,
  from the apiserver's Status (reason, details, message); anything else says what to check.
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube.backoff import Backoff
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import ConnectionOptions, connect
from ansible_collections.nubes.cloud.plugins.module_utils.kube.discovery import LEASES, SECRETS
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import (
    ApiError,
    Conflict,
    KubeConfigError,
    KubeError,
    NotFound,
)
from ansible_collections.nubes.cloud.plugins.module_utils.kube.records import RecordStore
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError
from ansible_collections.nubes.cloud.plugins.module_utils.nubes.retry import (
    RetryBudget,
    attempts_text,
    retry_budget_from_env,
)

REQUEST_TIMEOUT = 30.0
RBAC_HINT = (
    "the identity needs secrets get/list/create/update/patch and leases get/create/update/delete in the namespace "
    "(see docs/state.md and docs/awx/rbac-state-backend.yml)"
)
# `secrets "x" is forbidden: User "carol" cannot update resource "secrets" in API group "" in the namespace "ns"`
FORBIDDEN = re.compile(r'(User "[^"]*") cannot ([a-z]+) resource "([^"]+)"(?: in API group "([^"]*)")?')
VERBS = {"GET": "get", "POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def forbidden_text(exc: ApiError, namespace: str) -> str:
    """What a 403 denies and what to grant, from the apiserver's Status: the user, the verb and the resource (from
    ``details``, else the message), e.g. `the identity (User "carol") cannot update secrets in namespace ns: grant verb
    update on resource secrets in namespace ns`."""
    found = FORBIDDEN.search(exc.message)
    details = exc.body.get("details")
    details = details if isinstance(details, dict) else {}
    who = f"the identity ({found.group(1)})" if found else "the identity"
    verb = found.group(2) if found else VERBS.get(exc.method, exc.method.lower())
    resource = str(details.get("kind") or (found.group(3) if found else "") or "the resource")
    group = str(details.get("group") or (found.group(4) if found and found.group(4) else ""))
    where = f"resource {resource}" + (f" (API group {group})" if group else "") + f" in namespace {namespace}"
    return f"{who} cannot {verb} {resource} in namespace {namespace}: grant verb {verb} on {where}"


class StateObjects:
    """Secrets and Leases of one namespace as dicts (P42), every call retried inside the task's retry budget."""

    def __init__(
        self,
        api: Any,
        namespace: str,
        budget: Optional[RetryBudget] = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self.namespace = namespace
        self.secrets = RecordStore(api, SECRETS, namespace)
        self.leases = RecordStore(api, LEASES, namespace)
        self.budget = budget if budget is not None else RetryBudget(retry_budget_from_env())
        self.sleep = sleep
        self.clock = clock
        self.retries = 0  # attempts that failed and were retried (for tests and diagnostics)

    @classmethod
    def connect(
        cls, kubeconfig: Optional[str], context: Optional[str], namespace: str, budget: Optional[RetryBudget] = None
    ) -> StateObjects:
        """Connect with the state backend's kubeconfig and context (kube.connection's precedence)."""
        options = ConnectionOptions(kubeconfig=kubeconfig, context=context, request_timeout=REQUEST_TIMEOUT)
        try:
            return cls(connect(options, pool_size=4), namespace, budget)
        except KubeConfigError as exc:
            raise NubesError(
                f"cannot load the Kubernetes configuration of the state backend ({exc}); set state_kubeconfig "
                "(NUBES_STATE_KUBECONFIG) and state_context (NUBES_STATE_CONTEXT), or run inside a pod with a "
                "service account"
            ) from None

    # -- retries -----------------------------------------------------------------------------------

    def _retrying(self, what: str, attempt: Callable[[bool], Any], retry: bool = True) -> Any:
        """`attempt(first)` until it returns, raises Conflict/NotFound, fails for good, or the budget is used up
        (issue 24; the waits are the component engine's backoff)."""
        backoff = Backoff()
        started = self.clock()
        tries = 0
        while True:
            tries += 1
            began = self.clock()
            try:
                return attempt(tries == 1)
            except (Conflict, NotFound):
                raise
            except KubeError as exc:
                took = self.clock() - began
                if not retry or not exc.retriable:
                    raise self._error(what, exc, tries, self.clock() - started) from None
                self.budget.spend(took)
                delay = backoff.next_delay()
                if not self.budget.take(delay):
                    raise self._error(what, exc, tries, self.clock() - started, used_up=True) from None
                self.retries += 1
                self.sleep(delay)

    def _error(self, what: str, exc: KubeError, tries: int, elapsed: float, used_up: bool = False) -> NubesError:
        prefix = f"Kubernetes state backend: {what} in namespace {self.namespace} failed"
        if tries > 1 or used_up:
            prefix += f" {attempts_text(tries, elapsed)}"
        if used_up:
            prefix += f", when the task's retry budget of {self.budget.total:.0f} s (NUBES_RETRY_BUDGET) was used up"
        if isinstance(exc, ApiError) and exc.status == 403:
            detail = forbidden_text(exc, self.namespace)
            return NubesError(f"{prefix}: HTTP 403 ({exc.reason or 'Forbidden'}): {detail}; {RBAC_HINT}")
        if isinstance(exc, ApiError):
            hint = RBAC_HINT if exc.status == 401 else "check the namespace and the cluster's health"
            return NubesError(f"{prefix}: HTTP {exc.status} {exc.message}; {hint}")
        return NubesError(f"{prefix}: {exc}; check state_kubeconfig/state_context")

    def _read(self, what: str, call: Callable[[], Any], retry: bool = True) -> Any:
        return self._retrying(what, lambda _first: call(), retry)

    def _write(self, what: str, store: RecordStore, name: str, version: str, send: Callable[[], Any]) -> Any:
        """One write with `version` as its precondition ("" for a create); an unknown outcome is read back before
        the write is sent again (see the module docstring)."""

        def attempt(first: bool) -> Any:
            if not first:
                current = store.get(name)
                now = str(((current or {}).get("metadata") or {}).get("resourceVersion") or "")
                if not version and current is not None:
                    raise Conflict("GET", name, 409, {"message": "exists now (an earlier attempt's, or another's)"})
                if version and current is None:
                    raise NotFound("GET", name, 404, {"message": "gone since it was read"})
                if version and now != version:
                    raise Conflict("GET", name, 409, {"message": f"resourceVersion {version} changed to {now}"})
            return send()

        return self._retrying(what, attempt)

    # -- the calls the backend and the locks make --------------------------------------------------

    def list_secrets(self, label_selector: str) -> List[Dict[str, Any]]:
        return list(self._read("list secrets", lambda: self.secrets.list(label_selector)))

    def create_secret(self, body: Dict[str, Any]) -> Dict[str, Any]:
        name = body["metadata"]["name"]
        return dict(self._write("create secret " + name, self.secrets, name, "", lambda: self.secrets.write(body)))

    def replace_secret(self, name: str, body: Dict[str, Any]) -> Dict[str, Any]:
        """Replace; ``body.metadata.resourceVersion`` makes it conditional (Conflict when the Secret changed)."""
        version = str(body["metadata"]["resourceVersion"])
        return dict(self._write("update secret " + name, self.secrets, name, version, lambda: self.secrets.write(body)))

    def get_lease(self, name: str, retry: bool = True) -> Dict[str, Any]:
        """The Lease (NotFound when it does not exist); `retry=False` for the renewal thread, which tries again at
        its next interval instead."""
        found = self._read("get lease " + name, lambda: self.leases.get(name), retry)
        if found is None:
            raise NotFound("GET", f"leases/{name}", 404)
        return dict(found)

    def create_lease(self, body: Dict[str, Any]) -> Dict[str, Any]:
        name = body["metadata"]["name"]
        return dict(self._write("create lease " + name, self.leases, name, "", lambda: self.leases.write(body)))

    def replace_lease(self, name: str, body: Dict[str, Any], retry: bool = True) -> Dict[str, Any]:
        version = str(body["metadata"]["resourceVersion"])
        if not retry:
            return dict(self._read("update lease " + name, lambda: self.leases.write(body), retry=False))
        return dict(self._write("update lease " + name, self.leases, name, version, lambda: self.leases.write(body)))

    def delete_lease(self, name: str, resource_version: str) -> None:
        """Delete with `resource_version` as the precondition; NotFound when it was gone already."""
        deleted = self._write(
            "delete lease " + name,
            self.leases,
            name,
            resource_version,
            lambda: self.leases.delete(name, resource_version),
        )
        if not deleted:
            raise NotFound("DELETE", f"leases/{name}", 404)

    def close(self) -> None:
        """Nothing to release: the pool closes with the process."""
