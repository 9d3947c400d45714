"""``python -m service extract URL``: an upstream that fails says so in one line and exits non-zero."""

from __future__ import annotations

import argparse
from urllib.parse import quote

import pytest

from service.commands.extract import run

from support.upstream import Upstream

pytestmark = pytest.mark.timeout(60)


def extract(url: str) -> int:
    return run(argparse.Namespace(source=url, backend="boilerpipe", format="text", charset=None))


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
