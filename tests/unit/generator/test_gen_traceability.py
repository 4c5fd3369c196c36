"""Traceability: every generator test has a docstring, and each seed rule the generator implements is named
by at least one test docstring and one code comment/docstring under generator/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TEST_DIRS = [REPO / "tests" / "unit" / "generator", REPO / "tests" / "integration" / "modules"]
GENERATOR_RULES = ["P1", "P3", "P4", "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P15", "P19", "P31",
                   "P41", "P43", "P44", "P45", "P46", "P47"]  # fmt: skip


def collect_tests() -> list[tuple[str, ast.FunctionDef]]:
    """Every test function of the generator's test directories."""
    found = []
    for directory in TEST_DIRS:
        for path in sorted(directory.glob("test_*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    found.append((path.name, node))
    return found


def test_every_test_has_a_docstring() -> None:
    """Each test says what it proves."""
    missing = [f"{f}::{n.name}" for f, n in collect_tests() if not ast.get_docstring(n)]
    assert missing == []


@pytest.mark.parametrize("rule", GENERATOR_RULES)
def test_rule_is_traced(rule: str) -> None:
    """P-rule ids appear in a test docstring and in the generator's code (comments or docstrings)."""
    pattern = re.compile(rf"\b{rule}\b")
    docstrings = " ".join(ast.get_docstring(n) or "" for _file, n in collect_tests())
    code = " ".join(p.read_text(encoding="utf-8") for p in (REPO / "generator").rglob("*.py"))
    assert pattern.search(docstrings), f"no test docstring names {rule}"
    assert pattern.search(code), f"no generator code names {rule}"
