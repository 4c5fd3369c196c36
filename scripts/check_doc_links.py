"""Report Markdown links to files that do not exist under a directory (the unpacked collection tarball).

Usage: python scripts/check_doc_links.py <root>
Every relative link target `[text](path)` or `[text](path#anchor)` in every `*.md` file under <root> must name a
file or directory under <root>. Links with a scheme (https:, mailto:) and pure anchors (#...) are not checked.
Exit code 1 and one line per dangling link when any is found.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every Markdown link outside fenced code blocks."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # inline code is not a link
        found.extend((number, match.group(1)) for match in LINK.finditer(line))
    return found


def dangling(root: Path) -> list[str]:
    problems: list[str] = []
    for page in sorted(root.rglob("*.md")):
        for number, target in links(page.read_text(encoding="utf-8", errors="replace")):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0].split("?", 1)[0]
            resolved = (root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
            if not resolved.resolve().is_relative_to(root.resolve()) or not resolved.exists():
                problems.append(f"{page.relative_to(root)}:{number}: link to {target} (not in the collection)")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = dangling(Path(argv[1]))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
