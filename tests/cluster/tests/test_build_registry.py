"""tests/cluster/build's OCI registry (issue 27): where it goes, that a cached one is not built again, and that the
built registry serves 127.0.0.1 only."""

from __future__ import annotations

import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.cluster.launcher.layout import BUILD_SCRIPT, read_versions
from tests.cluster.registry import LocalRegistry, registry_binary


def _build(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    # a build into the test's own cache is not one of CI's builds: no row in its timing table (issue 22)
    env = {**{k: v for k, v in os.environ.items() if k != "NUBES_TIMINGS"}, "NUBES_CLUSTER_CACHE": str(cache)}
    return subprocess.run([str(BUILD_SCRIPT), *args], capture_output=True, text=True, env=env, check=False, timeout=120)


def test_registry_is_cached_under_its_own_version(tmp_path: Path) -> None:
    """The registry lives in <cache>/registry-<REGISTRY_VERSION>/bin, apart from the control plane and helm."""
    path = _build("--registry-path", cache=tmp_path).stdout.strip()
    assert path == str(tmp_path / f"registry-{read_versions()['REGISTRY_VERSION']}" / "bin" / "registry")


def test_cached_registry_is_not_built_again(tmp_path: Path) -> None:
    """A second `--registry` finds the binary and only says so (and prints its path): no go build."""
    registry = Path(_build("--registry-path", cache=tmp_path).stdout.strip())
    registry.parent.mkdir(parents=True)
    registry.write_text("#!/bin/sh\n", encoding="utf-8")
    registry.chmod(0o755)
    run = _build("--registry", cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"cached  registry ({registry})" in run.stderr
    assert "building" not in run.stderr
    assert run.stdout.strip() == str(registry)


@pytest.mark.registry
def test_registry_listens_on_loopback_only() -> None:
    """The wrapper refuses a non-loopback address, and by default serves the OCI API on 127.0.0.1 with a free port."""
    binary = registry_binary()
    refused = subprocess.run([binary, "-listen", "0.0.0.0:0"], capture_output=True, text=True, timeout=30, check=False)
    assert refused.returncode != 0
    assert "is not a loopback address" in refused.stderr
    registry = LocalRegistry(binary)
    try:
        assert registry.address.startswith("127.0.0.1:")
        with urllib.request.urlopen(f"http://{registry.address}/v2/", timeout=10) as answer:
            assert answer.status == 200
    finally:
        registry.stop()
