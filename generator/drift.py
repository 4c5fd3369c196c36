"""check: compare what the generator would write with what is on disk (P47: fail fast on drift)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from generator.workspace import Workspace

MAX_DIFF_LINES = 400


@dataclass
class DriftReport:
    """Differences between the expected files and the files on disk."""

    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    diff_lines: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.stale)

    def summary(self) -> str:
        """A readable report: what differs, the unified diff, and what to do."""
        if self.clean:
            return "generator check: no drift"
        parts = ["generator check: DRIFT — generated files differ from what the specs/API produce (P47)."]
        for title, paths in (
            ("changed (hand edit or outdated)", self.changed),
            ("missing", self.missing),
            ("stale (generated, but no longer produced)", self.stale),
        ):
            if paths:
                parts.append(f"{title}:")
                parts.extend(f"  {p}" for p in paths)
        if self.diff_lines:
            shown = self.diff_lines[:MAX_DIFF_LINES]
            parts.append("")
            parts.append("".join(shown).rstrip("\n"))
            if len(self.diff_lines) > MAX_DIFF_LINES:
                parts.append(f"... {len(self.diff_lines) - MAX_DIFF_LINES} more diff lines")
        parts.append("")
        parts.append(
            "Fix: never edit generated files. Change the API data, config/ or generator/, then run "
            "`python -m generator all` (or `render` without an endpoint) and commit the result."
        )
        return "\n".join(parts)


def compare(workspace: Workspace, expected: dict[str, str], scope: tuple[str, ...]) -> DriftReport:
    """Compare expected files with the disk; generated files under ``scope`` that are not expected are stale."""
    report = DriftReport()
    for relative, text in expected.items():
        actual = workspace.read(relative)
        if actual is None:
            report.missing.append(relative)
            continue
        if actual != text:
            report.changed.append(relative)
            report.diff_lines.extend(
                difflib.unified_diff(
                    actual.splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    fromfile=f"{relative} (on disk)",
                    tofile=f"{relative} (generated)",
                )
            )
    for relative in workspace.generated_files():
        if relative.startswith(scope) and relative not in expected:
            report.stale.append(relative)
    return report
