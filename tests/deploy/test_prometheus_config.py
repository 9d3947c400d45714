"""Prometheus configuration: the compose scrape config, the alert rules and their unit tests, checked
by Debian's ``promtool``; the PrometheusRule kept in step with the rules file; every metric an alert
names is one the service exports.

``promtool`` comes from Debian's ``prometheus`` package (``.ci/run`` installs it); without it those
checks skip with that message and the pure-Python checks still run.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from prometheus_client import CollectorRegistry

from service.metrics import Metrics

from support.paths import REPO

pytestmark = pytest.mark.timeout(60)

PROMETHEUS_DIR = REPO / "deploy" / "prometheus"
RULES = PROMETHEUS_DIR / "rules" / "extractor.rules.yml"
RULES_TESTS = PROMETHEUS_DIR / "rules" / "extractor.rules.test.yml"
PROMETHEUS_RULE = REPO / "k8s" / "base" / "prometheusrule.yaml"
SYNC_SCRIPT = REPO / "deploy" / "scripts" / "sync_prometheusrule.py"
ALERTS = {"ExtractorHighErrorRatio", "ExtractorHighLatencyP99", "ExtractorQueueSaturated", "ExtractorShedding"}
_SERVICE_METRIC = re.compile(r"\bextract_[a-z_]+\b")


def metric_names() -> set[str]:
    """Every series name the service can export: counters with ``_total``, histograms' three series."""
    names: set[str] = set()
    for family in Metrics(CollectorRegistry()).registry.collect():
        if family.type == "counter":
            names.add(f"{family.name}_total")
        elif family.type == "histogram":
            names.update(f"{family.name}{suffix}" for suffix in ("_bucket", "_sum", "_count"))
        else:
            names.add(family.name)
    return names


def referenced_metrics(expr: str) -> set[str]:
    return set(_SERVICE_METRIC.findall(expr))


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.skip("promtool not found: install Debian's prometheus package (.ci/run does)")
    return path


def run_promtool(*args: str | Path) -> str:
    result = subprocess.run(
        [promtool(), *map(str, args)], capture_output=True, text=True, timeout=30, check=False, cwd=REPO
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def rule_groups(path: Path) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]


def load_sync_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_prometheusrule", SYNC_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_promtool_checks_the_compose_config_and_the_rules_it_loads() -> None:
    output = run_promtool("check", "config", PROMETHEUS_DIR / "prometheus.yml")
    assert "SUCCESS" in output and "1 rule files found" in output


def test_promtool_checks_the_rules() -> None:
    assert f"SUCCESS: {len(ALERTS)} rules found" in run_promtool("check", "rules", RULES)


def test_promtool_unit_tests_make_every_alert_fire() -> None:
    run_promtool("test", "rules", RULES_TESTS)
    tested = {
        case["alertname"]
        for test in yaml.safe_load(RULES_TESTS.read_text(encoding="utf-8"))["tests"]
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert tested == ALERTS


def test_the_alerts_are_the_expected_ones_with_severity_and_summary() -> None:
    rules = [rule for group in rule_groups(RULES) for rule in group["rules"]]
    assert {rule["alert"] for rule in rules} == ALERTS
    for rule in rules:
        assert rule["labels"]["severity"] in {"page", "warn"}, rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule["alert"]
        assert re.fullmatch(r"\d+m", rule["for"]), rule["alert"]


def test_every_metric_an_alert_names_is_exported_by_the_service() -> None:
    exported = metric_names()
    for group in rule_groups(RULES):
        for rule in group["rules"]:
            named = referenced_metrics(rule["expr"])
            assert named, rule["alert"]
            assert named <= exported, (rule["alert"], named - exported)


def test_the_prometheus_rule_is_generated_from_the_rules_file() -> None:
    sync = load_sync_script()
    assert PROMETHEUS_RULE.read_text(encoding="utf-8") == sync.render(RULES.read_text(encoding="utf-8")), (
        "k8s/base/prometheusrule.yaml is out of date: run `make k8s-rules`"
    )
    manifest = yaml.safe_load(PROMETHEUS_RULE.read_text(encoding="utf-8"))
    assert (manifest["apiVersion"], manifest["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert manifest["spec"]["groups"] == rule_groups(RULES)


def test_the_sync_script_notices_a_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sync = load_sync_script()
    stale = tmp_path / "prometheusrule.yaml"
    stale.write_text(PROMETHEUS_RULE.read_text(encoding="utf-8").replace("> 0.01", "> 0.02"), encoding="utf-8")
    monkeypatch.setattr(sync, "PROMETHEUS_RULE", stale)
    assert sync.main(["--check"]) == 1
    assert sync.main([]) == 0
    assert sync.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == PROMETHEUS_RULE.read_text(encoding="utf-8")


def test_promtool_rejects_a_broken_expression(tmp_path: Path) -> None:
    """The check is live: the same file with one expression broken fails."""
    broken = tmp_path / "broken.rules.yml"
    broken.write_text(RULES.read_text(encoding="utf-8").replace("> 24", "> > 24"), encoding="utf-8")
    result = subprocess.run(
        [promtool(), "check", "rules", str(broken)], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode != 0
    assert "ExtractorQueueSaturated" in result.stdout + result.stderr or "parse error" in result.stdout + result.stderr


def test_the_compose_scrape_config_finds_every_replica_of_both_variants() -> None:
    config = yaml.safe_load((PROMETHEUS_DIR / "prometheus.yml").read_text(encoding="utf-8"))
    (job,) = [job for job in config["scrape_configs"] if job["job_name"] == "extractor"]
    assert job["metrics_path"] == "/metrics"
    (discovery,) = job["dns_sd_configs"]
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    built = {name for name, service in compose["services"].items() if "build" in service}
    assert set(discovery["names"]) == built
    assert discovery["port"] == 8000
