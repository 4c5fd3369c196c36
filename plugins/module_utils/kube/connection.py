# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the one REST client from connection options, with one documented precedence (C11, C12).

1. ``kubeconfig``: a path (on the host that runs the module), the kubeconfig's YAML text, or a dict such as a
   cloud module's output; with ``context`` (default: its current context).
2. ``host``: the API server URL with a bearer token ``api_key`` (and ``ca_cert``).
3. ``gke``: a GKE cluster, the token from google-auth (refreshed when it expires).
   These three are alternatives: giving two of them is an error.
4. None of them: the pod's service account when running inside a pod (``KUBERNETES_SERVICE_HOST`` and the mounted
   token) and no ``context`` is asked for; else the default kubeconfig (``$KUBECONFIG``, ``~/.kube/config``) with
   ``context``.

``ca_cert`` and ``validate_certs`` apply on top of any of them; impersonation (``impersonate_user`` and
``impersonate_groups``) too, an empty user disabling it (C12).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from ansible_collections.nubes.cloud.plugins.module_utils.kube import kubeconfig as kc
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import Connection, KubeApi
from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError
from ansible_collections.nubes.cloud.plugins.module_utils.kube.transport import open_transport

try:
    import yaml

    HAS_YAML = True
except ImportError:  # pragma: no cover - ansible-core depends on PyYAML
    HAS_YAML = False

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


@dataclass
class ConnectionOptions:
    """Where the cluster is and who talks to it."""

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
    dry_run: bool = False


def in_cluster() -> bool:
    """True inside a pod with a mounted service account token."""
    return kc.in_cluster()


def pod_namespace() -> Optional[str]:
    """The pod's own namespace (service account mount), when running inside a pod."""
    try:
        with open(os.path.join(kc.SERVICE_ACCOUNT_DIR, "namespace"), encoding="utf-8") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def kubeconfig_dict(value: Any) -> Optional[Dict[str, Any]]:
    """A kubeconfig given as a dict or as inline YAML text, or None when ``value`` is a path (or empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        raise KubeConfigError("kubeconfig must be a path, the kubeconfig's YAML text, or a dict")
    if "\n" not in value and os.path.exists(os.path.expanduser(value)):
        return None
    if ("clusters" in value or "apiVersion" in value) and HAS_YAML:
        try:
            data = yaml.load(value, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # a SafeLoader (libyaml)
        except yaml.YAMLError:
            raise KubeConfigError("kubeconfig looks like inline content but is not valid YAML") from None
        if isinstance(data, dict):
            return data
    raise KubeConfigError(f"kubeconfig file {value} does not exist (nor is the value a kubeconfig's content)")


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


def _kubeconfig_client_config(options: ConnectionOptions) -> kc.ClientConfig:
    as_dict = kubeconfig_dict(options.kubeconfig)
    try:
        if as_dict is not None:
            return kc.client_config(kc.from_content(as_dict), options.context)
        if options.kubeconfig:
            return kc.client_config(kc.read_files(str(options.kubeconfig)), options.context)
        if in_cluster() and not options.context:
            return kc.in_cluster_config()
        # $KUBECONFIG as it is now (a list of files, merged), else ~/.kube/config
        default = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
        return kc.client_config(kc.read_files(default), options.context)
    except (KubeConfigError, OSError) as exc:
        raise KubeConfigError(
            f"cannot load the kubeconfig: {exc}; give kubeconfig (and context), host and api_key, or run inside a "
            "pod with a service account"
        ) from None


def configuration(options: ConnectionOptions) -> kc.ClientConfig:
    """Where the cluster is and how to authenticate, as the options select (precedence in the module docstring)."""
    given = [name for name in ("kubeconfig", "host", "gke") if getattr(options, name)]
    if len(given) > 1:
        raise KubeConfigError(f"{' and '.join(given)} are alternatives; give one of them")
    if options.gke:
        from ansible_collections.nubes.cloud.plugins.module_utils.kube import gke  # pylint: disable=import-outside-toplevel

        config = gke.client_config(options.gke)  # google-auth is imported only for GKE targets
    elif options.host:
        token = kc.bearer(options.api_key) if options.api_key else None
        config = kc.ClientConfig(host=str(options.host).rstrip("/"), authorization=kc.static(token))
    else:
        config = _kubeconfig_client_config(options)
    if options.ca_cert:
        config.ca_file, config.ca_data = options.ca_cert, None
    if not options.validate_certs:
        config.verify = False
    return config


def connect(options: ConnectionOptions, pool_size: int = 16) -> KubeApi:
    """The REST client for the cluster the options select."""
    transport = open_transport(configuration(options), pool_size=pool_size)
    connection = Connection(
        transport,
        options.impersonate_user or None,
        list(options.impersonate_groups or []),
        options.request_timeout,
        dry_run=options.dry_run,
    )
    return KubeApi(connection)


def connect_kubeconfig(
    kubeconfig: Optional[str] = None, context: Optional[str] = None, pool_size: int = 16, **options: Any
) -> KubeApi:
    """Shortcut for tests and benchmarks: ``connect`` with a kubeconfig path (and context, and other options)."""
    return connect(ConnectionOptions(kubeconfig=kubeconfig, context=context, **options), pool_size=pool_size)
