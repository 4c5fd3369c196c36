"""tests/cluster/build's kubectl part (issue 19), without building: kubectl of the pinned Kubernetes version goes
into the control plane's own cache directory, is built only on request (the benchmarks ask), and once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.cluster.launcher.layout import BUILD_SCRIPT


def _build(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    # a build into the test's own cache is not one of CI's builds: no row in its timing table (issue 22)
    env = {**{k: v for k, v in os.environ.items() if k != "NUBES_TIMINGS"}, "NUBES_CLUSTER_CACHE": str(cache)}
    return subprocess.run([str(BUILD_SCRIPT), *args], capture_output=True, text=True, env=env, check=False, timeout=300)


def _fake_binary(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)


def test_kubectl_lives_with_the_control_plane_of_its_version(tmp_path: Path) -> None:
    """kubectl is <cache>/<k8s>-<etcd>-<kwok>/bin/kubectl: the same pinned k8s.io/kubernetes as the apiserver."""
    path = Path(_build("--kubectl-path", cache=tmp_path).stdout.strip())
    assert path == Path(_build("--bin-dir", cache=tmp_path).stdout.strip()) / "kubectl"


def test_cached_kubectl_is_not_built_again(tmp_path: Path) -> None:
    """A second `--kubectl` finds the binary, says so and prints its path: no go build."""
    kubectl = Path(_build("--kubectl-path", cache=tmp_path).stdout.strip())
    _fake_binary(kubectl)
    run = _build("--kubectl", cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"cached  kubectl ({kubectl})" in run.stderr
    assert "building" not in run.stderr
    assert run.stdout.strip() == str(kubectl)


def test_the_default_build_never_builds_kubectl(tmp_path: Path) -> None:
    """`tests/cluster/build` (what `make test` runs) with every control-plane binary cached builds nothing, kubectl
    included: only the benchmarks ask for it."""
    bin_dir = Path(_build("--bin-dir", cache=tmp_path).stdout.strip())
    for name in ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kwok"):
        _fake_binary(bin_dir / name)
    (bin_dir / "kwok-stages.yaml").write_text("---\n", encoding="utf-8")
    _fake_binary(Path(_build("--helm-path", cache=tmp_path).stdout.strip()))
    _fake_binary(Path(_build("--registry-path", cache=tmp_path).stdout.strip()))
    run = _build(cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "kubectl" not in run.stderr and not (bin_dir / "kubectl").exists()
    assert "building" not in run.stderr  # every binary of the default build was cached: nothing was compiled
