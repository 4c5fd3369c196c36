"""pytest fixture `oci_registry`: a local in-memory OCI registry on 127.0.0.1 for the chart-source tests (issue 27).

The registry is go-containerregistry's (`github.com/google/go-containerregistry/pkg/registry`, `REGISTRY_VERSION` in
tests/cluster/versions.env), built from its Go module by `tests/cluster/build` (wrapper `gomod/registry`, which
listens on a loopback address only) into the binary cache, like helm; `tests/cluster/build --registry` builds only it.
NUBES_TEST_REGISTRY=<path> uses another build of the same wrapper.

Every test that uses the fixture is marked `registry`, so `make unit` leaves it out and `make integration` runs it
after `cluster-build` has built the registry. A registry that cannot be built or started fails the test, never skips.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import List

import pytest

from tests.cluster.helm import pinned_binary
from tests.cluster.launcher.layout import BUILD_SCRIPT

REGISTRY_ENV = "NUBES_TEST_REGISTRY"
START_TIMEOUT_SECONDS = 30
_LISTENING = re.compile(r"^listening on (127\.0\.0\.1:[0-9]+)$")


def pinned_registry_path() -> Path:
    """Where tests/cluster/build puts the registry binary."""
    out = subprocess.run([str(BUILD_SCRIPT), "--registry-path"], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Mark the tests that use the oci_registry fixture `registry`."""
    for item in items:
        if "oci_registry" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.registry)


def registry_binary() -> str:
    """Path of the registry binary: $NUBES_TEST_REGISTRY, else the pinned build (built when missing)."""
    return pinned_binary(REGISTRY_ENV, pinned_registry_path(), "--registry", "registry")


class LocalRegistry:
    """The registry process: started on 127.0.0.1 with a free port, stopped by ``stop()``."""

    def __init__(self, binary: str) -> None:
        self.proc = subprocess.Popen(
            [binary, "-listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.address = self._wait_for_address()

    def _wait_for_address(self) -> str:
        found: List[str] = []

        def read() -> None:
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline().strip()
            match = _LISTENING.match(line)
            if match:
                found.append(match.group(1))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_SECONDS)
        if not found:
            self.stop()
            pytest.fail(f"the OCI registry did not say where it listens within {START_TIMEOUT_SECONDS} s")
        return found[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@pytest.fixture(scope="session")
def oci_registry() -> Iterator[str]:
    """``127.0.0.1:<port>`` of a running in-memory OCI registry (one per pytest process), stopped at the end."""
    registry = LocalRegistry(registry_binary())
    try:
        yield registry.address
    finally:
        registry.stop()
