"""docs/dev/rules.md stays true: one row per rule id of the seeds, every id cited in code and tests has a row,
and every location a row names exists and cites that id (a function or class by name when one is given)."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

REPO = Path(__file__).resolve().parents[3]
RULEBOOK = REPO / "docs" / "dev" / "rules.md"
SEED_IDS = (
    ["K1", "K2", "K3", "K4a", "K4b"] + [f"P{n}" for n in range(1, 48)] + [f"C{n}" for n in range(1, 19)]
)  # ../shared/reference/seed-rules.md
CITATION = re.compile(r"\b([KPC][1-9][0-9]?[ab]?)\b")
SCANNED = (".py", ".yml", ".yaml", ".sh", ".j2", ".mk", ".cfg", ".toml")
NOT_SCANNED = ("docs/", "specs/", "changelogs/", "bench/results/")


def rows() -> Dict[str, List[str]]:
    """id -> its row's cells (rule, implemented in, proved by)."""
    table: Dict[str, List[str]] = {}
    for line in RULEBOOK.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in SEED_IDS:
            assert cells[0] not in table, f"{cells[0]} has two rows"
            table[cells[0]] = cells[1:]
    return table


def tracked_files() -> List[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=False).stdout
    return [f for f in listed.split() if (f.endswith(SCANNED) or f == "Makefile") and not f.startswith(NOT_SCANNED)]


def source_of(path: Path, symbol: str) -> Iterator[str]:
    """The source of every function or class named `symbol` in a Python file."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == symbol:
            yield "\n".join(lines[node.lineno - 1 : node.end_lineno])


def locations(cell: str) -> List[Tuple[str, str]]:
    """(file, symbol) for every `file`, `file:symbol` and `file::test` in a cell."""
    found = []
    for token in re.findall(r"`([^`]+)`", cell):
        file, _sep, symbol = token.replace("::", ":").partition(":")
        found.append((file, symbol))
    return found


def cites(text: str, rule: str) -> bool:
    return rule in CITATION.findall(text)


def test_one_row_per_seed_rule() -> None:
    """Every rule id of the seeds (K, P and C) has exactly one row with a statement and where it is implemented."""
    table = rows()
    assert sorted(table) == sorted(SEED_IDS)
    for rule, (statement, implemented, _proved) in table.items():
        assert statement and locations(implemented), rule


def test_every_cited_id_is_in_the_rulebook() -> None:
    """A rule id cited anywhere in code or tests is one of the rulebook's."""
    table = rows()
    unknown = {
        f"{name}: {rule}"
        for name in tracked_files()
        for rule in CITATION.findall((REPO / name).read_text(encoding="utf-8", errors="replace"))
        if rule not in table
    }
    assert sorted(unknown) == []


def test_every_location_exists_and_cites_its_id() -> None:
    """Each file named in a row exists and names the row's id; a named function, class or test does too."""
    problems = []
    for rule, (_statement, implemented, proved) in rows().items():
        for file, symbol in locations(implemented) + locations(proved):
            path = REPO / file
            if not path.is_file():
                problems.append(f"{rule}: {file} does not exist")
            elif symbol and file.endswith(".py"):
                bodies = list(source_of(path, symbol))
                if not bodies:
                    problems.append(f"{rule}: {file} has no function or class {symbol}")
                elif not any(cites(body, rule) for body in bodies):
                    problems.append(f"{rule}: {file}:{symbol} does not cite {rule}")
            elif not cites(path.read_text(encoding="utf-8", errors="replace"), rule):
                problems.append(f"{rule}: {file} does not cite {rule}")
    assert problems == []
