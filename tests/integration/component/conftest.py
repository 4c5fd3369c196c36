"""Fixtures of the component module's playbook-level tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.component.component_harness import Ansible
from tests.integration.component.custom_kinds import install_crds


@pytest.fixture
def ansible(tmp_path: Path, kubeconfig: str) -> Ansible:
    """Run playbooks against the test cluster (admin kubeconfig through KUBECONFIG)."""
    return Ansible(tmp_path, kubeconfig)


@pytest.fixture(scope="module")
def custom_kinds(kubectl) -> None:
    """CRDs shaped like cert-manager's Certificate and prometheus-operator's Prometheus (issue 25)."""
    install_crds(kubectl)
