"""``python -m service soak`` end to end on three fixture pages, and how it reads growth from a curve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.commands.soak import growth_per_thousand
from service.settings import Settings

from support.live_server import LiveServer
from support.paths import FIXTURES_DIR

pytestmark = pytest.mark.timeout(120)

PAGES = FIXTURES_DIR / "eval" / "wcxb"  # three raw pages, .html and .html.gz


def test_the_soak_command_samples_the_servers_memory_every_window_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "soak.json"
    argv = ["soak", "--data", str(PAGES), "--requests", "7", "--sample-every", "3", "--concurrency", "2"]
    assert main([*argv, "--backend", "boilerpipe", "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    assert [s["requests"] for s in written["samples"]] == [0, 3, 6, 7]  # before the first request, then each window
    assert all(s["rss_mb"] > 10 for s in written["samples"])  # a live Python server's memory, read from /proc
    assert written["statuses"] == {"200": 7}
    assert written["warm_up_requests"] == 3  # one pass over the three pages
    assert isinstance(written["growth_mb_per_1000"], float)
    assert isinstance(written["growth_second_half_mb_per_1000"], float)  # samples at 3, 6 and 7
    printed = capsys.readouterr().out
    assert "RSS MB" in printed
    assert "per 1,000 requests" in printed


def test_a_server_given_by_url_reports_its_memory_through_metrics(tmp_path: Path) -> None:
    out = tmp_path / "soak.json"
    settings = Settings(enabled_backends=["boilerpipe"], default_backend="boilerpipe")
    with LiveServer(settings) as server:
        argv = ["soak", "--url", server.url, "--data", str(PAGES), "--requests", "4", "--sample-every", "2"]
        assert main([*argv, "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    assert [s["requests"] for s in written["samples"]] == [0, 2, 4]
    assert all(s["rss_mb"] > 10 for s in written["samples"])  # process_resident_memory_bytes of this process
    assert written["statuses"] == {"200": 4}


def test_growth_is_the_slope_after_the_first_pass_over_the_pages() -> None:
    samples = [{"requests": 0, "rss_mb": 100.0}, {"requests": 500, "rss_mb": 300.0}]  # a big page: not growth
    samples += [{"requests": n, "rss_mb": 300.0 + n / 500} for n in (1000, 1500, 2000)]
    assert growth_per_thousand(samples, warm_up=1000) == pytest.approx(2.0)
    assert growth_per_thousand(samples, warm_up=1500) is None  # two points: one window's noise, no trend
    assert growth_per_thousand(samples, warm_up=2000) is None  # one point after the warm-up says nothing
