# Generator targets (generator/README.md). Included by the Makefile, which defines PY, BIN, PYTEST.
.PHONY: generate check-drift docs-generate bench-generator lint-examples

BENCH_TARGETS += bench-generator
MYPY_PATHS += tests/unit/generator tests/integration/modules bench/generator_bench.py

generate: venv ## fetch specs from a freshly started in-process emulator, then render modules and docs
	@$(PY) -m generator all --emulator

check-drift: venv ## fail on drift: re-fetch from an in-process emulator, re-render, compare with the files on disk
	@$(PY) -m generator check --emulator

docs-generate: venv ## render the module pages, MAN pages and index from specs/*.yml (no API access)
	@$(PY) -m generator render

bench-generator: venv ## time a full render + check of every service (target < 3 s)
	@$(PY) bench/generator_bench.py

lint: lint-examples
lint-examples: venv ## ansible-lint on the EXAMPLES of every generated module (issue 27; part of `make lint`)
	@PY=$(PY) bash scripts/lint-examples.sh
