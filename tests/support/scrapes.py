"""A Prometheus text exposition read into its samples, as the tests that scrape /metrics read it."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(text: str) -> Samples:
    """Every sample of a Prometheus text exposition, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def label_values(samples: Samples, name: str, label: str) -> set[str]:
    return {dict(labels)[label] for (sample, labels), _ in samples.items() if sample == name and label in dict(labels)}
