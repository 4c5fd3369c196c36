"""tests/cluster/build's helm part (issue 17), without building: where helm goes, the cache, the pin check."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.cluster.launcher.layout import BUILD_SCRIPT, CLUSTER_SRC, read_versions


def _build(*args: str, cache: Path, script: Path = BUILD_SCRIPT) -> subprocess.CompletedProcess[str]:
    # a build into the test's own cache is not one of CI's builds: no row in its timing table (issue 22)
    env = {**{k: v for k, v in os.environ.items() if k != "NUBES_TIMINGS"}, "NUBES_CLUSTER_CACHE": str(cache)}
    return subprocess.run([str(script), *args], capture_output=True, text=True, env=env, check=False, timeout=120)


def test_helm_is_cached_under_its_own_version(tmp_path: Path) -> None:
    """helm lives in <cache>/helm-<HELM_VERSION>/bin, apart from the control plane's version-keyed directory."""
    path = _build("--helm-path", cache=tmp_path).stdout.strip()
    assert path == str(tmp_path / f"helm-{read_versions()['HELM_VERSION']}" / "bin" / "helm")
    assert _build("--bin-dir", cache=tmp_path).stdout.strip() != str(Path(path).parent)


def test_cached_helm_is_not_built_again(tmp_path: Path) -> None:
    """A second `--helm` finds the binary and only says so (and prints its path): no go build."""
    helm = Path(_build("--helm-path", cache=tmp_path).stdout.strip())
    helm.parent.mkdir(parents=True)
    helm.write_text("#!/bin/sh\n", encoding="utf-8")
    helm.chmod(0o755)
    run = _build("--helm", cache=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"cached  helm ({helm})" in run.stderr
    assert "building" not in run.stderr
    assert run.stdout.strip() == str(helm)


def test_build_refuses_a_helm_pin_that_the_wrapper_module_does_not_have(tmp_path: Path) -> None:
    """Changing HELM_VERSION without `--resolve helm` fails with what to run, before any download or build."""
    copy = tmp_path / "cluster"
    copy.mkdir()
    shutil.copy2(BUILD_SCRIPT, copy / "build")
    shutil.copytree(CLUSTER_SRC / "gomod", copy / "gomod", ignore=shutil.ignore_patterns("go.sum", "*.go"))
    versions = (CLUSTER_SRC / "versions.env").read_text(encoding="utf-8")
    changed = versions.replace(f"HELM_VERSION={read_versions()['HELM_VERSION']}", "HELM_VERSION=v4.0.0")
    assert changed != versions
    (copy / "versions.env").write_text(changed, encoding="utf-8")
    run = _build("--helm", cache=tmp_path / "cache", script=copy / "build")
    assert run.returncode != 0
    assert "tests/cluster/gomod does not match versions.env (helm): run tests/cluster/build --resolve" in run.stderr
    assert not (tmp_path / "cache" / "helm-v4.0.0" / "bin" / "helm").exists()
