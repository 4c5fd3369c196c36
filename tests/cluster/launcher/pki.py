"""Throwaway PKI made with openssl: one CA, the apiserver's serving cert, client certs and the service-account key."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from pathlib import Path

CA_DAYS = "3650"
# Names and IPs clients may use for the apiserver; only 127.0.0.1 is ever dialled.
APISERVER_SANS = (
    "IP:127.0.0.1",
    "DNS:localhost",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
    "IP:10.96.0.1",
)


class PkiError(RuntimeError):
    pass


def _openssl(*args: str) -> None:
    proc = subprocess.run(["openssl", *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise PkiError(f"openssl {args[0]} failed: {proc.stderr.strip()} (is openssl 3 on PATH?)")


def _new_key(path: Path) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(path))
    path.chmod(0o600)


def _subject(common_name: str, organizations: tuple[str, ...]) -> str:
    return "/CN=" + common_name + "".join(f"/O={org}" for org in organizations)


def make_ca(pki: Path, name: str = "ca", common_name: str = "nubes-test-cluster-ca") -> None:
    """Self-signed CA <name>.crt / <name>.key."""
    _new_key(pki / f"{name}.key")
    _openssl(
        "req", "-x509", "-new", "-key", str(pki / f"{name}.key"), "-out", str(pki / f"{name}.crt"), "-days", CA_DAYS,
        "-subj", f"/CN={common_name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
    )  # fmt: skip


def _sign(pki: Path, name: str, subject: str, extensions: list[str], ca: str = "ca") -> None:
    """Key <name>.key and certificate <name>.crt signed by the CA <ca>.crt."""
    _new_key(pki / f"{name}.key")
    with tempfile.TemporaryDirectory() as tmp:
        csr = Path(tmp) / "req.csr"
        ext = Path(tmp) / "ext.cnf"
        ext.write_text("\n".join(extensions) + "\n", encoding="utf-8")
        _openssl("req", "-new", "-key", str(pki / f"{name}.key"), "-subj", subject, "-out", str(csr))
        _openssl(
            "x509", "-req", "-in", str(csr), "-CA", str(pki / f"{ca}.crt"), "-CAkey", str(pki / f"{ca}.key"),
            "-set_serial", "0x" + secrets.token_hex(16), "-days", CA_DAYS, "-sha256",
            "-extfile", str(ext), "-out", str(pki / f"{name}.crt"),
        )  # fmt: skip


def make_serving_cert(pki: Path, name: str) -> None:
    _sign(
        pki,
        name,
        _subject(name, ()),
        [
            "basicConstraints=critical,CA:FALSE",
            "keyUsage=critical,digitalSignature,keyEncipherment",
            "extendedKeyUsage=serverAuth",
            "subjectAltName=" + ",".join(APISERVER_SANS),
        ],
    )


def make_client_cert(pki: Path, name: str, user: str, groups: tuple[str, ...], ca: str = "ca") -> None:
    _sign(
        pki,
        name,
        _subject(user, groups),
        ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth"],
        ca=ca,
    )


def make_service_account_key(pki: Path) -> None:
    _new_key(pki / "sa.key")
    _openssl("pkey", "-in", str(pki / "sa.key"), "-pubout", "-out", str(pki / "sa.pub"))


def write_secret_file(path: Path, text: str) -> None:
    """Create a file readable by its owner only (tokens never go to output or logs)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
