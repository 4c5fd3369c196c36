"""The CLI: `python -m generator fetch|render|check|all`, --help, exit codes, env variables (P46)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator import cli, pipeline
from generator.workspace import Workspace
from tests.unit.generator.catalogue import GATEWAY, TOKEN, FakeDeckApi

REPO = Path(__file__).resolve().parents[3]


def test_help_documents_every_command() -> None:
    """P46: each pipeline step is one command; --help lists them, the endpoint styles and the variables."""
    result = subprocess.run(
        [sys.executable, "-m", "generator", "--help"], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    for word in ("fetch", "render", "check", "all", "index.cfm", "NUBES_API_ENDPOINT", "NUBES_API_TOKEN"):
        assert word in result.stdout


@pytest.fixture
def generated(workspace: Workspace, api: FakeDeckApi) -> Workspace:
    pipeline.fetch(workspace, GATEWAY, TOKEN, api.transport())
    pipeline.render(workspace)
    return workspace


def test_check_exit_codes(
    generated: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """check: 0 when clean, 1 with a diff on drift (P47); offline when no endpoint is configured."""
    monkeypatch.delenv("NUBES_API_ENDPOINT", raising=False)
    assert cli.main(["check", "--root", str(generated.root)]) == 0
    assert "no drift" in capsys.readouterr().out
    path = generated.root / "docs/modules/index.md"
    path.write_text(path.read_text(encoding="utf-8") + "edit\n", encoding="utf-8")
    assert cli.main(["check", "--root", str(generated.root)]) == 1
    err = capsys.readouterr().err
    assert "DRIFT" in err and "+++ docs/modules/index.md (generated)" in err


def test_errors_exit_2_with_message(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing spec or endpoint is exit code 2 with a message saying what to run or set."""
    monkeypatch.delenv("NUBES_API_ENDPOINT", raising=False)
    monkeypatch.delenv("NUBES_API_TOKEN", raising=False)
    assert cli.main(["render", "--root", str(workspace.root)]) == 2
    assert "run `python -m generator fetch`" in capsys.readouterr().err
    assert cli.main(["fetch", "--root", str(workspace.root)]) == 2
    assert "NUBES_API_ENDPOINT" in capsys.readouterr().err


def test_bad_services_list_is_reported_with_line(workspace: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """P7: a malformed services_list.txt line is reported with file and line number."""
    workspace.services_list.write_text("# c\n90 Postgres\n", encoding="utf-8")
    assert cli.main(["render", "--root", str(workspace.root)]) == 2
    assert "services_list.txt:2: name 'Postgres' must be snake_case" in capsys.readouterr().err
