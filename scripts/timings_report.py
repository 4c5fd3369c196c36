"""Print the timing table of a CI run from the rows its steps appended to `$NUBES_TIMINGS`.

Rows are `KIND<TAB>NAME<TAB>SECONDS<TAB>STATUS` (scripts/timing-record.sh for steps, matrix steps and builds;
tests/timings.py for tests, kind `test` or `test@<step>`). The table lists set-up, every `make test` step, every
matrix step, the cold builds, the test time of each suite, and the slowest tests. With `--total` it ends with the
run's wall time and, past `--budget-minutes`, a warning: a slow run still passes, but everyone sees where its time
went.

Usage: python scripts/timings_report.py FILE [--total SECONDS] [--budget-minutes 60] [--slowest 15]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SECTIONS = (
    ("setup", "set-up"),
    ("build", "cold builds (a cached binary is not listed)"),
    ("step", "make test steps"),
    ("matrix", "make test-matrix steps"),
)


@dataclass(frozen=True)
class Row:
    kind: str
    name: str
    seconds: float
    status: str


def read_rows(path: Path) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) != 4:
            continue  # a row cut short by a killed writer
        kind, name, seconds, status = fields
        try:
            rows.append(Row(kind, name, float(seconds), status))
        except ValueError:
            continue
    return rows


def minutes(seconds: float) -> str:
    return f"{int(seconds) // 60} min {int(seconds) % 60:02d} s"


def suite_of(row: Row) -> str:
    """The suite of a test row: its step, when the row names one (kind `test@unit 2.16`), and its directory
    (tests/integration/modules), or its file when at the top."""
    path = row.name.split("::", 1)[0]
    parts = path.split("/")
    suite = "/".join(parts[:3]) if len(parts) > 3 else "/".join(parts[:-1]) or path
    step = row.kind.partition("@")[2]
    return f"{step}: {suite}" if step else suite


def test_label(row: Row) -> Row:
    """A test row named with its step, for the list of the slowest."""
    step = row.kind.partition("@")[2]
    return Row(row.kind, f"{step}: {row.name}" if step else row.name, row.seconds, row.status)


def table(rows: Iterable[Row]) -> list[str]:
    return [f"  {row.seconds:8.0f}  {row.status:<7} {row.name}" for row in rows]


def report(rows: list[Row], slowest: int) -> list[str]:
    lines = ["== .ci/run timing table (seconds, wall time) =="]
    for kind, title in SECTIONS:
        section = [row for row in rows if row.kind == kind]
        if section:
            lines += [f"{title}:", *table(section)]
    tests = [test_label(row) for row in rows if row.kind == "test" or row.kind.startswith("test@")]
    if tests:
        per_suite: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            if row.kind == "test" or row.kind.startswith("test@"):
                per_suite[suite_of(row)].append(row.seconds)
        lines.append("test time per suite (summed over the tests; with several workers it exceeds the wall time):")
        for suite, seconds in sorted(per_suite.items(), key=lambda item: -sum(item[1])):
            lines.append(f"  {sum(seconds):8.0f}  {len(seconds):5d} tests  {suite}")
        lines.append(f"the {min(slowest, len(tests))} slowest tests:")
        lines += table(sorted(tests, key=lambda row: -row.seconds)[:slowest])
    return lines


def verdict(total: float, budget_minutes: float) -> list[str]:
    if total <= budget_minutes * 60:
        return [f".ci/run: {total:.0f} s ({minutes(total)}), inside its {budget_minutes:.0f}-minute budget"]
    return [
        f"WARNING: .ci/run took {total:.0f} s ({minutes(total)}), over its {budget_minutes:.0f}-minute budget "
        "(CI stops a run at 90 minutes). The table above shows where the time went: make the slowest step "
        "cheaper, or spread it over more workers, before adding a suite."
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--total", type=float, help="the run's wall time in seconds")
    parser.add_argument("--budget-minutes", type=float, default=60.0)
    parser.add_argument("--slowest", type=int, default=15)
    args = parser.parse_args(argv)
    rows = read_rows(args.file) if args.file.is_file() else []
    lines = report(rows, args.slowest) if rows else [f"timings: no rows in {args.file}"]
    if args.total is not None:
        lines += verdict(args.total, args.budget_minutes)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
