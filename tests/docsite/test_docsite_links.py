"""The docs site's cross links (issue 27): every link of every page that `make docs-site` built lands on a file of
the site, and on an anchor that page has; the guides link to each other and to the reference pages."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List
from urllib.parse import unquote

from tests.docsite.site_pages import SCHEME, Page, parse_file

GUIDES = (
    "README",
    "docs/using-modules",
    "docs/state",
    "docs/component",
    "docs/inventory",
    "docs/reliability",
    "docs/benchmarks",
)


def site_pages(site: Path) -> Dict[Path, Page]:
    return {path.resolve(): parse_file(path) for path in sorted(site.rglob("*.html"))}


def dangling_links(site: Path, pages: Dict[Path, Page]) -> List[str]:
    problems: List[str] = []
    root = site.resolve()
    for path, page in pages.items():
        where = path.relative_to(root).as_posix()
        for link in page.links:
            if SCHEME.match(link):
                continue
            target, _sep, anchor = link.partition("#")
            target = unquote(target.split("?", 1)[0])
            dest = (path.parent / target).resolve() if target else path
            if dest.is_dir():
                dest = dest / "index.html"
            if not dest.is_relative_to(root) or not dest.is_file():
                problems.append(f"{where}: {link} (no such file in the site)")
            elif anchor and dest.suffix == ".html" and anchor not in pages[dest].ids:
                problems.append(f"{where}: {link} (no anchor #{anchor} on {dest.relative_to(root).as_posix()})")
    return problems


def test_every_link_of_the_site_lands_on_a_page_and_an_anchor_it_has(built_site: Path) -> None:
    """P5, working cross links: every <a>, <link>, <img> and <script> reference of every HTML page of the site that
    `make docs-site` built names a file of the site, and a #anchor names an id on that page (the guides' links to
    each other's sections included)."""
    pages = site_pages(built_site)
    assert len(pages) > len(list((built_site.parent.parent / "plugins" / "modules").glob("*.py")))
    problems = dangling_links(built_site, pages)
    assert not problems, f"{len(problems)} dangling link(s):\n" + "\n".join(problems[:60])


def test_the_guides_are_pages_linked_to_each_other_and_to_the_reference(built_site: Path) -> None:
    """The guides (README and docs/*.md) are pages of the site, in its navigation; the README's links to the
    Markdown module pages (docs/modules/<module>.md) land on the modules' reference pages, its links to the guides
    on their pages, and its links to files (COPYING, examples/demo.yml) are downloads of the site."""
    index = parse_file(built_site / "index.html")
    for guide in GUIDES:
        assert (built_site / f"{guide}.html").is_file(), guide
        assert f"{guide}.html" in index.link_targets(), f"the site's index does not link to {guide}"
    readme = parse_file(built_site / "README.html").link_targets()
    assert {"collection/postgres_module.html", "collection/postgres_user_module.html"} <= readme
    assert {"docs/using-modules.html", "docs/state.html", "docs/component.html", "docs/inventory.html"} <= readme
    downloads = {Path(target).name for target in readme if target.startswith("_downloads/")}
    assert {"COPYING", "demo.yml"} <= downloads, "the README's links to files are not downloads of the site"
    assert not any(target.endswith(".md") for target in readme), sorted(t for t in readme if t.endswith(".md"))
    using = parse_file(built_site / "docs" / "using-modules.html").link_targets()
    assert "state.html" in using
