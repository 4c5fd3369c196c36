"""Root pytest configuration: shared fixtures live in the parts that own them."""

import os
import tempfile
from collections.abc import Iterator

import pytest

pytest_plugins = [
    "tests.emulator.fixtures",
    "tests.cluster.fixtures",
    "tests.cluster.helm",
    "tests.cluster.registry",
    "tests.charts.published",
    "tests.timings",
]


@pytest.fixture(scope="session", autouse=True)
def private_ansible_temp() -> Iterator[None]:
    """Every ansible-playbook the tests start uses a temp dir of this session, not the shared ~/.ansible/tmp:
    another run on the same machine (a second checkout, molecule, a developer's playbook) can then never remove
    a task's files under it ("Failed to transfer file to ~/.ansible/tmp/.../.source.json")."""
    with tempfile.TemporaryDirectory(prefix="nubes-ansible-tmp-") as tmp:
        saved = {name: os.environ.get(name) for name in ("ANSIBLE_LOCAL_TEMP", "ANSIBLE_REMOTE_TMP")}
        os.environ["ANSIBLE_LOCAL_TEMP"] = os.path.join(tmp, "local")
        os.environ["ANSIBLE_REMOTE_TMP"] = os.path.join(tmp, "remote")
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
