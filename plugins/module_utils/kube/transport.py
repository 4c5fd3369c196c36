# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HTTP(S) side of a connection: one urllib3 pool per API server, its TLS context and proxy, and the
credentials every request carries (``kubeconfig.ClientConfig``).

As the ``kubernetes`` package's REST client does: the CA of the kubeconfig (the system's when none is given),
client certificates, ``insecure-skip-tls-verify``, ``tls-server-name``, the kubeconfig's ``proxy-url`` or the
``HTTPS_PROXY``/``NO_PROXY`` environment, TCP keep-alive as client-go sets it. Inline client certificates (an exec
plugin's, ``client-certificate-data``) are loaded into the TLS context from anonymous memory files (Linux), else
from files that exist only for that moment, in a private temporary directory (issue 26).
"""

from __future__ import annotations

import os
import socket
import ssl
from typing import Any, Callable, List, Optional, Tuple
from urllib.parse import urlsplit

from ansible_collections.nubes.cloud.plugins.module_utils.kube.errors import KubeConfigError
from ansible_collections.nubes.cloud.plugins.module_utils.kube.kubeconfig import ClientConfig

try:
    import urllib3

    HAS_URLLIB3 = True
    URLLIB3_IMPORT_ERROR: Optional[str] = None
except ImportError as exc:  # pragma: no cover - reported by open_transport
    HAS_URLLIB3 = False
    URLLIB3_IMPORT_ERROR = str(exc)

KEEPALIVE_SECONDS = 30  # client-go's dialer: keep-alive probes after 30 s idle, every 30 s


class Transport:
    """Base URL, pooled connections and credentials of one API server; shared by every ``Connection`` of a run
    (``Connection.sibling``) and by its worker threads."""

    def __init__(self, host: str, pool: Any, authorization: Optional[Callable[[], Optional[str]]] = None) -> None:
        self.host = host.rstrip("/")
        self.pool = pool
        self.authorization = authorization

    def auth_header(self) -> Optional[str]:
        """The Authorization header of the next request (a refreshed token where the source refreshes)."""
        return self.authorization() if self.authorization is not None else None


def _keepalive_options() -> List[Tuple[int, int, int]]:
    options: List[Tuple[int, int, int]] = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    options.append((socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1))
    for name in ("TCP_KEEPIDLE", "TCP_KEEPINTVL"):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), KEEPALIVE_SECONDS))
    return options


def _load_client_certificate(context: ssl.SSLContext, config: ClientConfig) -> None:
    if config.cert_data and config.key_data:
        if not _load_from_memory(context, config.cert_data, config.key_data):
            _load_from_private_files(context, config.cert_data, config.key_data)
    elif config.cert_file and config.key_file:
        context.load_cert_chain(config.cert_file, config.key_file)


def _load_from_memory(context: ssl.SSLContext, cert_data: str, key_data: str) -> bool:
    """Issue 26: an inline certificate and key (the stdlib loads them from paths only) in anonymous memory files
    (Linux memfd), loaded through /proc/self/fd and closed at once: they are in no file system. False where there are
    no memory files (another system, no /proc, memfd_create refused): nothing was loaded."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is None or not os.path.isdir("/proc/self/fd"):
        return False
    descriptors: List[int] = []
    try:
        for name, data in (("client.crt", cert_data), ("client.key", key_data)):
            try:
                descriptors.append(memfd_create(f"nubes-kube-{name}", getattr(os, "MFD_CLOEXEC", 0)))
            except OSError:
                return False
            with os.fdopen(descriptors[-1], "w", encoding="utf-8", closefd=False) as handle:
                handle.write(data)
        cert_path, key_path = (f"/proc/self/fd/{descriptor}" for descriptor in descriptors)
        context.load_cert_chain(cert_path, key_path)
    finally:
        for descriptor in descriptors:
            os.close(descriptor)
    return True


def _load_from_private_files(context: ssl.SSLContext, cert_data: str, key_data: str) -> None:
    """Without memory files: the certificate and key in files of mode 0600 in a private (0700) temporary directory,
    removed as soon as the TLS context has loaded them."""
    import tempfile  # pylint: disable=import-outside-toplevel  # only for inline certificates

    with tempfile.TemporaryDirectory(prefix="nubes-kube-") as private:  # mode 0700, removed right after
        paths = []
        for name, data in (("client.crt", cert_data), ("client.key", key_data)):
            path = os.path.join(private, name)
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
                handle.write(data)
            paths.append(path)
        context.load_cert_chain(paths[0], paths[1])


def ssl_context(config: ClientConfig) -> ssl.SSLContext:
    """The TLS context: the kubeconfig's CA (else the system's), client certificate, verification on or off."""
    try:
        if config.verify:
            context = ssl.create_default_context(cafile=config.ca_file, cadata=config.ca_data)
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        _load_client_certificate(context, config)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise KubeConfigError(f"cannot use the TLS settings (CA, client certificate): {exc}") from None
    return context


def _environment(name: str) -> str:
    """A proxy variable, the lowercase spelling first (as urllib's ``getproxies``)."""
    return os.environ.get(name.lower()) or os.environ.get(name.upper()) or ""


def bypassed(url: str, no_proxy: str) -> bool:
    """Does ``NO_PROXY`` (hosts, domain suffixes, ``host:port``, IP networks, ``*``) name the server?"""
    parts = urlsplit(url)
    host, host_port = (parts.hostname or "").lower(), parts.netloc.lower()
    for entry in (item.strip().lower() for item in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        if "/" in entry or entry.replace(".", "").isdigit() or ":" in host:
            import ipaddress  # pylint: disable=import-outside-toplevel  # only for IP rules

            try:
                if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
        entry = entry.lstrip(".")
        if host == entry or host.endswith("." + entry) or host_port == entry or host_port.endswith("." + entry):
            return True
    return False


def proxy_for(config: ClientConfig) -> Optional[str]:
    """The kubeconfig's ``proxy-url``, else ``HTTPS_PROXY`` (``HTTP_PROXY`` for http, then ``ALL_PROXY``) unless
    ``NO_PROXY`` names the server (the ``kubernetes`` package's rules)."""
    if config.proxy:
        return config.proxy
    scheme = urlsplit(config.host).scheme or "https"
    proxy = _environment(f"{scheme}_proxy") or _environment("all_proxy")
    if not proxy or bypassed(config.host, _environment("no_proxy")):
        return None
    return proxy


def open_transport(config: ClientConfig, pool_size: int = 16) -> Transport:
    """The pool for one API server (``pool_size`` connections, for the engine's worker threads)."""
    if not HAS_URLLIB3:
        raise KubeConfigError(f"the Python package urllib3 is required on the module's host: {URLLIB3_IMPORT_ERROR}")
    if not config.host.startswith(("https://", "http://")):
        raise KubeConfigError(f"the API server {config.host!r} is not an http(s) URL")
    options: dict = {"num_pools": 4, "maxsize": pool_size, "socket_options": _keepalive_options()}
    if config.host.startswith("https://"):
        options["ssl_context"] = ssl_context(config)
        options["cert_reqs"] = "CERT_REQUIRED" if config.verify else "CERT_NONE"
        if config.tls_server_name:
            options["server_hostname"] = config.tls_server_name
            options["assert_hostname"] = config.tls_server_name
    proxy = proxy_for(config)
    if proxy and proxy.startswith("socks"):
        try:
            from urllib3.contrib.socks import SOCKSProxyManager  # pylint: disable=import-outside-toplevel
        except ImportError:
            raise KubeConfigError(f"the proxy {proxy} needs urllib3's SOCKS support (the PySocks package)") from None
        pool: Any = SOCKSProxyManager(proxy, **options)
    elif proxy:
        pool = urllib3.ProxyManager(proxy, **options)
    else:
        pool = urllib3.PoolManager(**options)
    return Transport(config.host, pool, config.authorization)
