# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GKE targets: OAuth2 access tokens from google-auth (a service-account key file or application default
credentials), refreshed by google-auth when they expire; the cluster endpoint and CA from the GKE API unless given."""

from __future__ import annotations

import base64
import json
import threading
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import quote

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError
from ansible_collections.nubes.cloud.plugins.module_utils.kube.kubeconfig import ClientConfig, bearer

try:
    import google.auth
    import google.auth.exceptions
    import google.auth.transport.requests
    from google.oauth2 import service_account

    HAS_GOOGLE_AUTH = True
    GOOGLE_AUTH_IMPORT_ERROR: Optional[str] = None
except ImportError as exc:  # pragma: no cover - reported when gke is used
    HAS_GOOGLE_AUTH = False
    GOOGLE_AUTH_IMPORT_ERROR = str(exc)


DEFAULT_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
DEFAULT_CONTAINER_API = "https://container.googleapis.com"


class GkeError(KubeConfigError):
    """Credentials or the cluster lookup failed."""


class TokenSource:
    """Thread-safe access to a google-auth credentials object; refreshes the token when it is missing or expired."""

    def __init__(self, credentials: Any) -> None:
        self.credentials = credentials
        self._lock = threading.Lock()
        self._request = google.auth.transport.requests.Request()

    def token(self) -> str:
        """A valid access token."""
        with self._lock:
            if not self.credentials.valid:
                try:
                    self.credentials.refresh(self._request)
                except google.auth.exceptions.GoogleAuthError as exc:
                    raise GkeError(f"google-auth could not get an access token: {exc}") from None
            return str(self.credentials.token)


def credentials(options: Mapping[str, Any]) -> Any:
    """Service-account key file (``credentials_file``) or application default credentials."""
    if not HAS_GOOGLE_AUTH:
        raise GkeError(f"the Python package google-auth (and requests) is required for gke: {GOOGLE_AUTH_IMPORT_ERROR}")
    scopes = list(options.get("scopes") or DEFAULT_SCOPES)
    path = options.get("credentials_file")
    try:
        if path:
            return service_account.Credentials.from_service_account_file(path, scopes=scopes)
        found, _project = google.auth.default(scopes=scopes)
        return found
    except (ValueError, OSError, google.auth.exceptions.GoogleAuthError) as exc:
        where = f"the key file {path}" if path else "application default credentials"
        raise GkeError(f"cannot load GKE credentials from {where}: {exc}") from None


def cluster_endpoint(options: Mapping[str, Any], tokens: TokenSource) -> Tuple[str, Optional[str]]:
    """(https endpoint, PEM CA or None) from the GKE API ``projects.locations.clusters.get``."""
    for key in ("project", "location", "cluster"):
        if not options.get(key):
            raise GkeError(f"gke.{key} is required to look the cluster up (or give gke.endpoint)")
    base = str(options.get("container_api_url") or DEFAULT_CONTAINER_API).rstrip("/")
    url = (
        f"{base}/v1/projects/{quote(str(options['project']), safe='')}/locations/"
        f"{quote(str(options['location']), safe='')}/clusters/{quote(str(options['cluster']), safe='')}"
    )
    session = google.auth.transport.requests.AuthorizedSession(tokens.credentials)
    try:
        response = session.get(url, timeout=30)
    except google.auth.exceptions.GoogleAuthError as exc:
        raise GkeError(f"google-auth could not get an access token: {exc}") from None
    except Exception as exc:  # pylint: disable=broad-except  # any transport failure is reported the same way
        raise GkeError(f"cannot reach the GKE API at {base}: {type(exc).__name__}") from None
    if response.status_code != 200:
        raise GkeError(
            f"GKE API: cluster {options['project']}/{options['location']}/{options['cluster']} answered HTTP "
            f"{response.status_code}; check the names and that the credentials may get clusters"
        )
    data: Dict[str, Any] = json.loads(response.text)
    endpoint = str(data.get("endpoint") or "")
    if not endpoint:
        raise GkeError("the GKE API returned no endpoint for the cluster (is it still provisioning?)")
    ca_b64 = (data.get("masterAuth") or {}).get("clusterCaCertificate")
    ca = base64.b64decode(ca_b64).decode("ascii") if ca_b64 else None
    host = endpoint if endpoint.startswith("https://") else f"https://{endpoint}"
    return host, ca


def client_config(options: Mapping[str, Any]) -> ClientConfig:
    """Where the GKE cluster is; the bearer token comes from google-auth (refreshed when it expires)."""
    tokens = TokenSource(credentials(options))
    endpoint = options.get("endpoint")
    ca_pem: Optional[str] = None
    if endpoint:
        host = str(endpoint) if str(endpoint).startswith("http") else f"https://{endpoint}"
    else:
        host, ca_pem = cluster_endpoint(options, tokens)
    tokens.token()  # fails now, not at the first request, when no token can be had
    return ClientConfig(
        host=host.rstrip("/"),
        ca_file=options.get("ca_cert") or None,
        ca_data=None if options.get("ca_cert") else ca_pem,
        verify=bool(options.get("validate_certs", True)),
        authorization=lambda: bearer(tokens.token()),
    )
