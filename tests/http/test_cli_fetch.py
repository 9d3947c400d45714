"""``python -m service extract URL``: an upstream that fails says so in one line and exits non-zero."""

from __future__ import annotations

import argparse
import time
from urllib.parse import quote

import httpx
import pytest

from service.commands.extract import TooLarge, _read, run
from service.settings import Settings

from support.pages import ARTICLE
from support.upstream import Upstream

pytestmark = pytest.mark.timeout(60)


def extract(url: str) -> int:
    return run(argparse.Namespace(source=url, backend="boilerpipe", format="text", charset=None))


def test_a_page_that_never_ends_stops_at_the_total_timeout(upstream: Upstream) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="EXTRACT_FETCH_TOTAL_TIMEOUT_S"):
        _read(upstream.url("/endless"), Settings(fetch_total_timeout_s=1.0, fetch_connect_timeout_s=1.0))
    assert time.monotonic() - started < 10


def test_a_page_that_decodes_past_the_fetch_limit_stops_there(upstream: Upstream) -> None:
    """/bomb: 5 MB of gzip Content-Encoding; the limit is on the decoded bytes."""
    with pytest.raises(TooLarge, match="EXTRACT_FETCH_MAX_BYTES"):
        _read(upstream.url("/bomb"), Settings(fetch_max_bytes=1_000_000))


def test_a_host_name_idna_cannot_encode_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://" + "a" * 64 + ".example/"
    assert extract(url) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot read {url}: ")


def test_an_upstream_404_is_an_error(upstream: Upstream, capsys: pytest.CaptureFixture[str]) -> None:
    url = upstream.url("/missing")
    assert extract(url) == 2
    assert capsys.readouterr().err == f"error: {url} answered HTTP 404\n"


@pytest.mark.parametrize("location", ["data:text/html,x", "http:\\\\127.0.0.1\\"])
def test_a_malformed_redirect_is_an_error(
    upstream: Upstream, capsys: pytest.CaptureFixture[str], location: str
) -> None:
    url = upstream.url(f"/to?location={quote(location)}")
    assert extract(url) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot read {url}: ")


@pytest.mark.parametrize("how", ["gzip-members", "raw-deflate"])
def test_a_compressed_page_is_read_whole(upstream: Upstream, how: str) -> None:
    assert _read(upstream.url(f"/encoded?as={how}"), Settings())[0] == ARTICLE.encode()


def test_a_compressed_page_cut_short_is_an_error(upstream: Upstream, capsys: pytest.CaptureFixture[str]) -> None:
    url = upstream.url("/encoded?as=gzip-cut")
    assert extract(url) == 2  # not half the page, extracted as if it were whole
    assert capsys.readouterr().err.startswith(f"error: cannot read {url}: the gzip body ends early")


def test_the_read_timeout_is_the_fetchers_setting(upstream: Upstream) -> None:
    """/slow answers only at teardown: the read timeout ends the wait (a hard-coded 20 s did before)."""
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        _read(upstream.url("/slow"), Settings(fetch_read_timeout_s=0.5, fetch_connect_timeout_s=0.5))
    assert time.monotonic() - started < 10


def test_a_response_that_is_no_page_by_its_content_type_gets_the_api_code(
    upstream: Upstream, capsys: pytest.CaptureFixture[str]
) -> None:
    assert extract(upstream.url("/image")) == 2
    assert capsys.readouterr().err.startswith("error: upstream_not_html: ")
