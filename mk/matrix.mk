# Supported ansible-core versions (config/ansible_core_versions.txt; README "Supported ansible-core versions").
# `make test` runs everything on the newest (the dev venv); this target runs the others. PY, BIN come from the
# Makefile.
.PHONY: test-matrix

test-matrix: venv ## sanity + unit on every older supported ansible-core, module integration on the oldest (venvs in .cache/matrix)
	@bash scripts/test-matrix.sh
