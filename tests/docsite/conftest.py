"""Fixtures of the docs site tests (tests/docsite): the site built by its one command, served on 127.0.0.1, and
headless chromium."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docsite.browser import Chromium, SiteServer
from tests.docsite.site_pages import ROOT, SITE


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The site as `make docs-site` builds it (the one command; a no-op while no input changed)."""
    result = subprocess.run(
        ["make", "--no-print-directory", "docs-site"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert result.returncode == 0, f"make docs-site failed:\n{result.stdout}\n{result.stderr}"
    assert (SITE / "index.html").is_file(), f"make docs-site passed but wrote no {SITE}/index.html:\n{result.stdout}"
    return SITE


@pytest.fixture(scope="session")
def site_server(built_site: Path) -> Iterator[SiteServer]:
    server = SiteServer(built_site)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def chromium() -> Chromium:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail(
            "chromium is not installed: `apt-get install chromium` (tests/bindep.txt lists it, and .ci/run installs "
            "it); the docs site tests open the site in it"
        )
    return Chromium(binary)
