"""plugins/ code runs on targets: the core must stay importable on Python 3.9 (contracts.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FILES = [*sorted((ROOT / "plugins" / "module_utils" / "nubes").glob("*.py")), ROOT / "plugins/doc_fragments/common.py"]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_python39_grammar_and_future_annotations(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    ast.parse(source, feature_version=(3, 9))  # no `match`, no PEP 604/695 syntax, no parenthesised context managers
    if path.name == "__init__.py":
        assert source == "", "ansible-test's empty-init (ansible-core 2.16) wants package __init__.py files empty"
        return
    assert "GNU General Public License v3.0+" in source
    assert "from __future__ import annotations" in source
