"""Playbook-level tests of nubes.cloud.component: remote targets by kubeconfig content (C11), impersonation (C12)
and GKE credentials through google-auth against a local token endpoint."""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List

import jwt
import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
SERVICE_ACCOUNT = "deployer@demo-project.iam.gserviceaccount.com"
NO_DEFAULT_KUBECONFIG = {"KUBECONFIG": "/nonexistent/kubeconfig"}
CONFIGMAP = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "remote"}, "data": {"k": "v"}}]


def test_remote_cluster_from_kubeconfig_content(ansible: Ansible, kubectl, kube_namespace: str, local_cluster) -> None:
    """C11: the target cluster is given only by the kubeconfig's content (YAML text, and a dict such as a cloud
    module returns); its token never appears in the output, even with -v."""
    path = local_cluster.token_kubeconfig("admin")
    text = Path(path).read_text(encoding="utf-8")
    token = local_cluster.token("admin")
    data = yaml.safe_load(text)
    for cluster in data["clusters"]:  # a dict from a cloud module carries the CA inline, not as a path
        ca = cluster["cluster"].pop("certificate-authority", None)
        if ca:
            ca_data = base64.b64encode(Path(ca).read_bytes()).decode()
            cluster["cluster"]["certificate-authority-data"] = ca_data
    run = ansible.run(
        [
            component(kube_namespace, "as-text", definitions=CONFIGMAP, kubeconfig=text),
            component(
                kube_namespace, "as-dict", definitions=CONFIGMAP, kubeconfig=data, policies={"adoption": "always"}
            ),
        ],
        extra_env=NO_DEFAULT_KUBECONFIG,
        verbosity=1,
    )
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[0]["state"] == "Ready"
    assert not run[1].get("failed"), run[1].get("msg")
    assert kubectl.json("get", "configmap", "remote", "-n", kube_namespace)["data"] == {"k": "v"}
    assert token not in run.stdout and token not in run.stderr
    assert token not in json.dumps(run.results)


def _grant(kubectl, namespace: str, group: str, resources: List[str]) -> None:
    rules = "\n".join(
        f'  - apiGroups: ["{api}"]\n    resources: ["{res}"]\n    verbs: ["*"]'
        for api, res in (r.split("/") if "/" in r else ("", r) for r in resources)
    )
    kubectl.apply(
        f"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: deployer\n  namespace: {namespace}\n"
        f"rules:\n{rules}\n---\n"
        f"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: deployer\n"
        f"  namespace: {namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: deployer\n"
        f"subjects:\n  - kind: Group\n    name: {group}\n    apiGroup: rbac.authorization.k8s.io\n"
    )


@pytest.fixture
def namespace_reader(kubectl) -> Iterator[None]:
    """Every authenticated user may read namespaces (the module reads the target's kube-system UID) while the test
    runs; removed afterwards, since other tests rely on users without any cluster-wide rights."""
    kubectl.apply(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: nubes-test-namespace-reader\n"
        'rules:\n  - apiGroups: [""]\n    resources: [namespaces]\n    verbs: [get]\n---\n'
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
        "  name: nubes-test-namespace-reader\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"
        "  name: nubes-test-namespace-reader\nsubjects:\n  - kind: Group\n    name: system:authenticated\n"
        "    apiGroup: rbac.authorization.k8s.io\n"
    )
    try:
        yield
    finally:
        kubectl(
            "delete", "clusterrolebinding,clusterrole", "nubes-test-namespace-reader", "--ignore-not-found", check=False
        )


@pytest.mark.usefixtures("namespace_reader")
def test_impersonation_allowed_and_denied(ansible: Ansible, kubectl, kube_namespace: str) -> None:
    """C12: objects are applied as the impersonated user and groups: alice has no rights of her own, only the
    impersonated group nubes:deployers is bound, so success proves both headers; a user without the rights fails
    with the verb and resource that were denied."""
    _grant(kubectl, kube_namespace, "nubes:deployers", ["configmaps", "secrets", "apps/deployments"])
    source = ansible.source("web")
    run = ansible.run(
        [
            component(
                kube_namespace,
                "web",
                source=source,
                source_kind="templates",
                impersonate={"user": "alice", "groups": ["nubes:deployers"]},
            ),
            component(kube_namespace, "denied", source=source, source_kind="templates", impersonate={"user": "carol"}),
        ]
    )
    allowed, denied = run[0], run[1]
    assert not allowed.get("failed"), allowed.get("msg")
    assert allowed["state"] == "Ready"
    kubectl("get", "deployment", "web", "-n", kube_namespace)
    assert denied["failed"] is True
    assert 'User "carol" cannot' in denied["msg"] and "configmaps" in denied["msg"]
    assert kubectl("get", "deployment", "denied", "-n", kube_namespace, check=False).returncode != 0


class _FakeGoogle:
    """A local OAuth2 token endpoint and GKE ``clusters.get`` on 127.0.0.1: checks the service account's signed
    JWT assertion and hands out the cluster's ``issued`` static token."""

    def __init__(self, public_pem: bytes, access_token: str, endpoint: str, ca_pem: bytes) -> None:
        self.public_pem = public_pem
        self.access_token = access_token
        self.endpoint = endpoint
        self.ca_pem = ca_pem
        self.hits: Dict[str, int] = {"token": 0, "cluster": 0, "rejected": 0}
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                del args

            def _send(self, status: int, body: Dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                try:
                    # google-auth signs for Google's token audience whatever token_uri says; check key and issuer
                    jwt.decode(
                        form["assertion"][0],
                        fake.public_pem,
                        algorithms=["RS256"],
                        audience=GOOGLE_TOKEN_AUDIENCE,
                        issuer=SERVICE_ACCOUNT,
                    )
                except (KeyError, jwt.PyJWTError):
                    fake.hits["rejected"] += 1
                    self._send(400, {"error": "invalid_grant"})
                    return
                fake.hits["token"] += 1
                self._send(200, {"access_token": fake.access_token, "expires_in": 3600, "token_type": "Bearer"})

            def do_GET(self) -> None:
                if self.headers.get("Authorization") != f"Bearer {fake.access_token}":
                    fake.hits["rejected"] += 1
                    self._send(401, {"error": "unauthenticated"})
                    return
                if self.path != "/v1/projects/demo-project/locations/europe-west1/clusters/demo":
                    self._send(404, {"error": "not found"})
                    return
                fake.hits["cluster"] += 1
                ca = base64.b64encode(fake.ca_pem).decode()
                self._send(200, {"endpoint": fake.endpoint, "masterAuth": {"clusterCaCertificate": ca}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.token_uri = f"{self.url}/token"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _FakeGoogle:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_google(local_cluster, cluster_tokens, tmp_path: Path) -> Iterator[tuple[_FakeGoogle, Path]]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    endpoint = local_cluster.server.removeprefix("https://")
    ca_pem = Path(local_cluster.ca_file).read_bytes()
    with _FakeGoogle(public_pem, cluster_tokens["issued"], endpoint, ca_pem) as fake:
        key_file = tmp_path / "deployer-key.json"
        key_file.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": "demo-project",
                    "private_key_id": "test-key-1",
                    "private_key": private_pem.decode(),
                    "client_email": SERVICE_ACCOUNT,
                    "client_id": "1",
                    "token_uri": fake.token_uri,
                }
            ),
            encoding="utf-8",
        )
        key_file.chmod(0o600)
        yield fake, key_file


def test_gke_credentials_through_google_auth(ansible: Ansible, kubectl, kube_namespace: str, fake_google) -> None:
    """C11 (GKE): google-auth signs a JWT with a generated service-account key, gets an access token from the local
    token endpoint (token_uri on 127.0.0.1), looks the cluster up through the GKE API and the apiserver accepts the
    token; with gke.endpoint the lookup is skipped."""
    fake, key_file = fake_google
    gke = {
        "project": "demo-project",
        "location": "europe-west1",
        "cluster": "demo",
        "credentials_file": str(key_file),
        "container_api_url": fake.url,
    }
    ca_file = ansible.workdir / "ca.pem"
    ca_file.write_bytes(fake.ca_pem)
    direct = {"credentials_file": str(key_file), "endpoint": fake.endpoint, "ca_cert": str(ca_file)}
    run = ansible.run(
        [
            component(kube_namespace, "gke", definitions=CONFIGMAP, gke=gke),
            component(kube_namespace, "gke", definitions=CONFIGMAP, gke=direct),
        ],
        extra_env=NO_DEFAULT_KUBECONFIG,
    )
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[0]["state"] == "Ready" and run[0]["changed"] is True
    assert not run[1].get("failed"), run[1].get("msg")
    assert run[1]["changed"] is False
    assert fake.hits["token"] >= 2 and fake.hits["cluster"] == 1 and fake.hits["rejected"] == 0
    assert kubectl.json("get", "configmap", "remote", "-n", kube_namespace)["data"] == {"k": "v"}
    assert fake.access_token not in run.stdout


def test_host_and_api_key(ansible: Ansible, kubectl, kube_namespace: str, local_cluster) -> None:
    """C11: the target cluster by URL, bearer token (no_log) and CA file; the token never appears in the output."""
    token = local_cluster.token("admin")
    task = component(
        kube_namespace,
        "by-host",
        definitions=CONFIGMAP,
        host=local_cluster.server,
        api_key=token,
        ca_cert=str(local_cluster.ca_file),
    )
    run = ansible.run([task], extra_env=NO_DEFAULT_KUBECONFIG, verbosity=1)
    assert not run[0].get("failed"), run[0].get("msg")
    assert run[0]["state"] == "Ready"
    kubectl("get", "configmap", "remote", "-n", kube_namespace)
    assert token not in run.stdout and token not in json.dumps(run.results)
