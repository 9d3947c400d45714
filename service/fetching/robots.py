"""``respect_robots``: robots.txt read through the same safe fetcher, parsed by the standard library, cached per host.

RFC 9309's reading of the answers: a robots.txt the host does not have (4xx)
allows everything; one it cannot serve (5xx, a network error, a timeout) allows
nothing, as the RFC says to assume. Each host's rules are kept for
:data:`ROBOTS_TTL_S`, at most :data:`MAX_HOSTS` hosts (the oldest go first).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from service.fetching.addresses import parse_target
from service.fetching.errors import FetchError, InvalidUrl, RobotsDisallowed, UpstreamStatus, UrlNotAllowed

ROBOTS_TTL_S = 3600.0
MAX_HOSTS = 1024
CLIENT_ERRORS = range(400, 500)
DISALLOW_ALL = ("User-agent: *", "Disallow: /")

# url -> the body of robots.txt at that URL (any media type), or a FetchError
FetchText = Callable[[str], Awaitable[bytes]]


class RobotsCache:
    """The robots.txt rules of each host asked about, fetched on first use."""

    def __init__(self, fetch_text: FetchText, user_agent: str) -> None:
        self._fetch_text = fetch_text
        self._agent = user_agent.split("/", 1)[0].strip() or "*"  # the product token is what robots.txt names
        self._rules: OrderedDict[str, tuple[float, RobotFileParser]] = OrderedDict()

    async def check(self, url: str) -> None:
        """:class:`RobotsDisallowed` where the host's robots.txt refuses ``url`` to our user agent.

        ``url`` is read first as the fetch would read it: one that is no URL or that the fetcher refuses
        gets that answer (:class:`InvalidUrl`, :class:`UrlNotAllowed`), not robots.txt's.
        """
        parse_target(url)
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        rules = await self._rules_of(origin)
        if not rules.can_fetch(self._agent, url):
            raise RobotsDisallowed(f"{origin}/robots.txt disallows {url} for {self._agent}")

    async def _rules_of(self, origin: str) -> RobotFileParser:
        cached = self._rules.get(origin)
        if cached is not None and cached[0] > time.monotonic():
            return cached[1]
        rules = RobotFileParser(f"{origin}/robots.txt")
        try:
            body = await self._fetch_text(f"{origin}/robots.txt")
            rules.parse(body.decode("utf-8", "replace").splitlines())
        except UpstreamStatus as error:
            rules.parse([] if error.status in CLIENT_ERRORS else DISALLOW_ALL)
        except (InvalidUrl, UrlNotAllowed):
            raise  # the page's own host is refused: that, not robots.txt, is the answer
        except FetchError:
            rules.parse(DISALLOW_ALL)
        self._rules[origin] = (time.monotonic() + ROBOTS_TTL_S, rules)
        self._rules.move_to_end(origin)
        while len(self._rules) > MAX_HOSTS:
            self._rules.popitem(last=False)
        return rules
