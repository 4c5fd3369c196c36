"""The docs site in a real browser (issue 27): Debian's chromium, headless, loads pages of the site that
`make docs-site` built from an HTTP server on 127.0.0.1; the tests read the DOM it rendered and the requests it made."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import yaml

from tests.docsite.browser import Chromium, SiteServer
from tests.docsite.site_pages import ROOT, ansible_doc, parse

MODULE = "postgres"  # the module page the tests open: a generated module with options, aliases and return values


def assert_assets_served(requests: List[Tuple[str, int]], page: str) -> None:
    """The browser fetched the page's stylesheets and scripts, and the server had everything it asked for."""
    missing = [(path, status) for path, status in requests if status >= 400 and path != "/favicon.ico"]
    assert not missing, f"{page}: the browser asked for files the site does not have: {missing}"
    fetched = [path for path, _status in requests]
    assert any(path.endswith(".css") for path in fetched), f"{page}: the browser loaded no stylesheet: {fetched}"
    assert any(path.endswith(".js") for path in fetched), f"{page}: the browser loaded no script: {fetched}"


def modules_of_the_repository() -> set[str]:
    return {path.stem for path in (ROOT / "plugins" / "modules").glob("*.py") if path.stem != "__init__"}


def test_the_module_index_lists_every_module_in_chromium(site_server: SiteServer, chromium: Chromium) -> None:
    """P5: the docs site, built by one command (`make docs-site`, run by the fixture), renders in a real browser:
    the collection's index lists a link to the page of every module of plugins/modules/ (no more, no less), of the
    inventory plugin and of the role, and every file the page asks for is served."""
    site_server.take_requests()
    page = parse(chromium.dump_dom(site_server.url("collection/index.html")))
    assert_assets_served(site_server.take_requests(), "collection/index.html")
    assert any("Nubes.Cloud" in heading or "nubes.cloud" in heading for heading in page.h1), page.h1
    targets = page.link_targets()
    listed = {target[: -len("_module.html")] for target in targets if target.endswith("_module.html")}
    assert listed == modules_of_the_repository()
    assert "nubes_inventory.html" in targets
    assert "component_role.html" in targets
    for target in targets & {"nubes_inventory.html", "component_role.html", f"{MODULE}_module.html"}:
        assert (ROOT / "build" / "site" / "collection" / target).is_file(), target


def test_a_module_page_shows_its_options_table_in_chromium(site_server: SiteServer, chromium: Chromium) -> None:
    """P5: the page of nubes.cloud.postgres, opened in headless chromium, shows the module's title, an options table
    with a row for every option `ansible-doc` documents (and its aliases), and a table of its return values, all
    from the module's own DOCUMENTATION and RETURN; every file the page asks for is served."""
    url = f"collection/{MODULE}_module.html"
    site_server.take_requests()
    page = parse(chromium.dump_dom(site_server.url(url)))
    assert_assets_served(site_server.take_requests(), url)
    assert any(f"nubes.cloud.{MODULE} module" in heading for heading in page.h1), page.h1
    doc = ansible_doc("module", f"nubes.cloud.{MODULE}")
    options = doc["doc"]["options"]
    aliases = {alias for option in options.values() for alias in option.get("aliases", [])}
    assert page.option_tables >= 2, "the page has no options table and return values table"
    assert page.option_names() == set(options) | aliases
    assert page.option_names("return-") == set(doc["return"])


def test_the_role_page_shows_its_argument_spec_in_chromium(site_server: SiteServer, chromium: Chromium) -> None:
    """C18, P5: the role nubes.cloud.component's page, opened in headless chromium, documents the options of its
    entry point `main` as roles/component/meta/argument_specs.yml declares them (the argument spec the role
    validates its input with), each in a row of the options table."""
    site_server.take_requests()
    page = parse(chromium.dump_dom(site_server.url("collection/component_role.html")))
    assert_assets_served(site_server.take_requests(), "collection/component_role.html")
    spec_file = Path(ROOT / "roles" / "component" / "meta" / "argument_specs.yml")
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))["argument_specs"]["main"]["options"]
    assert page.option_names("parameter-main--") == set(spec)
