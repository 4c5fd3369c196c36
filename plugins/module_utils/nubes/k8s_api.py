# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The few Kubernetes calls the state backend makes (Secrets and coordination.k8s.io/v1 Leases in one namespace).

Objects are plain dicts (the API's JSON). A 409 answer raises :class:`KubeConflict` (both "already exists" on
create and a stale ``metadata.resourceVersion`` on replace/delete), a 404 :class:`KubeNotFound`; any other
failure a :class:`NubesError` that says what to check (RBAC, kubeconfig, namespace).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.nubes.errors import NubesError

try:
    import urllib3
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
    from kubernetes.client.exceptions import ApiException

    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR: Optional[str] = None
except ImportError as exc:  # pragma: no cover - reported when the backend is selected
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = str(exc)

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
REQUEST_TIMEOUT = 30
RBAC_HINT = (
    "the identity needs secrets get/list/create/update/patch and leases get/create/update/delete in the namespace "
    "(see docs/state.md and docs/awx/rbac-state-backend.yml)"
)


class KubeConflict(Exception):
    """HTTP 409: the object exists already, or it changed since it was read (stale resourceVersion)."""


class KubeNotFound(Exception):
    """HTTP 404."""


def in_cluster() -> bool:
    """True inside a pod with a mounted service account token."""
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.isfile(
        os.path.join(SERVICE_ACCOUNT_DIR, "token")
    )


def pod_namespace() -> Optional[str]:
    """The pod's own namespace (service account mount), when running inside a pod."""
    try:
        with open(os.path.join(SERVICE_ACCOUNT_DIR, "namespace"), encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def connect(kubeconfig: Optional[str] = None, context: Optional[str] = None) -> Any:
    """An ``ApiClient``: the given kubeconfig (and context); else the pod's service account when running inside
    a pod; else the default kubeconfig ($KUBECONFIG or ~/.kube/config)."""
    if not HAS_KUBERNETES:
        raise NubesError(
            "state_backend=kubernetes needs the Python package 'kubernetes' on the host that runs the module "
            f"(pip install kubernetes; in AWX: add it to the execution environment): {KUBERNETES_IMPORT_ERROR}"
        )
    configuration = k8s_client.Configuration()
    try:
        if kubeconfig:
            k8s_config.load_kube_config(
                config_file=os.path.expanduser(kubeconfig), context=context, client_configuration=configuration
            )
        elif in_cluster() and not context:
            k8s_config.load_incluster_config(client_configuration=configuration)
        else:
            k8s_config.load_kube_config(context=context, client_configuration=configuration)
    except (k8s_config.ConfigException, OSError) as exc:
        raise NubesError(
            f"cannot load the Kubernetes configuration of the state backend ({exc}); set state_kubeconfig "
            "(NUBES_STATE_KUBECONFIG) and state_context (NUBES_STATE_CONTEXT), or run inside a pod with a "
            "service account"
        ) from None
    return k8s_client.ApiClient(configuration)


class KubeObjects:
    """Secrets and Leases of one namespace, as dicts."""

    def __init__(self, api_client: Any, namespace: str) -> None:
        self.api_client = api_client
        self.namespace = namespace
        self.core = k8s_client.CoreV1Api(api_client)
        self.coordination = k8s_client.CoordinationV1Api(api_client)

    def _call(self, what: str, method: Any, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        try:
            response = method(*args, _preload_content=False, _request_timeout=REQUEST_TIMEOUT, **kwargs)
        except ApiException as exc:
            if exc.status == 409:
                raise KubeConflict(what) from None
            if exc.status == 404:
                raise KubeNotFound(what) from None
            reason = _reason(exc)
            hint = RBAC_HINT if exc.status in (401, 403) else "check the namespace and the cluster's health"
            raise NubesError(
                f"Kubernetes state backend: {what} in namespace {self.namespace} failed: HTTP {exc.status} {reason}; "
                + hint
            ) from None
        except (OSError, urllib3.exceptions.HTTPError) as exc:
            raise NubesError(
                f"Kubernetes state backend: {what} in namespace {self.namespace} failed: cannot reach the API server "
                f"({exc}); check state_kubeconfig/state_context"
            ) from None
        data = response.data
        return json.loads(data) if data else {}

    # -- Secrets -----------------------------------------------------------------------------------

    def list_secrets(self, label_selector: str) -> List[Dict[str, Any]]:
        found = self._call(
            "list secrets", self.core.list_namespaced_secret, self.namespace, label_selector=label_selector
        )
        return list(found.get("items") or [])

    def create_secret(self, body: Dict[str, Any]) -> Dict[str, Any]:
        return self._call("create secret", self.core.create_namespaced_secret, self.namespace, body)

    def replace_secret(self, name: str, body: Dict[str, Any]) -> Dict[str, Any]:
        """Replace; ``body.metadata.resourceVersion`` makes it conditional (409 when the Secret changed)."""
        return self._call("update secret " + name, self.core.replace_namespaced_secret, name, self.namespace, body)

    # -- Leases ------------------------------------------------------------------------------------

    def get_lease(self, name: str) -> Dict[str, Any]:
        return self._call("get lease " + name, self.coordination.read_namespaced_lease, name, self.namespace)

    def create_lease(self, body: Dict[str, Any]) -> Dict[str, Any]:
        return self._call("create lease", self.coordination.create_namespaced_lease, self.namespace, body)

    def replace_lease(self, name: str, body: Dict[str, Any]) -> Dict[str, Any]:
        return self._call(
            "update lease " + name, self.coordination.replace_namespaced_lease, name, self.namespace, body
        )

    def delete_lease(self, name: str, resource_version: str) -> None:
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"resourceVersion": resource_version}}
        self._call("delete lease " + name, self.coordination.delete_namespaced_lease, name, self.namespace, body=body)

    def close(self) -> None:
        close = getattr(self.api_client, "close", None)
        if close is not None:
            close()


def _reason(exc: Any) -> str:
    try:
        body = json.loads(exc.body or "{}")
    except ValueError:
        body = {}
    return str(body.get("message") or exc.reason or "")
