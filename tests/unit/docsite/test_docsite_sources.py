"""The docs site's Markdown pages laid out beside the reference pages (scripts/docsite_sources.py, issue 27): every
link is mapped onto the site, and a link to nothing fails the build naming the page and the line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts import docsite, docsite_sources
from scripts.docsite_sources import SiteSourceError, lay_out

REPOSITORY = "https://github.com/nubes-cloud/nubes.cloud"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with two guides, a manual, a role README, an example, and the reference pages of one module."""
    root = tmp_path / "repo"
    write(root / "README.md", "# R\n")
    write(root / "docs" / "state.md", "# State\n## Locking\n")
    write(root / "docs" / "man" / "postgres.md", "# PostgreSQL\n")
    write(root / "docs" / "dev" / "rules.md", "# Rules\n")
    write(root / "docs" / "modules" / "postgres.md", "# postgres\n")
    write(root / "roles" / "component" / "README.md", "# Role\n")
    write(root / "examples" / "demo.yml", "---\n")
    write(root / "examples" / "inventory" / "nubes.yml", "---\n")
    write(root / "COPYING", "GPL\n")
    source = tmp_path / "src"
    write(source / "collection" / "index.rst", "x\n")
    write(source / "collection" / "postgres_module.rst", "x\n")
    monkeypatch.setattr(docsite_sources, "PAGES", ("README.md", "docs/state.md", "docs/man/*.md", "roles/*/README.md"))
    return root


def site(root: Path, readme: str) -> str:
    """README.md as the site shows it, after laying out `readme` as the repository's README."""
    write(root / "README.md", readme)
    source = root.parent / "src"
    lay_out(root, source, REPOSITORY)
    return (source / "README.md").read_text(encoding="utf-8")


def test_links_to_pages_and_anchors_stay(repo: Path) -> None:
    text = "[state](docs/state.md), [locking](docs/state.md#locking), [top](#r), [web](https://nubes.ru)\n"
    assert site(repo, text) == text


def test_module_pages_become_the_reference_pages(repo: Path) -> None:
    """A link to a generated Markdown module page lands on the module's antsibull-docs page, from any directory."""
    assert site(repo, "[pg](docs/modules/postgres.md#options)\n") == "[pg](collection/postgres_module.rst)\n"
    assert site(repo, "[all](docs/modules/index.md)\n") == "[all](collection/index.rst)\n"
    write(repo / "docs" / "man" / "postgres.md", "See [pg](../modules/postgres.md).\n")
    lay_out(repo, repo.parent / "src", REPOSITORY)
    manual = (repo.parent / "src" / "docs" / "man" / "postgres.md").read_text(encoding="utf-8")
    assert manual == "See [pg](../../collection/postgres_module.rst).\n"


def test_the_markdown_index_becomes_the_site_index(repo: Path) -> None:
    write(repo / "docs" / "index.md", "# Docs\n")
    assert site(repo, "[docs](docs/index.md)\n") == "[docs](index.rst)\n"


def test_directories_and_other_markdown_files_link_to_the_repository(repo: Path) -> None:
    text = "[inv](examples/inventory/) and [rules](docs/dev/rules.md#p5)\n"
    assert site(repo, text) == (
        f"[inv]({REPOSITORY}/tree/main/examples/inventory) and [rules]({REPOSITORY}/blob/main/docs/dev/rules.md#p5)\n"
    )


def test_linked_files_are_copied_beside_the_page(repo: Path) -> None:
    """A linked file (and an image) keeps its link and is copied, so that Sphinx serves it as a download."""
    text = "[demo](examples/demo.yml) ![img](COPYING) [license](COPYING)\n"
    assert site(repo, text) == text
    source = repo.parent / "src"
    assert (source / "examples" / "demo.yml").read_text(encoding="utf-8") == "---\n"
    assert (source / "COPYING").is_file()
    assert not (source / "examples" / "inventory").exists()


def test_a_link_whose_text_is_code_is_mapped(repo: Path) -> None:
    """`[`examples/inventory/`](examples/inventory/)`: the code span is the link's text, the link is still mapped."""
    text = "See [`examples/inventory/`](examples/inventory/) and [`pg`](docs/modules/postgres.md).\n"
    assert site(repo, text) == (
        f"See [`examples/inventory/`]({REPOSITORY}/tree/main/examples/inventory) and "
        "[`pg`](collection/postgres_module.rst).\n"
    )


def test_code_is_left_alone(repo: Path) -> None:
    text = "`[x](missing.md)` and\n```md\n[y](missing.md)\n```\n[pg](docs/modules/postgres.md)\n"
    assert (
        site(repo, text) == "`[x](missing.md)` and\n```md\n[y](missing.md)\n```\n[pg](collection/postgres_module.rst)\n"
    )


@pytest.mark.parametrize(
    ("link", "message"),
    [
        ("docs/missing.md", "README.md:2: link to docs/missing.md: docs/missing.md does not exist"),
        ("../outside.md", "README.md:2: link to ../outside.md leaves the repository"),
        ("docs/modules/redis.md", "README.md:2: link to docs/modules/redis.md: antsibull-docs wrote no page"),
    ],
)
def test_a_link_to_nothing_fails_naming_the_page_and_line(repo: Path, link: str, message: str) -> None:
    write(repo / "docs" / "modules" / "redis.md", "# redis\n")
    with pytest.raises(SiteSourceError, match=re.escape(message)):
        site(repo, f"# R\n[x]({link})\n")


def test_the_inputs_digest_follows_the_documentation_and_not_the_caches(tmp_path: Path) -> None:
    """The site is rebuilt when a module's documentation changes, and not for a compiled file."""
    root = tmp_path
    write(root / "plugins" / "modules" / "postgres.yml", "DOCUMENTATION: {}\n")
    first = docsite.inputs_digest(root)
    write(root / "plugins" / "modules" / "__pycache__" / "postgres.cpython-313.pyc", "x")
    assert docsite.inputs_digest(root) == first
    write(root / "plugins" / "modules" / "postgres.yml", "DOCUMENTATION: {short_description: x}\n")
    assert docsite.inputs_digest(root) != first
