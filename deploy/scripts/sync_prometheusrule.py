"""Write k8s/base/prometheusrule.yaml from deploy/prometheus/rules/extractor.rules.yml.

The rules file is the one source of the alert expressions: docker-compose's Prometheus loads it as
it is, and the Prometheus Operator gets the same text as the ``spec`` of a PrometheusRule. The text
is embedded verbatim (comments and block scalars kept), so the two cannot drift apart; the tests
run this with ``--check`` and ``promtool check rules`` on both.

    python deploy/scripts/sync_prometheusrule.py          # rewrite the PrometheusRule
    python deploy/scripts/sync_prometheusrule.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "deploy" / "prometheus" / "rules" / "extractor.rules.yml"
PROMETHEUS_RULE = REPO / "k8s" / "base" / "prometheusrule.yaml"

HEADER = """\
# GENERATED from deploy/prometheus/rules/extractor.rules.yml by `make k8s-rules`; edit that file.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: extractor
spec:
"""


def render(rules_text: str) -> str:
    """The PrometheusRule manifest whose ``spec`` is the rules file from its ``groups:`` line on."""
    lines = rules_text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("groups:")), None)
    if start is None:
        raise ValueError(f"{RULES} has no top-level 'groups:'")
    body = "\n".join(f"  {line}" if line.strip() else "" for line in lines[start:])
    return HEADER + body + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the PrometheusRule is out of date")
    args = parser.parse_args(argv)
    expected = render(RULES.read_text(encoding="utf-8"))
    current = PROMETHEUS_RULE.read_text(encoding="utf-8") if PROMETHEUS_RULE.exists() else ""
    if args.check:
        if current != expected:
            print(f"{PROMETHEUS_RULE} is out of date: run `make k8s-rules`", file=sys.stderr)
            return 1
        return 0
    if current != expected:
        PROMETHEUS_RULE.write_text(expected, encoding="utf-8")
        print(f"wrote {PROMETHEUS_RULE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
