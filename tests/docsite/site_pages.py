"""Read HTML pages of the docs site: ids, links, the ids inside option tables, the title (tests/docsite)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
OPTION_TABLE_CLASS = "ansible-option-table"  # antsibull-docs' table of options and of return values
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


class Page(HTMLParser):
    """The facts the tests read from one HTML page (a file of the site or a DOM that chromium dumped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: Set[str] = set()
        self.links: List[str] = []  # href of <a> and <link>, src of <img> and <script>
        self.option_ids: List[str] = []  # ids inside an options or return values table
        self.option_tables = 0
        self.h1: List[str] = []
        self._tables: List[bool] = []
        self._h1_text: Optional[List[str]] = None

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        if tag == "table":
            is_options = OPTION_TABLE_CLASS in attr.get("class", "").split()
            self._tables.append(is_options)
            self.option_tables += is_options
        for name in ("id", "name") if tag == "a" else ("id",):
            if attr.get(name):
                self.ids.add(attr[name])
                if any(self._tables):
                    self.option_ids.append(attr[name])
        if tag in ("a", "link") and "href" in attr:
            self.links.append(attr["href"])
        if tag in ("img", "script") and attr.get("src"):
            self.links.append(attr["src"])
        if tag == "h1":
            self._h1_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._tables:
            self._tables.pop()
        if tag == "h1" and self._h1_text is not None:
            self.h1.append(" ".join("".join(self._h1_text).split()))
            self._h1_text = None

    def handle_data(self, data: str) -> None:
        if self._h1_text is not None:
            self._h1_text.append(data)

    def option_names(self, prefix: str = "parameter-") -> Set[str]:
        """Top-level names of the options (or return values, prefix `return-`) whose rows the tables hold."""
        return {ident[len(prefix) :] for ident in self.option_ids if ident.startswith(prefix) and "/" not in ident}

    def link_targets(self) -> Set[str]:
        """The page's relative link targets, without their #anchor."""
        return {link.split("#", 1)[0] for link in self.links if not SCHEME.match(link)}


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def parse_file(path: Path) -> Page:
    return parse(path.read_text(encoding="utf-8"))


def ansible_doc(kind: str, name: str) -> Dict[str, Any]:
    """What `ansible-doc -j` says of a plugin of this checkout (the truth the site must show)."""
    env = dict(os.environ)
    env.setdefault("ANSIBLE_COLLECTIONS_PATH", str(ROOT / ".collections"))
    result = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-doc"), "-t", kind, "-j", name],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    doc: Dict[str, Any] = json.loads(result.stdout)[name]
    return doc
