"""pytest fixture `helm_binary`: the pinned helm (tests/cluster/versions.env), built on first use (issue 17).

`tests/cluster/build --helm` builds only helm into the binary cache (a few minutes cold, cached afterwards; a lock
keeps parallel workers from building it twice). NUBES_TEST_HELM=<path> uses another helm binary instead.

Every test that uses the fixture (directly or through another fixture) is marked `helm`, so `make unit` leaves it
out and `make integration` runs it after `cluster-build` has built helm: on a fresh CI machine helm is not built
inside `make unit`. A missing helm that cannot be built fails the test, never skips it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from tests.cluster.launcher.layout import BUILD_SCRIPT

HELM_ENV = "NUBES_TEST_HELM"


def pinned_helm_path() -> Path:
    """Where tests/cluster/build puts the pinned helm binary."""
    out = subprocess.run([str(BUILD_SCRIPT), "--helm-path"], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Mark the tests that use the helm_binary fixture `helm`."""
    for item in items:
        if "helm_binary" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.helm)


def pinned_binary(env: str, path: Path, build_flag: str, what: str) -> str:
    """Path of a test binary: ``$env`` when set, else the pinned build at ``path`` (built by
    ``tests/cluster/build <build_flag>`` when missing). Fails the test with the build's output when it cannot."""
    explicit = os.environ.get(env)
    if explicit:
        if not os.access(explicit, os.X_OK):
            pytest.fail(f"{env}={explicit} is not an executable file")
        return explicit
    if not os.access(path, os.X_OK):
        proc = subprocess.run([str(BUILD_SCRIPT), build_flag], capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not os.access(path, os.X_OK):
            pytest.fail(
                f"{BUILD_SCRIPT} {build_flag} failed (exit {proc.returncode}); its output:\n{proc.stderr[-4000:]}\n"
                f"To use another {what} instead: {env}=<path> pytest ..."
            )
    return str(path)


@pytest.fixture(scope="session")
def helm_binary() -> str:
    """Path of a helm binary: $NUBES_TEST_HELM, else the pinned one (built when missing)."""
    return pinned_binary(HELM_ENV, pinned_helm_path(), "--helm", "helm")
