# The commands the README names. `make serve` and `make test` work on a
# fresh machine with only Python 3.11+ and make: they install what they need.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
SERVE_STAMP := $(VENV)/.installed-serve
TEST_STAMP := $(VENV)/.installed-test
WALK_STAMP := $(VENV)/.built-walk

.PHONY: install serve test test-train lint build-ext optional-build-ext deploy-check k8s-render k8s-rules crd-schemas clean

install: $(TEST_STAMP)

# One venv, two stamps; each re-runs only when pyproject.toml changes. `make serve` installs the
# package editable with its `dependencies` alone; the targets that test add the test tools, the
# peers that `python -m service eval` and `bench` compare against, and the `ray` extra (which
# brings `corpus`: pyarrow, FastWARC) for the corpus tests, on top (so `make serve` after `make test`
# installs nothing).
$(SERVE_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): $(SERVE_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,eval,ray]'
	touch $@

serve: $(SERVE_STAMP) optional-build-ext
	$(BIN)/python -m service serve

# Lint first: a change that breaks ruff, mypy or the layer contract fails CI like a failing test.
test: install lint optional-build-ext
	$(BIN)/python -m pytest -q

# The compiled block walk (service/parsing/_walk.pyx), markup reader (service/parsing/_markup.pyx),
# attribute-name scan (service/parsing/_budget.pyx),
# region-word scan (service/features/_regions.pyx), per-leaf text counts (service/features/_text_counts.pyx)
# texrex features (service/features/_texrex.pyx), Readability's scores (service/features/_candidates.pyx)
# and the page-type model's counts (service/metadata/_page_counts.pyx),
# built in place by setup.py: Cython from the `walk` extra, Lexbor's headers (the walk's) from selectolax's
# source distribution of the pinned version (downloaded once into build/). The service uses each when it
# is there and falls back to its Python twin when it is not.
$(WALK_STAMP): $(SERVE_STAMP) service/parsing/_walk.pyx service/parsing/_walk_tables.pxi service/parsing/_selectolax_version.pxi service/parsing/_lexbor_attributes.pxi service/parsing/_markup.pyx service/parsing/_budget.pyx service/features/_regions.pyx service/features/_text_counts.pyx service/features/_texrex.pyx service/features/_candidates.pyx service/metadata/_page_counts.pyx setup.py
	$(BIN)/python -m pip install --quiet -e '.[walk]'
	EXTRACT_BUILD_WALK=1 $(BIN)/python setup.py --quiet build_ext --inplace
	touch $@

build-ext: $(WALK_STAMP)

# `make serve` and `make test` build it where a C compiler is, and go on with the Python walk (warning)
# where there is none or the build fails, so a fresh machine without a compiler still serves.
optional-build-ext: $(SERVE_STAMP)
	@if command -v cc >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory build-ext || echo "warning: the compiled walk did not build; the Python walk serves" >&2; \
	else echo "note: no C compiler: the Python walk serves (make build-ext builds the compiled one)" >&2; fi

lint: install
	$(BIN)/ruff check service tests
	$(BIN)/ruff format --check service tests
	$(BIN)/mypy service
	$(BIN)/lint-imports

# The tests that need TensorFlow (export parity); `make test` skips them.
test-train: install
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m pytest -q -m train


# The deployment checks alone (part of `make test`): hadolint, docker-compose config, kustomize with the
# Kubernetes schemas, the operator's CRD schemas, KubeRay's RayJob (k8s/batch), promtool, and a real
# Prometheus scraping the service.
deploy-check: install
	$(BIN)/python -m pytest -q tests/deploy

# Print an overlay's manifests as kubectl would apply them: `make k8s-render OVERLAY=gpu`.
OVERLAY ?= cpu
k8s-render: install
	@$(BIN)/kubectl kustomize k8s/overlays/$(OVERLAY)

# Regenerate k8s/base/prometheusrule.yaml from deploy/prometheus/rules/extractor.rules.yml.
k8s-rules: install
	$(BIN)/python deploy/scripts/sync_prometheusrule.py

# The Prometheus Operator's schemas (npm) for validating ServiceMonitor and PrometheusRule; needs npm.
crd-schemas:
	cd deploy/crd-schemas && npm ci --no-audit --no-fund --loglevel=error

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache deploy/crd-schemas/node_modules build
	rm -f service/parsing/_walk.c service/parsing/_walk.*.so service/parsing/_budget.c service/parsing/_budget.*.so
