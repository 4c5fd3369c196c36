# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a cluster is and how to authenticate to it: kubeconfig files, kubeconfig content, in-cluster service
accounts and exec credential plugins, read without the ``kubernetes`` package (C11).

Importing ``kubernetes`` costs a module process 0.15-0.45 s (its ``__init__`` loads the API models; 37.x still
imports pydantic and google-auth), more than the rest of a no-op component run; what the engine needs is this
loader and a connection pool (``kube.client.Transport``). The semantics are those of kubectl (client-go) and of
``kubernetes.config``:

- ``KUBECONFIG`` (or ``kubeconfig``) may list several files (``:``-separated); they are merged as kubectl merges
  them: the first file that defines a cluster, user or context name wins, and the first ``current-context``.
- Relative file paths in an entry (``certificate-authority``, ``client-certificate``, ``client-key``,
  ``tokenFile``, an exec plugin's command) are relative to the file that defines the entry; for kubeconfig content
  (a dict or YAML text) to the working directory.
- Credentials, in ``kubernetes.config``'s order: ``auth-provider`` (gcp, oidc, azure: delegated to the
  ``kubernetes`` package, imported only then), ``token`` / ``tokenFile``, ``exec`` (client.authentication.k8s.io
  v1 and v1beta1: a bearer token or a client certificate, run again when ``expirationTimestamp`` has passed),
  ``username`` / ``password``; client certificates from ``client-certificate(-data)`` / ``client-key(-data)``.
- Cluster: ``server``, ``certificate-authority(-data)``, ``insecure-skip-tls-verify``, ``tls-server-name``,
  ``proxy-url``; without ``proxy-url`` the ``HTTPS_PROXY`` / ``NO_PROXY`` environment, as the Python client.
- In a pod: ``KUBERNETES_SERVICE_HOST`` / ``_PORT``, the mounted ``ca.crt`` and the service account token, read
  again every minute (projected tokens are rotated).
"""

from __future__ import annotations

import base64
import datetime
import json
import os
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError

try:
    import yaml

    HAS_YAML = True
    _YAML_LOADER: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
except ImportError:  # pragma: no cover - ansible-core depends on PyYAML
    HAS_YAML = False
    _YAML_LOADER = None

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
IN_CLUSTER_TOKEN_PERIOD = datetime.timedelta(minutes=1)
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
EXEC_CLUSTER_CONFIG_EXTENSION = "client.authentication.k8s.io/exec"

# Returns the value of the Authorization header for the next request (None: send none), refreshing as needed.
Authorization = Callable[[], Optional[str]]


@dataclass
class ClientConfig:
    """Everything a connection pool needs: the server, TLS settings and how requests authenticate."""

    host: str
    ca_file: Optional[str] = None
    ca_data: Optional[str] = None  # PEM text
    cert_file: Optional[str] = None
    key_file: Optional[str] = None
    cert_data: Optional[str] = None  # PEM text (an exec plugin's or a kubeconfig's inline client certificate)
    key_data: Optional[str] = None
    verify: bool = True
    tls_server_name: Optional[str] = None
    proxy: Optional[str] = None
    authorization: Optional[Authorization] = None

    def auth_header(self) -> Optional[str]:
        """The Authorization header of the next request."""
        return self.authorization() if self.authorization is not None else None


def static(value: Optional[str]) -> Optional[Authorization]:
    """An Authorization that never changes."""
    if not value:
        return None
    return lambda: value


def bearer(token: str) -> str:
    """``Bearer <token>``."""
    return f"Bearer {token}"


def _parse_time(value: str) -> datetime.datetime:
    text = value.strip().replace("Z", "+00:00")
    moment = datetime.datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


# --- reading and merging ---------------------------------------------------------------------------------------


@dataclass
class _Entry:
    """A named cluster, user or context, with the directory its relative paths are relative to."""

    value: Dict[str, Any]
    base: str


@dataclass
class KubeConfig:
    """One merged kubeconfig."""

    clusters: Dict[str, _Entry] = field(default_factory=dict)
    users: Dict[str, _Entry] = field(default_factory=dict)
    contexts: Dict[str, _Entry] = field(default_factory=dict)
    current_context: str = ""
    sources: List[str] = field(default_factory=list)  # the files read (for messages)
    document: Optional[Dict[str, Any]] = None  # the content, when given as content (auth-provider delegation)

    def merge(self, data: Any, base: str, origin: str) -> None:
        """Add one file's content: the first definition of a name, and the first current-context, win."""
        if not isinstance(data, Mapping):
            raise KubeConfigError(f"{origin} is not a kubeconfig (a YAML mapping with clusters, users, contexts)")
        for section, target in (("clusters", self.clusters), ("users", self.users), ("contexts", self.contexts)):
            entries = data.get(section) or []
            if not isinstance(entries, list):
                raise KubeConfigError(f"{origin}: {section} must be a list")
            key = section[:-1]
            for entry in entries:
                if not isinstance(entry, Mapping) or "name" not in entry:
                    raise KubeConfigError(f"{origin}: every entry of {section} needs a name")
                name = str(entry["name"])
                if name not in target:
                    target[name] = _Entry(dict(entry.get(key) or {}), base)
        if not self.current_context and data.get("current-context"):
            self.current_context = str(data["current-context"])


def _load_yaml(text: str, origin: str) -> Any:
    if not HAS_YAML:  # pragma: no cover
        raise KubeConfigError("the Python package PyYAML is required to read a kubeconfig")
    try:
        return yaml.load(text, Loader=_YAML_LOADER)  # a SafeLoader (C-accelerated where available)
    except yaml.YAMLError:
        raise KubeConfigError(f"{origin} is not valid YAML") from None


def read_files(paths: str) -> KubeConfig:
    """Merge the kubeconfig files of a ``:``-separated list (missing files are skipped, as kubectl skips them)."""
    config = KubeConfig()
    for path in paths.split(os.pathsep):
        if not path:
            continue
        full = os.path.abspath(os.path.expanduser(path))
        if not os.path.isfile(full):
            continue
        try:
            with open(full, encoding="utf-8") as handle:
                data = _load_yaml(handle.read(), f"kubeconfig {path}")
        except OSError as exc:
            raise KubeConfigError(f"cannot read kubeconfig {path}: {exc.strerror}") from None
        if data is None:
            raise KubeConfigError(f"kubeconfig {path} is empty")
        config.merge(data, os.path.dirname(full), f"kubeconfig {path}")
        config.sources.append(full)
    if not config.sources:
        raise KubeConfigError(f"no kubeconfig file found at {paths}")
    return config


def from_content(data: Mapping[str, Any]) -> KubeConfig:
    """A kubeconfig given as content (a dict); relative paths are relative to the working directory."""
    config = KubeConfig(document=dict(data))
    config.merge(data, os.getcwd(), "the kubeconfig content")
    return config


# --- credentials -----------------------------------------------------------------------------------------------


def _file_or_data(entry: _Entry, key: str) -> Tuple[Optional[str], Optional[str]]:
    """(path, None) or (None, decoded data) for ``<key>`` / ``<key>-data``; the data (base64) wins."""
    data = entry.value.get(f"{key}-data")
    if data:
        try:
            return None, base64.b64decode(data).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise KubeConfigError(f"{key}-data in the kubeconfig is not base64 of PEM text") from None
    path = entry.value.get(key)
    if path:
        full = os.path.normpath(os.path.join(entry.base, os.path.expanduser(str(path))))
        if not os.path.isfile(full):
            raise KubeConfigError(f"{key} {full} of the kubeconfig does not exist")
        return full, None
    return None, None


class ExecCredentials:
    """An exec credential plugin (client.authentication.k8s.io), run when no valid credential is cached."""

    def __init__(self, spec: Mapping[str, Any], base: str, cluster: Mapping[str, Any]) -> None:
        for key in ("command", "apiVersion"):
            if not spec.get(key):
                raise KubeConfigError(f"exec credential plugin: '{key}' is missing in the kubeconfig")
        self.api_version = str(spec["apiVersion"])
        if self.api_version not in EXEC_API_VERSIONS:
            raise KubeConfigError(
                f"exec credential plugin: apiVersion {self.api_version} is not supported; use one of "
                f"{', '.join(EXEC_API_VERSIONS)}"
            )
        self.argv = [str(spec["command"]), *[str(arg) for arg in spec.get("args") or []]]
        self.env = {str(item["name"]): str(item["value"]) for item in spec.get("env") or []}
        self.cwd = base or None
        self.cluster = dict(cluster) if spec.get("provideClusterInfo") else None
        self._lock = threading.Lock()
        self.status: Optional[Dict[str, Any]] = None
        self.expiry: Optional[datetime.datetime] = None

    def _exec_info(self) -> str:
        spec: Dict[str, Any] = {"interactive": False}
        if self.cluster is not None:
            spec["cluster"] = self.cluster
        return json.dumps({"apiVersion": self.api_version, "kind": "ExecCredential", "spec": spec})

    def run(self) -> Dict[str, Any]:
        """Run the plugin; its ``status`` (token, or clientCertificateData and clientKeyData)."""
        env = dict(os.environ, **self.env, KUBERNETES_EXEC_INFO=self._exec_info())
        try:
            # No AnsibleModule.run_command here: the connection layer (component engine, state backend) is given no
            # module, and run_command has no timeout, which a hung plugin needs (unbounded waits are a defect);
            # client-go and the kubernetes package run exec plugins as a child process just the same.
            proc = subprocess.run(  # pylint: disable=ansible-bad-function
                self.argv, cwd=self.cwd, env=env, capture_output=True, text=True, check=False, timeout=300
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KubeConfigError(f"exec credential plugin {self.argv[0]} could not run: {exc}") from None
        if proc.returncode != 0:
            detail = proc.stderr.strip().splitlines()[-1:] or [""]
            raise KubeConfigError(f"exec credential plugin {self.argv[0]} exited with {proc.returncode}: {detail[0]}")
        try:
            data = json.loads(proc.stdout)
        except ValueError:
            raise KubeConfigError(f"exec credential plugin {self.argv[0]} did not print an ExecCredential") from None
        if not isinstance(data, dict) or data.get("kind") != "ExecCredential" or not data.get("status"):
            raise KubeConfigError(f"exec credential plugin {self.argv[0]} did not print an ExecCredential")
        if data.get("apiVersion") != self.api_version:
            raise KubeConfigError(
                f"exec credential plugin {self.argv[0]} answered {data.get('apiVersion')}, not {self.api_version}"
            )
        status = dict(data["status"])
        if not status.get("token") and not (status.get("clientCertificateData") and status.get("clientKeyData")):
            raise KubeConfigError(
                f"exec credential plugin {self.argv[0]} gave neither a token nor a client certificate and key"
            )
        return status

    def current(self) -> Dict[str, Any]:
        """The cached status, run again when there is none or its ``expirationTimestamp`` has passed."""
        with self._lock:
            if self.status is None or (self.expiry is not None and _now() >= self.expiry):
                self.status = self.run()
                stamp = self.status.get("expirationTimestamp")
                self.expiry = _parse_time(str(stamp)) if stamp else None
            return self.status

    def authorization(self) -> Optional[str]:
        """The bearer token of the current credential (None when the plugin gives a client certificate)."""
        token = self.current().get("token")
        return bearer(str(token)) if token else None


def _exec_cluster_info(cluster: _Entry) -> Dict[str, Any]:
    """The cluster as client-go passes it to a plugin with provideClusterInfo (KUBERNETES_EXEC_INFO)."""
    value = cluster.value
    info: Dict[str, Any] = {"server": value.get("server")}
    for key in ("tls-server-name", "insecure-skip-tls-verify", "proxy-url"):
        if key in value:
            info[key] = value[key]
    path, data = _file_or_data(cluster, "certificate-authority")
    if path:
        with open(path, encoding="utf-8") as handle:
            data = handle.read()
    if data:
        info["certificate-authority-data"] = base64.b64encode(data.encode("utf-8")).decode("ascii")
    for extension in value.get("extensions") or []:
        if isinstance(extension, Mapping) and extension.get("name") == EXEC_CLUSTER_CONFIG_EXTENSION:
            info["config"] = extension.get("extension")
    return info


def _user_credentials(config: ClientConfig, user: _Entry, cluster: _Entry) -> None:
    """Token, exec plugin or basic auth, and client certificates (TLS only), in ``kubernetes.config``'s order."""
    value = user.value
    token_file, token = _file_or_data_token(user)
    if token or token_file:
        if token_file:
            with open(token_file, encoding="utf-8") as handle:
                token = handle.read().strip()
        config.authorization = static(bearer(str(token)))
    elif value.get("exec"):
        plugin = ExecCredentials(value["exec"], user.base, _exec_cluster_info(cluster))
        status = plugin.current()
        if status.get("token"):
            config.authorization = plugin.authorization
        else:
            config.cert_data = str(status["clientCertificateData"])
            config.key_data = str(status["clientKeyData"])
    elif value.get("username") and value.get("password"):
        pair = f"{value['username']}:{value['password']}".encode()
        config.authorization = static("Basic " + base64.b64encode(pair).decode("ascii"))
    if config.cert_data is None and config.host.startswith("https"):
        config.cert_file, config.cert_data = _file_or_data(user, "client-certificate")
        config.key_file, config.key_data = _file_or_data(user, "client-key")


def _file_or_data_token(user: _Entry) -> Tuple[Optional[str], Optional[str]]:
    """``token`` (inline, wins) or ``tokenFile`` (a path)."""
    if user.value.get("token"):
        return None, str(user.value["token"])
    if user.value.get("tokenFile"):
        path = os.path.normpath(os.path.join(user.base, os.path.expanduser(str(user.value["tokenFile"]))))
        if not os.path.isfile(path):
            raise KubeConfigError(f"tokenFile {path} of the kubeconfig does not exist")
        return path, None
    return None, None


def client_config(config: KubeConfig, context: Optional[str] = None) -> ClientConfig:
    """The ClientConfig of a context (default: the current context) of a merged kubeconfig."""
    name = context or config.current_context
    if not name:
        raise KubeConfigError("the kubeconfig has no current-context; give context")
    if name not in config.contexts:
        raise KubeConfigError(f"context {name} is not in the kubeconfig (contexts: {', '.join(config.contexts)})")
    ctx = config.contexts[name].value
    cluster_name = str(ctx.get("cluster") or "")
    if cluster_name not in config.clusters:
        raise KubeConfigError(f"cluster {cluster_name or '(none)'} of context {name} is not in the kubeconfig")
    cluster = config.clusters[cluster_name]
    server = str(cluster.value.get("server") or "").rstrip("/")
    if not server:
        raise KubeConfigError(f"cluster {cluster_name} of the kubeconfig has no server")
    result = ClientConfig(host=server)
    user = config.users.get(str(ctx.get("user") or ""))
    if user is not None and user.value.get("auth-provider"):
        return _auth_provider_config(config, name)
    if server.startswith("https"):
        result.ca_file, result.ca_data = _file_or_data(cluster, "certificate-authority")
    if user is not None:
        _user_credentials(result, user, cluster)
    if "insecure-skip-tls-verify" in cluster.value:
        result.verify = not cluster.value["insecure-skip-tls-verify"]
    result.tls_server_name = cluster.value.get("tls-server-name") or None
    result.proxy = cluster.value.get("proxy-url") or None
    return result


def _auth_provider_config(config: KubeConfig, context: str) -> ClientConfig:
    """``auth-provider`` users (gcp, oidc, azure): the ``kubernetes`` package loads and refreshes them (and persists
    refreshed tokens into the kubeconfig file, as it always did); only these users pay for importing it."""
    try:
        from kubernetes import client as k8s_client  # pylint: disable=import-outside-toplevel
        from kubernetes import config as k8s_config  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        raise KubeConfigError(
            f"the kubeconfig user of context {context} uses an auth-provider; that needs the Python package "
            f"'kubernetes' on the host that runs the module: {exc}"
        ) from None
    configuration = k8s_client.Configuration()
    try:
        if config.document is not None:
            k8s_config.load_kube_config_from_dict(config.document, context=context, client_configuration=configuration)
        else:
            k8s_config.load_kube_config(
                config_file=os.pathsep.join(config.sources), context=context, client_configuration=configuration
            )
    except (k8s_config.ConfigException, OSError, ValueError, KeyError) as exc:
        raise KubeConfigError(f"cannot load the auth-provider credentials of context {context}: {exc}") from None

    def authorization() -> Optional[str]:
        value = configuration.get_api_key_with_prefix("BearerToken")  # runs the package's refresh hook
        return str(value) if value else None

    return ClientConfig(
        host=str(configuration.host).rstrip("/"),
        ca_file=configuration.ssl_ca_cert or None,
        cert_file=configuration.cert_file or None,
        key_file=configuration.key_file or None,
        verify=bool(configuration.verify_ssl),
        tls_server_name=getattr(configuration, "tls_server_name", None) or None,
        proxy=configuration.proxy or None,
        authorization=authorization,
    )


# --- in a pod --------------------------------------------------------------------------------------------------


def in_cluster(directory: Optional[str] = None) -> bool:
    """True inside a pod with a mounted service account token."""
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and os.path.isfile(
        os.path.join(directory or SERVICE_ACCOUNT_DIR, "token")
    )


class ServiceAccountToken:
    """The pod's service account token, read again once a minute (kubelet rotates projected tokens)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._token = ""
        self._read_at: Optional[datetime.datetime] = None

    def authorization(self) -> Optional[str]:
        """``Bearer <token>``."""
        with self._lock:
            if self._read_at is None or _now() - self._read_at >= IN_CLUSTER_TOKEN_PERIOD:
                with open(self.path, encoding="utf-8") as handle:
                    token = handle.read().strip()
                if not token:
                    raise KubeConfigError(f"the service account token file {self.path} is empty")
                self._token, self._read_at = token, _now()
            return bearer(self._token)


def in_cluster_config(directory: Optional[str] = None) -> ClientConfig:
    """The pod's service account: the API server from the environment, CA and token from the mounted files."""
    directory = directory or SERVICE_ACCOUNT_DIR
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST", ""), os.environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise KubeConfigError("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: not inside a pod")
    if ":" in host or "%" in host:
        host = f"[{host}]"  # an IPv6 address (Go's net.JoinHostPort)
    ca_file = os.path.join(directory, "ca.crt")
    if not os.path.isfile(ca_file) or os.path.getsize(ca_file) == 0:
        raise KubeConfigError(f"the service account CA {ca_file} is missing or empty")
    token = ServiceAccountToken(os.path.join(directory, "token"))
    token.authorization()  # fails now, not at the first request, when the token cannot be read
    return ClientConfig(host=f"https://{host}:{port}", ca_file=ca_file, authorization=token.authorization)
