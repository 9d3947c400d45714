"""A real Prometheus server scrapes the running service: the request counter rises after requests,
the alert rules load and evaluate, and every query of the Grafana dashboard is valid PromQL.

Debian's ``prometheus`` binary (``.ci/run`` installs the package) runs on 127.0.0.1 with a generated
config scraping a real uvicorn (:class:`LiveServer`) every 0.5 s, and is stopped at the end; without
the binary the test skips with that message. Every wait is bounded.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from service.commands.pages import free_port
from service.settings import Settings

from support.live_server import LiveServer
from support.pages import ARTICLE
from support.paths import REPO

pytestmark = pytest.mark.timeout(90)

RULES = REPO / "deploy" / "prometheus" / "rules" / "extractor.rules.yml"
DASHBOARD = REPO / "deploy" / "grafana" / "dashboards" / "extractor.json"
JOB = "extractor"
WAIT_S = 30.0
REQUESTS = 5


def wait_for(what: str, probe: Callable[[], Any], timeout_s: float = WAIT_S) -> Any:
    """``probe()`` until it returns something truthy; fail with ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            result = probe()
        except httpx.HTTPError:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.2)


class PrometheusServer:
    """Debian's ``prometheus`` on 127.0.0.1, scraping one target, with the repo's alert rules."""

    def __init__(self, binary: str, target: str, workdir: Path) -> None:
        self.port = free_port()
        config = {
            "global": {"scrape_interval": "500ms", "scrape_timeout": "400ms", "evaluation_interval": "500ms"},
            "rule_files": [str(RULES)],
            "scrape_configs": [{"job_name": JOB, "static_configs": [{"targets": [target]}]}],
        }
        config_path = workdir / "prometheus.yml"
        config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.log = workdir / "prometheus.log"
        self.argv = [
            binary,
            f"--config.file={config_path}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]
        self.api = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=5.0)
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PrometheusServer:
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT)
        wait_for("Prometheus to be ready", self._ready)
        return self

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            pytest.fail(f"prometheus exited with {self.process.returncode}: {self.log.read_text()[-2000:]}")
        return self.api.get("/-/ready").status_code == 200

    def __exit__(self, *_: object) -> None:
        self.api.close()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def query(self, expr: str) -> list[dict[str, Any]]:
        response = self.api.get("/api/v1/query", params={"query": expr})
        body = response.json()
        assert response.status_code == 200 and body["status"] == "success", (expr, body)
        return body["data"]["result"]

    def scalar(self, expr: str) -> float | None:
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None


@pytest.fixture(scope="module")
def service() -> Iterator[LiveServer]:
    with LiveServer(Settings()) as server:
        yield server


@pytest.fixture(scope="module")
def prometheus(service: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrometheusServer]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not found: install Debian's prometheus package (.ci/run does)")
    with PrometheusServer(binary, f"127.0.0.1:{service.port}", tmp_path_factory.mktemp("prometheus")) as server:
        wait_for("the service's target to be up", lambda: server.scalar(f'up{{job="{JOB}"}}') == 1.0)
        yield server


def test_the_request_counter_rises_after_requests(service: LiveServer, prometheus: PrometheusServer) -> None:
    # `or vector(0)`: a label set is created by its first request when the app did not initialise it.
    counter = f'sum(extract_requests_total{{job="{JOB}",endpoint="POST /extract",outcome="ok"}}) or vector(0)'
    with httpx.Client(base_url=service.url, timeout=30.0) as client:

        def extract() -> None:
            response = client.post("/extract", json={"html": ARTICLE})
            assert response.status_code == 200, response.text

        extract()  # the series exists, and has been scraped, before the requests that are counted
        start = wait_for("the first request to be scraped", lambda: (value := prometheus.scalar(counter)) and value)
        for _ in range(REQUESTS):
            extract()
    after = wait_for(
        f"the counter to rise by {REQUESTS}",
        lambda: (value := prometheus.scalar(counter)) is not None and value >= start + REQUESTS and value,
    )
    assert after == start + REQUESTS  # nothing else asked for extraction
    rate = f'sum(rate(extract_requests_total{{job="{JOB}",endpoint="POST /extract",outcome="ok"}}[1m]))'
    wait_for("the request rate to show", lambda: (value := prometheus.scalar(rate)) is not None and value > 0)


def test_the_alert_rules_load_and_evaluate_without_error(prometheus: PrometheusServer) -> None:
    def evaluated() -> list[dict[str, Any]] | None:
        groups = prometheus.api.get("/api/v1/rules").json()["data"]["groups"]
        rules = [rule for group in groups for rule in group["rules"]]
        return rules if rules and all(rule["health"] == "ok" for rule in rules) else None

    rules = wait_for("every rule to be evaluated", evaluated)
    expected = {rule["alert"] for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]}
    assert {rule["name"] for rule in rules} == expected
    assert all(rule["state"] == "inactive" for rule in rules), [(r["name"], r["state"]) for r in rules]


def dashboard_queries() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel["targets"]]


def grafana_to_promql(expr: str) -> str:
    """Grafana's variables as Grafana would expand them for this job over a short range."""
    return expr.replace("$__rate_interval", "1m").replace('job=~"$job"', f'job=~"{JOB}"')


def test_every_dashboard_query_is_valid_promql_and_the_request_rate_has_data(
    service: LiveServer, prometheus: PrometheusServer
) -> None:
    with httpx.Client(base_url=service.url, timeout=30.0) as client:
        assert client.post("/extract", json={"html": ARTICLE}).status_code == 200
    for title, expr in dashboard_queries():
        prometheus.query(grafana_to_promql(expr))  # asserts Prometheus accepted it
        assert "$" not in grafana_to_promql(expr), (title, expr)
    (request_rate,) = [expr for title, expr in dashboard_queries() if title == "Request rate by outcome"]
    wait_for(
        "the dashboard's request rate to show ok requests",
        lambda: any(
            item["metric"].get("outcome") == "ok" and float(item["value"][1]) > 0
            for item in prometheus.query(grafana_to_promql(request_rate))
        ),
    )
