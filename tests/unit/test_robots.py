"""robots.txt as RFC 9309 reads the host's answers: rules obeyed for our product token, a missing file allows
everything, a file the host cannot serve allows nothing, each host asked once."""

from __future__ import annotations

import asyncio

import pytest

from service.fetching.errors import RobotsDisallowed, UpstreamStatus, UpstreamTimeout
from service.fetching.robots import RobotsCache

ROBOTS = b"User-agent: *\nDisallow: /private/\n\nUser-agent: main-content-extractor\nDisallow: /drafts/\n"


def cache(answers: dict[str, bytes | Exception]) -> tuple[RobotsCache, list[str]]:
    asked: list[str] = []

    async def fetch_text(url: str) -> bytes:
        asked.append(url)
        answer = answers[url]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return RobotsCache(fetch_text, "main-content-extractor/1.0 (+https://example.org/bot)"), asked


def allowed(robots: RobotsCache, url: str) -> bool:
    try:
        asyncio.run(robots.check(url))
    except RobotsDisallowed:
        return False
    return True


def test_rules_for_our_product_token_are_obeyed_and_cached_per_host() -> None:
    robots, asked = cache({"https://a.test/robots.txt": ROBOTS})
    assert not allowed(robots, "https://a.test/drafts/x")  # our own group
    assert allowed(robots, "https://a.test/private/x")  # the * group is not ours once ours exists
    assert allowed(robots, "https://a.test/news")
    assert asked == ["https://a.test/robots.txt"]


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (UpstreamStatus("a.test", 404, "Not Found"), True),
        (UpstreamStatus("a.test", 503, "Unavailable"), False),
        (UpstreamTimeout("a.test did not answer"), False),
    ],
)
def test_what_the_host_answers_instead_of_a_file(error: Exception, verdict: bool) -> None:
    robots, _ = cache({"https://a.test/robots.txt": error})
    assert allowed(robots, "https://a.test/news") is verdict
