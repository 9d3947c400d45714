# The commands the README names. `make serve` and `make test` work on a
# fresh machine with only Python 3.11+ and make: they install what they need.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
SERVE_STAMP := $(VENV)/.installed-serve
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install serve test test-train lint deploy-check k8s-render k8s-rules crd-schemas clean

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

serve: $(SERVE_STAMP)
	$(BIN)/python -m service serve

# Lint first: a change that breaks ruff, mypy or the layer contract fails CI like a failing test.
test: install lint
	$(BIN)/python -m pytest -q

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
	$(BIN)/python -m pytest -q tests/test_deploy_docker.py tests/test_deploy_compose.py tests/test_deploy_k8s.py tests/test_deploy_k8s_batch.py \
		tests/test_prometheus_config.py tests/test_prometheus_scrape.py

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
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache deploy/crd-schemas/node_modules
