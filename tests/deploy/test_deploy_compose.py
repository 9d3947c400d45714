"""docker-compose.yml and the Grafana files it mounts, without a Docker engine.

``docker-compose config`` (Debian's docker-compose 1.29, which validates against the Compose
schema; ``.ci/run`` installs it) parses the file with and without the ``gpu`` profile; it skips with
that message when missing. The rest reads the YAML and JSON directly: the services and what they
mount, the GPU reservation, the Grafana data source and the dashboard's panels, each of whose
queries names only metrics the service exports (a real Prometheus runs them in
test_prometheus_scrape.py).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_prometheus_config import metric_names, referenced_metrics

from support.paths import REPO

pytestmark = pytest.mark.timeout(60)

COMPOSE = REPO / "docker-compose.yml"
GRAFANA = REPO / "deploy" / "grafana"
DASHBOARD = GRAFANA / "dashboards" / "extractor.json"
DATASOURCE_UID = "prometheus"

# The panels the issue asks for, by title, with a metric each must query.
REQUIRED_PANELS = {
    "Request rate by outcome": "extract_requests_total",
    "Latency p50 / p95 / p99 (extraction endpoints)": "extract_request_duration_seconds_bucket",
    "Errors by code": "extract_errors_total",
    "Batch size per backend": "extract_batch_documents_sum",
    "Queue depth per backend": "extract_queue_depth",
    "Inference time per backend": "extract_inference_duration_seconds_bucket",
}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def docker_compose_config(*args: str) -> dict[str, Any]:
    """The file as docker-compose resolves it (anchors merged, paths made absolute), after validation."""
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose not found: install Debian's docker-compose package (.ci/run does)")
    result = subprocess.run(
        [binary, "--project-directory", str(REPO), "-f", str(COMPOSE), *args, "config"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return yaml.safe_load(result.stdout)


@pytest.mark.parametrize("profile", [[], ["--profile", "gpu"]], ids=["default", "gpu"])
def test_docker_compose_validates_and_resolves_the_file(profile: list[str]) -> None:
    resolved = docker_compose_config(*profile)
    services = resolved["services"]
    assert set(services) == {"extractor", "extractor-gpu", "prometheus", "grafana"}
    assert services["extractor-gpu"]["profiles"] == ["gpu"]
    for name in ("extractor", "extractor-gpu"):  # the hardening anchor was merged in
        assert services[name]["read_only"] is True and services[name]["cap_drop"] == ["ALL"]
    assert services["extractor-gpu"]["deploy"]["resources"]["reservations"]["devices"][0]["driver"] == "nvidia"


def test_docker_compose_rejects_an_unknown_option(tmp_path: Path) -> None:
    """The validation is live: one misspelt key fails it."""
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose not found: install Debian's docker-compose package (.ci/run does)")
    bad = tmp_path / "docker-compose.yml"
    bad.write_text(COMPOSE.read_text(encoding="utf-8").replace("stop_grace_period:", "stop_grace_periods:", 1))
    result = subprocess.run(
        ["docker-compose", "-f", str(bad), "config", "-q"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode != 0 and "stop_grace_periods" in result.stderr


def test_the_services_build_the_dockerfile_targets_hardened(compose: dict[str, Any]) -> None:
    services = compose["services"]
    stages = set(re.findall(r"^FROM \S+ AS (\S+)$", (REPO / "Dockerfile").read_text(), re.MULTILINE))
    for name, target in (("extractor", "cpu"), ("extractor-gpu", "gpu")):
        service = services[name]
        assert service["build"] == {"context": ".", "target": target} and target in stages
        assert service["image"] == f"extraction-service:{target}"
        assert service["read_only"] is True and service["tmpfs"] == ["/tmp"]
        assert service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
        assert int(service["environment"]["EXTRACT_GRACEFUL_SHUTDOWN_TIMEOUT_S"]) < int(
            service["stop_grace_period"].rstrip("s")
        )
    assert "profiles" not in services["extractor"]


def test_the_gpu_profile_reserves_one_nvidia_gpu_for_one_worker(compose: dict[str, Any]) -> None:
    service = compose["services"]["extractor-gpu"]
    assert service["profiles"] == ["gpu"]
    (device,) = service["deploy"]["resources"]["reservations"]["devices"]
    assert device == {"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}
    assert service["environment"]["EXTRACT_WORKERS"] == "1"
    assert json.loads(service["environment"]["EXTRACT_EXECUTION_PROVIDERS"])[0] == "CUDAExecutionProvider"


def test_every_mounted_file_is_in_the_repo_and_the_images_are_pinned(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        if "image" in service and "build" not in service:
            tag = service["image"].partition(":")[2]
            assert re.fullmatch(r"v?\d+\.\d+\.\d+", tag), (name, service["image"])
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (REPO / source).exists(), (name, source)
                assert volume.endswith(":ro"), (name, volume)
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in compose["services"]["prometheus"]["volumes"]}
    assert mounts["/etc/prometheus"] == "./deploy/prometheus"
    assert "--config.file=/etc/prometheus/prometheus.yml" in compose["services"]["prometheus"]["command"]


def test_grafana_provisions_the_prometheus_data_source_and_the_dashboards_folder(compose: dict[str, Any]) -> None:
    grafana = compose["services"]["grafana"]
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in grafana["volumes"]}
    assert mounts["/etc/grafana/provisioning"] == "./deploy/grafana/provisioning"
    datasources = yaml.safe_load((GRAFANA / "provisioning" / "datasources" / "prometheus.yml").read_text())
    (source,) = datasources["datasources"]
    assert (source["type"], source["uid"], source["url"]) == ("prometheus", DATASOURCE_UID, "http://prometheus:9090")
    assert "prometheus" in compose["services"]
    providers = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "extractor.yml").read_text())
    (provider,) = providers["providers"]
    assert mounts[provider["options"]["path"]] == "./deploy/grafana/dashboards"
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{provider['options']['path']}/{DASHBOARD.name}"


def panel_queries(dashboard: dict[str, Any]) -> dict[str, list[str]]:
    return {panel["title"]: [target["expr"] for target in panel["targets"]] for panel in dashboard["panels"]}


def test_the_dashboard_has_the_required_panels(dashboard: dict[str, Any]) -> None:
    queries = panel_queries(dashboard)
    for title, metric in REQUIRED_PANELS.items():
        assert title in queries, title
        assert any(metric in referenced_metrics(expr) for expr in queries[title]), (title, metric)
    latency = " ".join(queries["Latency p50 / p95 / p99 (extraction endpoints)"])
    for quantile in ("0.5", "0.95", "0.99"):
        assert f"histogram_quantile({quantile}," in latency
    assert "code" in queries["Errors by code"][0] and "backend" in queries["Inference time per backend"][0]


def test_every_dashboard_query_names_exported_metrics_and_the_job_variable(dashboard: dict[str, Any]) -> None:
    exported = metric_names()
    for title, expressions in panel_queries(dashboard).items():
        for expr in expressions:
            assert referenced_metrics(expr) <= exported, (title, referenced_metrics(expr) - exported)
            assert 'job=~"$job"' in expr, (title, expr)
            assert expr.count("(") == expr.count(")"), (title, expr)


def test_the_dashboard_is_well_formed(dashboard: dict[str, Any]) -> None:
    assert dashboard["uid"] and dashboard["title"] == "Extraction service"
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    assert variables["datasource"]["query"] == "prometheus"
    assert "label_values(extract_requests_total, job)" in variables["job"]["definition"]
    cells: set[tuple[int, int]] = set()
    for panel in dashboard["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["targets"] and panel["description"], panel["title"]
        position = panel["gridPos"]
        assert position["x"] + position["w"] <= 24, panel["title"]
        covered = {
            (x, y)
            for x in range(position["x"], position["x"] + position["w"])
            for y in range(position["y"], position["y"] + position["h"])
        }
        assert not covered & cells, f"{panel['title']} overlaps another panel"
        cells |= covered
