"""Lay out the Markdown pages of the docs site beside the reference pages antsibull-docs wrote (scripts/docsite.py).

The pages keep their paths from the repository root (README.md, docs/state.md, ...), so their relative links keep
working on the site. Links whose targets are no page of the site are mapped, so that none dangles:
- a generated module page (docs/modules/<module>.md) -> the module's antsibull-docs page
  (collection/<module>_module.rst), and docs/modules/index.md -> the collection's index (collection/index.rst);
- docs/index.md (the Markdown table of contents) -> the site's own index;
- another Markdown file (a page the site does not include) or a directory -> its address in the repository;
- any other file (an example playbook, an image, COPYING) is copied beside the page: Sphinx shows an image and
  makes any other file a download.
A link to something that does not exist fails the build, naming the page, the line and the link.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

# The pages of the site, as paths from the repository root (globs allowed). docsite/index.rst lists them in its
# toctrees (Sphinx fails the build on a page that no toctree lists, or a toctree entry that is no page).
PAGES = (
    "README.md",
    "docs/using-modules.md",
    "docs/state.md",
    "docs/component.md",
    "docs/inventory.md",
    "docs/reliability.md",
    "docs/benchmarks.md",
    "docs/ci.md",
    "docs/awx/README.md",
    "roles/*/README.md",
    "docs/man/*.md",
)
REFERENCE_DIR = "collection"  # where antsibull-docs writes the reference pages, under the site's source directory
SITE_INDEX = "index.rst"
MARKDOWN_INDEX = "docs/index.md"
MODULE_PAGE = re.compile(r"docs/modules/(?P<name>[a-z0-9_]+)\.md")
BRANCH = "main"  # the branch the repository links point at (as the README's links to dev-only files do)

LINK = re.compile(r"(?P<head>!?\[[^\]]*\]\()(?P<target>[^)\s]+)(?P<tail>(?:\s+\"[^\"]*\")?\))")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:.*?)\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


class SiteSourceError(Exception):
    """A page links to something that does not exist, or outside the repository."""


@dataclass
class Layout:
    """What the pages can link to: the repository, its address, and the reference pages already written."""

    root: Path
    repository: str
    source: Path
    pages: set[str] = field(default_factory=set)
    copies: set[str] = field(default_factory=set)

    def reference_page(self, name: str) -> str:
        return f"{REFERENCE_DIR}/index.rst" if name == "index" else f"{REFERENCE_DIR}/{name}_module.rst"


def page_paths(root: Path) -> list[str]:
    """The repository paths of the site's Markdown pages, sorted."""
    found: set[str] = set()
    for pattern in PAGES:
        matches = sorted(path.relative_to(root).as_posix() for path in root.glob(pattern) if path.is_file())
        if not matches:
            raise SiteSourceError(f"docs site: no page matches {pattern} (scripts/docsite_sources.py PAGES)")
        found.update(matches)
    return sorted(found)


def map_target(layout: Layout, page: str, target: str, where: str) -> str:
    """The link target to write on the site for `target`, linked from the page `page`; notes files to copy."""
    if SCHEME.match(target) or target.startswith("#"):
        return target
    path, _sep, anchor = target.partition("#")
    path = path.split("?", 1)[0]
    page_dir = posixpath.dirname(page)
    resolved = posixpath.normpath(posixpath.join(page_dir, unquote(path)))
    if resolved == ".." or resolved.startswith("../") or posixpath.isabs(resolved):
        raise SiteSourceError(f"{where}: link to {target} leaves the repository")
    if resolved in layout.pages:
        return target
    module = MODULE_PAGE.fullmatch(resolved)
    if module:
        reference = layout.reference_page(module.group("name"))
        if not (layout.source / reference).is_file():
            raise SiteSourceError(f"{where}: link to {target}: antsibull-docs wrote no page {reference} for it")
        return posixpath.relpath(reference, page_dir or ".")
    if resolved == MARKDOWN_INDEX:
        return posixpath.relpath(SITE_INDEX, page_dir or ".")
    full = layout.root / resolved
    if full.is_dir():
        return f"{layout.repository}/tree/{BRANCH}/{resolved}"
    if not full.is_file():
        raise SiteSourceError(f"{where}: link to {target}: {resolved} does not exist")
    if resolved.endswith(".md"):
        return f"{layout.repository}/blob/{BRANCH}/{resolved}" + (f"#{anchor}" if anchor else "")
    layout.copies.add(resolved)
    return target


def rewrite_links(layout: Layout, page: str, text: str) -> str:
    """`text` (the Markdown of `page`) with every link mapped onto the site; code blocks and code spans are kept."""
    out: list[str] = []
    fenced = False
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        fence = FENCE.match(line)
        if fence:
            fenced = not fenced
        out.append(line if fenced or fence else _rewrite_line(layout, page, line, f"{page}:{number}"))
    return "".join(out)


def _rewrite_line(layout: Layout, page: str, line: str, where: str) -> str:
    code = [span.span() for span in INLINE_CODE.finditer(line)]

    def mapped(link: re.Match[str]) -> str:
        if any(start <= link.start() < end for start, end in code):  # a link shown as code, not a link
            return link.group(0)
        return link.group("head") + map_target(layout, page, link.group("target"), where) + link.group("tail")

    return LINK.sub(mapped, line)


def lay_out(root: Path, source: Path, repository: str) -> list[str]:
    """Write the site's Markdown pages (links mapped) and the files they link to under `source`.

    Returns the pages written. The reference pages must already be under source/collection/.
    """
    layout = Layout(root=root, repository=repository.rstrip("/"), source=source)
    layout.pages = set(page_paths(root))
    for page in sorted(layout.pages):
        text = (root / page).read_text(encoding="utf-8")
        destination = source / page
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(rewrite_links(layout, page, text), encoding="utf-8")
    for copy in sorted(layout.copies):
        destination = source / copy
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / copy, destination)
    return sorted(layout.pages)
