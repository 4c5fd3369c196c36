"""Fixtures of the component reliability tests (the playbook harness of tests/integration/component)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.component.component_harness import Ansible


@pytest.fixture
def ansible(tmp_path: Path, kubeconfig: str) -> Ansible:
    """Run playbooks against the test cluster (admin kubeconfig through KUBECONFIG)."""
    return Ansible(tmp_path, kubeconfig)
