# The docs site (issue 27, seed rule P5). Variables PY, PYTEST_RUN, VENV come from the Makefile.
# `make docs-site` builds the HTML site into build/site/: antsibull-docs writes a page per module, plugin and role
# (their own documentation, as ansible-doc shows it), Sphinx (docsite/conf.py, myst-parser for the Markdown guides)
# builds it with warnings as errors. Its toolchain (requirements-docs.txt) goes into .venv on first use, apart from
# `make venv`. The build is skipped while none of its inputs changed (scripts/docsite.py), so `make test` (step
# docs-site-check) and `make dist` build it once. The browser tests need Debian's chromium (tests/bindep.txt, which
# .ci/run installs); `make unit` leaves them out.
UNIT_IGNORE += tests/docsite
MYPY_PATHS += scripts/docsite.py scripts/docsite_sources.py tests/docsite tests/unit/docsite

.PHONY: docs-toolchain docs-site docs-site-check

docs-toolchain: venv ## install the docs site toolchain (requirements-docs.txt: antsibull-docs, Sphinx, myst-parser) into .venv
	@VENV=$(VENV) bash scripts/docs-toolchain.sh

docs-site: docs-toolchain ## build the HTML docs site into build/site/ (antsibull-docs + Sphinx, warnings are errors; skipped while its inputs are unchanged)
	@$(PY) -m scripts.docsite

docs-site-check: docs-site ## the docs site: every internal link resolves, and headless chromium renders the module index and a module page
	@$(PYTEST_RUN) tests/docsite --durations=5
