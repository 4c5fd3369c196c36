# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the engine's API client from the module's connection options (C11 remote target, C12 impersonation).

Sources, in this order: ``gke`` (google-auth credentials), ``host`` (+ ``api_key``, ``ca_cert``), ``kubeconfig``
(a path, inline YAML text, or a dict such as a cloud module's output), else the default kubeconfig / in-cluster
service account.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.component import gke as gke_auth
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.client import Connection, KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.k8s.errors import ConnectionFailedError

try:
    import yaml
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config

    HAS_KUBERNETES = True
except ImportError:  # pragma: no cover - reported through Connection.from_kubeconfig
    HAS_KUBERNETES = False

SENSITIVE_KUBECONFIG_KEYS = (
    "token",
    "password",
    "client-key-data",
    "client-certificate-data",
    "id-token",
    "refresh-token",
    "access-token",
    "client-secret",
)


class ConnectionOptionError(Exception):
    """The connection options are inconsistent or unreadable."""


@dataclass
class ConnectionOptions:
    """The module's connection options."""

    kubeconfig: Any = None
    context: Optional[str] = None
    host: Optional[str] = None
    api_key: Optional[str] = None
    ca_cert: Optional[str] = None
    validate_certs: bool = True
    gke: Optional[Mapping[str, Any]] = None
    impersonate_user: Optional[str] = None
    impersonate_groups: List[str] = field(default_factory=list)
    request_timeout: float = 60.0


def kubeconfig_dict(value: Any) -> Optional[Dict[str, Any]]:
    """A kubeconfig given as a dict or as inline YAML text, or None when ``value`` is a path (or empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        raise ConnectionOptionError("kubeconfig must be a path, the kubeconfig's YAML text, or a dict")
    if "\n" not in value and os.path.exists(os.path.expanduser(value)):
        return None
    if "clusters" in value or "apiVersion" in value:
        try:
            data = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConnectionOptionError("kubeconfig looks like inline content but is not valid YAML") from None
        if isinstance(data, dict):
            return data
    raise ConnectionOptionError(f"kubeconfig file {value} does not exist (nor is the value a kubeconfig's content)")


def sensitive_values(value: Any) -> List[str]:
    """The secret strings of a kubeconfig (tokens, keys, passwords), to keep them out of results and logs."""
    found: List[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in SENSITIVE_KUBECONFIG_KEYS and isinstance(item, str) and item:
                found.append(item)
            else:
                found.extend(sensitive_values(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(sensitive_values(item))
    return found


def _direct_configuration(options: ConnectionOptions) -> Any:
    configuration = k8s_client.Configuration()
    configuration.host = str(options.host).rstrip("/")
    if options.api_key:
        configuration.api_key = {"authorization": options.api_key}
        configuration.api_key_prefix = {"authorization": "Bearer"}
    if options.ca_cert:
        configuration.ssl_ca_cert = options.ca_cert
    configuration.verify_ssl = bool(options.validate_certs)
    return configuration


def build_api(options: ConnectionOptions, pool_size: int = 16) -> KubeApi:
    """The API client for the target cluster."""
    if not HAS_KUBERNETES:
        raise ConnectionFailedError("the Python package 'kubernetes' is required on the host running the module")
    user = options.impersonate_user or None  # C12: empty user disables impersonation
    groups = list(options.impersonate_groups or []) if user else []
    if options.gke:
        configuration = gke_auth.configuration(options.gke, options.request_timeout)
    elif options.host:
        configuration = _direct_configuration(options)
    else:
        configuration = None
    if configuration is not None:
        configuration.connection_pool_maxsize = pool_size
        connection = Connection(k8s_client.ApiClient(configuration), user, groups, options.request_timeout)
        return KubeApi(connection)
    as_dict = kubeconfig_dict(options.kubeconfig)
    path = os.path.expanduser(options.kubeconfig) if options.kubeconfig and as_dict is None else None
    configuration = k8s_client.Configuration()
    try:
        if as_dict is not None:
            k8s_config.load_kube_config_from_dict(as_dict, context=options.context, client_configuration=configuration)
        elif path:
            k8s_config.load_kube_config(config_file=path, context=options.context, client_configuration=configuration)
        else:
            try:
                k8s_config.load_incluster_config(client_configuration=configuration)
            except k8s_config.ConfigException:
                k8s_config.load_kube_config(context=options.context, client_configuration=configuration)
    except (k8s_config.ConfigException, OSError) as exc:
        raise ConnectionOptionError(f"cannot load the kubeconfig: {exc}") from None
    # overrides must be in place before the ApiClient builds its connection pool
    if options.ca_cert:
        configuration.ssl_ca_cert = options.ca_cert
    if not options.validate_certs:
        configuration.verify_ssl = False
    configuration.connection_pool_maxsize = pool_size
    connection = Connection(k8s_client.ApiClient(configuration), user, groups, options.request_timeout)
    return KubeApi(connection)


def store_api(api: KubeApi) -> KubeApi:
    """A second client on the same pool and identity whose calls are counted apart (the component's own record)."""
    conn = api.connection
    user = None
    groups: List[str] = []
    for key, value in getattr(conn, "_impersonation", []):
        if key == "Impersonate-User":
            user = value
        else:
            groups.append(value)
    return KubeApi(Connection(conn.api_client, user, groups, conn.request_timeout))
