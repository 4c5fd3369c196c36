"""Command lines of the control-plane components; every listener is on 127.0.0.1."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .layout import StateDir

SERVICE_CIDR = "10.96.0.0/16"
POD_CIDR = "10.244.0.0/24"  # kwok writes fake pod IPs from this range into pod status; nothing dials them
FAKE_NODE_IP = "10.244.0.1"
KWOK_STAGES = "kwok-stages.yaml"
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"
FRONT_PROXY_CA = "front-proxy-ca"
FRONT_PROXY_CLIENT = "front-proxy-client"


@dataclass(frozen=True)
class Ports:
    etcd_client: int
    etcd_peer: int
    apiserver: int
    scheduler: int

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.apiserver}"


def etcd(bin_dir: Path, state: StateDir, ports: Ports) -> list[str]:
    client = f"http://127.0.0.1:{ports.etcd_client}"
    peer = f"http://127.0.0.1:{ports.etcd_peer}"
    return [
        str(bin_dir / "etcd"),
        "--name=nubes-test",
        f"--data-dir={state.etcd_data}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=nubes-test={peer}",
        "--unsafe-no-fsync",  # throwaway data: no fsync keeps it fast on shared disks
        "--auto-compaction-retention=1",
        "--log-level=warn",
    ]


def kube_apiserver(bin_dir: Path, state: StateDir, ports: Ports) -> list[str]:
    pki = state.pki
    return [
        str(bin_dir / "kube-apiserver"),
        f"--etcd-servers=http://127.0.0.1:{ports.etcd_client}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={ports.apiserver}",
        f"--cert-dir={pki}",
        f"--tls-cert-file={pki / 'apiserver.crt'}",
        f"--tls-private-key-file={pki / 'apiserver.key'}",
        f"--client-ca-file={pki / 'ca.crt'}",
        f"--token-auth-file={state.token_auth_file}",
        f"--requestheader-client-ca-file={pki / (FRONT_PROXY_CA + '.crt')}",
        f"--requestheader-allowed-names={FRONT_PROXY_CLIENT}",
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        f"--proxy-client-cert-file={pki / (FRONT_PROXY_CLIENT + '.crt')}",
        f"--proxy-client-key-file={pki / (FRONT_PROXY_CLIENT + '.key')}",
        f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
        f"--service-account-key-file={pki / 'sa.pub'}",
        f"--service-account-signing-key-file={pki / 'sa.key'}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--authorization-mode=Node,RBAC",
        "--allow-privileged=true",
        # the `kubernetes` Service's Endpoints would point at 127.0.0.1, which Endpoints validation rejects
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        "--v=1",
    ]


def kube_controller_manager(bin_dir: Path, state: StateDir) -> list[str]:
    pki = state.pki
    return [
        str(bin_dir / "kube-controller-manager"),
        f"--kubeconfig={state.admin_kubeconfig}",
        "--leader-elect=false",
        "--secure-port=0",  # no listener; readiness is seen through the API (default ServiceAccount)
        f"--service-account-private-key-file={pki / 'sa.key'}",
        f"--root-ca-file={pki / 'ca.crt'}",
        f"--cluster-signing-cert-file={pki / 'ca.crt'}",
        f"--cluster-signing-key-file={pki / 'ca.key'}",
        "--use-service-account-credentials=true",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--v=1",
    ]


def kube_scheduler(bin_dir: Path, state: StateDir, ports: Ports) -> list[str]:
    return [
        str(bin_dir / "kube-scheduler"),
        f"--kubeconfig={state.admin_kubeconfig}",
        f"--authentication-kubeconfig={state.admin_kubeconfig}",
        f"--authorization-kubeconfig={state.admin_kubeconfig}",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.scheduler}",
        "--v=1",
    ]


def kwok(bin_dir: Path, state: StateDir) -> list[str]:
    return [
        str(bin_dir / "kwok"),
        f"--kubeconfig={state.admin_kubeconfig}",
        f"--config={bin_dir / KWOK_STAGES}",  # written by tests/cluster/build: kwok >= 0.8 has no default stages
        "--manage-all-nodes=true",
        f"--cidr={POD_CIDR}",
        f"--node-ip={FAKE_NODE_IP}",
        "--node-lease-duration-seconds=40",
    ]


FAKE_NODE_NAME = "kwok-node-0"


def fake_node() -> dict[str, object]:
    """The Node kwok keeps Ready; no taint, so unmodified Deployments schedule onto it."""
    capacity = {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": FAKE_NODE_NAME,
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "type": "kwok",
                "kubernetes.io/hostname": FAKE_NODE_NAME,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "node-role.kubernetes.io/agent": "",
            },
        },
        "spec": {},
        "status": {"capacity": capacity, "allocatable": capacity},
    }
