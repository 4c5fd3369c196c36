"""up / down / env / status of the local control plane, serialised by a lock file in the state directory."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import components, pki, processes
from .api import ApiClient, NotReady, http_status, wait_until
from .identities import ADMIN_GROUPS, ADMIN_USER, CERT_USERS, TOKEN_ENTRIES
from .kubeconfig import cert_credentials, token_credentials, write_kubeconfig
from .layout import BUILD_SCRIPT, StateDir, bin_dir, read_versions
from .ports import free_ports
from .processes import Started

BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
LOG_TAIL_LINES = 40
START_ATTEMPTS = 2  # a second start only when a chosen port was taken meanwhile


class ClusterError(RuntimeError):
    pass


def say(message: str) -> None:
    print(f"cluster: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def locked(state: StateDir) -> Iterator[None]:
    """One launcher at a time per state dir (pytest-xdist workers may all call `up`)."""
    state.root.mkdir(parents=True, exist_ok=True)
    with state.lock_file.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# --- recorded state -------------------------------------------------------------------------------


def load(state: StateDir) -> dict[str, Any]:
    try:
        data = json.loads(state.state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(state: StateDir, data: dict[str, Any]) -> None:
    tmp = state.state_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(state.state_file)


def started_of(data: dict[str, Any]) -> list[Started]:
    return [Started.from_json(item) for item in data.get("components", [])]


def admin_client(state: StateDir, server: str) -> ApiClient:
    return ApiClient(server, state.pki / "ca.crt", state.pki / "admin.crt", state.pki / "admin.key")


def is_healthy(state: StateDir, data: dict[str, Any]) -> bool:
    procs = started_of(data)
    if not data.get("ready") or len(procs) != len(BINARIES) or not all(processes.is_running(p) for p in procs):
        return False
    try:
        status = admin_client(state, str(data["server"])).get("/readyz")[0]
    except (OSError, KeyError):
        return False
    return status == 200


# --- up -------------------------------------------------------------------------------------------


def ensure_binaries() -> Path:
    """Binary dir; runs tests/cluster/build (idempotent, prints what it builds) when one is missing."""
    bins = bin_dir()
    if not all(os.access(bins / name, os.X_OK) for name in BINARIES) or not (bins / components.KWOK_STAGES).is_file():
        say(f"binaries missing in {bins}: running {BUILD_SCRIPT}")
        result = subprocess.run([str(BUILD_SCRIPT)], stdout=sys.stderr, check=False)
        if result.returncode != 0:
            raise ClusterError(f"{BUILD_SCRIPT} failed (exit {result.returncode}); see its output above")
    return bins


def fresh_dirs(state: StateDir) -> None:
    for path in (state.pki, state.etcd_data, state.kubeconfigs, state.tokens, state.logs):
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(mode=0o700, parents=True)
    state.state_file.unlink(missing_ok=True)


def make_pki_and_tokens(state: StateDir) -> None:
    d = state.pki
    pki.make_ca(d)
    pki.make_serving_cert(d, "apiserver")
    pki.make_client_cert(d, "admin", ADMIN_USER, ADMIN_GROUPS)
    for user in CERT_USERS:
        pki.make_client_cert(d, f"user-{user.name}", user.name, user.groups)
    pki.make_service_account_key(d)
    # front proxy (requestheader) CA: the aggregator's client identity, and what the scheduler's
    # delegated authentication reads from kube-system/extension-apiserver-authentication
    pki.make_ca(d, components.FRONT_PROXY_CA, "nubes-test-front-proxy-ca")
    pki.make_client_cert(
        d, components.FRONT_PROXY_CLIENT, components.FRONT_PROXY_CLIENT, (), ca=components.FRONT_PROXY_CA
    )
    lines = []
    for entry in TOKEN_ENTRIES:
        token = secrets.token_urlsafe(32)
        pki.write_secret_file(state.tokens / entry.entry, token)
        lines.append(f'{token},{entry.user},{entry.user},"{",".join(entry.groups)}"')
    pki.write_secret_file(state.token_auth_file, "\n".join(lines) + "\n")


def write_kubeconfigs(state: StateDir, server: str) -> None:
    ca = state.pki / "ca.crt"
    d = state.pki
    write_kubeconfig(state.admin_kubeconfig, server, ca, ADMIN_USER, cert_credentials(d / "admin.crt", d / "admin.key"))
    for user in CERT_USERS:
        creds = cert_credentials(d / f"user-{user.name}.crt", d / f"user-{user.name}.key")
        write_kubeconfig(state.user_kubeconfig(user.name), server, ca, user.name, creds)
    for entry in TOKEN_ENTRIES:
        token = (state.tokens / entry.entry).read_text(encoding="utf-8")
        write_kubeconfig(state.token_kubeconfig(entry.entry), server, ca, entry.user, token_credentials(token))


def log_tail(state: StateDir, name: str) -> str:
    try:
        lines = state.log(name).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(lines[-LOG_TAIL_LINES:])


class Launch:
    """One start of the control plane; records every process in cluster.json as soon as it runs."""

    def __init__(self, state: StateDir, bins: Path, timeout: float) -> None:
        self.state = state
        self.bins = bins
        self.deadline = time.monotonic() + timeout
        self.started: list[Started] = []
        self.timings: dict[str, float] = {}
        self.data: dict[str, Any] = {}
        self.t0 = time.monotonic()

    def start(self, name: str, argv: list[str]) -> Started:
        proc = processes.start(name, argv, self.state.log(name))
        self.started.append(proc)
        self.data["components"] = [p.to_json() for p in self.started]
        save(self.state, self.data)
        return proc

    def wait(self, proc: Started, what: str, check: Callable[[], bool]) -> None:
        t = time.monotonic()
        try:
            wait_until(what, check, self.deadline, lambda: processes.is_running(proc))
        except NotReady as err:
            raise ClusterError(
                f"{err}\n--- last lines of {self.state.log(proc.name)} ---\n{log_tail(self.state, proc.name)}"
            ) from None
        self.timings[what] = round(time.monotonic() - t, 1)

    def run(self) -> None:
        state, bins = self.state, self.bins
        etcd_client, etcd_peer, apiserver, scheduler = free_ports(4)
        ports = components.Ports(etcd_client, etcd_peer, apiserver, scheduler)
        self.data = {"versions": read_versions(), "bin_dir": str(bins), "server": ports.server, "ready": False,
                     "ports": {"etcd": etcd_client, "etcd_peer": etcd_peer, "apiserver": apiserver,
                               "scheduler": scheduler}}  # fmt: skip
        t = time.monotonic()
        make_pki_and_tokens(state)
        self.timings["pki"] = round(time.monotonic() - t, 1)

        etcd = self.start("etcd", components.etcd(bins, state, ports))
        self.wait(etcd, "etcd", lambda: http_status(f"http://127.0.0.1:{etcd_client}/health") == 200)

        api = self.start("kube-apiserver", components.kube_apiserver(bins, state, ports))
        client = admin_client(state, ports.server)
        self.wait(api, "kube-apiserver", lambda: _status(client, "/readyz") == 200)
        write_kubeconfigs(state, ports.server)

        kcm = self.start("kube-controller-manager", components.kube_controller_manager(bins, state))
        sched = self.start("kube-scheduler", components.kube_scheduler(bins, state, ports))
        kwok = self.start("kwok", components.kwok(bins, state))
        status, body = client.request("POST", "/api/v1/nodes", components.fake_node())
        if status not in (201, 409):
            raise ClusterError(f"creating the fake Node failed: HTTP {status}: {body}")
        sched_url = f"https://127.0.0.1:{scheduler}/readyz"
        self.wait(sched, "kube-scheduler", lambda: http_status(sched_url, insecure=True) == 200)
        self.wait(kcm, "kube-controller-manager",
                  lambda: _status(client, "/api/v1/namespaces/default/serviceaccounts/default") == 200)  # fmt: skip
        self.wait(kwok, "kwok node Ready", lambda: _node_ready(client, components.FAKE_NODE_NAME))

        ready_seconds = round(time.monotonic() - self.t0, 1)
        rss = {p.name: round(processes.rss_mib(p)) for p in self.started}
        self.data.update(ready=True, ready_seconds=ready_seconds, timings=self.timings, rss_mib_at_ready=rss,
                         kubeconfig=str(state.admin_kubeconfig))  # fmt: skip
        save(state, self.data)
        steps = ", ".join(f"{k} {v}s" for k, v in self.timings.items())
        say(f"ready in {ready_seconds}s ({steps}); memory at ready {sum(rss.values())} MiB RSS "
            f"({', '.join(f'{k} {v}' for k, v in rss.items())}); state in {state.root}")  # fmt: skip

    def abort(self) -> None:
        for proc in reversed(self.started):
            processes.stop(proc)


def port_was_taken(state: StateDir) -> bool:
    """True when a component failed because its free port was grabbed between choosing and binding."""
    for log in state.logs.glob("*.log"):
        with contextlib.suppress(OSError):
            if "address already in use" in log.read_text(encoding="utf-8", errors="replace"):
                return True
    return False


def _status(client: ApiClient, path: str) -> int:
    try:
        return client.get(path)[0]
    except OSError:
        return 0


def _node_ready(client: ApiClient, name: str) -> bool:
    try:
        status, node = client.get(f"/api/v1/nodes/{name}")
    except OSError:
        return False
    if status != 200 or not isinstance(node, dict):
        return False
    conditions = node.get("status", {}).get("conditions", [])
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def up(state: StateDir, timeout: float) -> int:
    with locked(state):
        data = load(state)
        if data and is_healthy(state, data):
            say(f"already running ({data['server']}, state in {state.root})")
            print(f"KUBECONFIG={state.admin_kubeconfig}")
            return 0
        if data:
            say("found a stopped or broken cluster: stopping what is left of it and starting anew")
            _stop_all(started_of(data))
        try:
            bins = ensure_binaries()
        except ClusterError as err:
            say(f"error: {err}")
            return 1
        for attempt in range(1, START_ATTEMPTS + 1):
            fresh_dirs(state)
            launch = Launch(state, bins, timeout)
            say(f"starting kube-apiserver {read_versions().get('K8S_VERSION')} control plane from {bins}")
            try:
                launch.run()
                break
            except (ClusterError, pki.PkiError, OSError) as err:
                launch.abort()
                if attempt < START_ATTEMPTS and port_was_taken(state):
                    say("a chosen port was taken by another program meanwhile: starting again on other ports")
                    continue
                say(f"error: {err}")
                say(f"start failed; logs are in {state.logs}")
                return 1
            except BaseException:
                launch.abort()
                raise
    print(f"KUBECONFIG={state.admin_kubeconfig}")
    return 0


# --- down / env / status --------------------------------------------------------------------------


def _stop_all(procs: list[Started]) -> int:
    stopped = 0
    for proc in reversed(procs):
        if processes.is_running(proc):
            processes.stop(proc)
            stopped += 1
    return stopped


def down(state: StateDir) -> int:
    if not state.root.exists():
        say(f"nothing to stop ({state.root} does not exist)")
        return 0
    with locked(state):
        stopped = _stop_all(started_of(load(state)))
        for path in (state.pki, state.etcd_data, state.kubeconfigs, state.tokens):
            shutil.rmtree(path, ignore_errors=True)
        state.state_file.unlink(missing_ok=True)
    say(f"stopped {stopped} process(es); logs kept in {state.logs}")
    return 0


def env(state: StateDir) -> int:
    data = load(state)
    if not data or not is_healthy(state, data):
        say("no running cluster: start it with tests/cluster/up")
        return 1
    exports = {
        "KUBECONFIG": str(state.admin_kubeconfig),
        "NUBES_CLUSTER_DIR": str(state.root),
        "NUBES_CLUSTER_SERVER": str(data["server"]),
        "NUBES_CLUSTER_CA_FILE": str(state.pki / "ca.crt"),
        "NUBES_CLUSTER_TOKEN_DIR": str(state.tokens),
    }
    for key, value in exports.items():
        print(f"export {key}={shlex.quote(value)}")
    return 0


def status(state: StateDir) -> int:
    data = load(state)
    procs = started_of(data)
    report = {
        "state_dir": str(state.root),
        "healthy": bool(data) and is_healthy(state, data),
        "server": data.get("server"),
        "versions": data.get("versions"),
        "ready_seconds": data.get("ready_seconds"),
        "rss_mib": {p.name: round(processes.rss_mib(p)) for p in procs if processes.is_running(p)},
        "components": {p.name: {"pid": p.pid, "running": processes.is_running(p)} for p in procs},
    }
    print(json.dumps(report, indent=2))
    return 0 if report["healthy"] else 1
