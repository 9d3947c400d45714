"""The safe fetcher: resolve, check every address, connect to the checked one, follow redirects by hand.

The connection goes to the very address that was checked: the request URL
carries the IP, while the ``Host`` header and TLS SNI (and so certificate
verification) carry the name. Nothing resolves the name a second time, so a
DNS answer that changes between check and connect (rebinding) cannot matter.
Connections are never kept alive: a pooled connection to one IP opened with
one SNI must not serve another name. Requests go straight to an httpx
transport, not through a client: a client keeps cookies across fetches (keyed
by the pinned IP, so one caller's cookies would reach another's) and parses
every Location header itself, raising on a malformed one, even when it does not
follow redirects. Here the fetcher reads the Location, once, with the same
rules as the URL it was given.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass

import httpx

from service.errors import EmptyPage, NotHtml
from service.fetching.addresses import IPAddress, Network, Target, check_addresses, parse_target, to_address
from service.fetching.decoding import ACCEPT_ENCODING, BodyDecoder, ContentDecodingError
from service.fetching.errors import (
    InvalidUrl,
    TooManyRedirects,
    UpstreamError,
    UpstreamNotHtml,
    UpstreamStatus,
    UpstreamTimeout,
    UpstreamTooLarge,
    transport_reason,
)
from service.fetching.robots import RobotsCache
from service.parsing.content_type import media_type
from service.parsing.page_check import check_page
from service.settings import Settings

# host, port -> every address the host has. Injected in tests; the default asks the system.
Resolver = Callable[[str, int], Awaitable[Sequence[IPAddress]]]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    """Every A and AAAA record of ``host``, through the system's resolver (off the event loop)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise UpstreamError(f"cannot resolve {host}: {error}") from error
    return list(dict.fromkeys(to_address(str(info[4][0])) for info in infos))


def page_charset(content_type: str, accepted: Collection[str] | None, source: str) -> str | None:
    """The charset a response's ``Content-Type`` declares; :class:`UpstreamNotHtml` where its type is not ``accepted``.

    ``accepted`` None takes any type. The API's fetcher and the command line's fetch answer alike.
    """
    media, charset = media_type(content_type)
    if accepted is not None and media not in accepted:
        said = ", ".join(sorted(accepted))
        raise UpstreamNotHtml(f"{source} sent {media or 'no Content-Type'}; accepted: {said}")
    return charset


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """Limits of one fetch, from the settings."""

    connect_timeout_s: float
    read_timeout_s: float
    total_timeout_s: float
    max_bytes: int
    max_redirects: int
    content_types: frozenset[str]
    allowed_ports: tuple[int, ...]
    allow_networks: tuple[Network, ...]
    user_agent: str

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchPolicy:
        return cls(
            connect_timeout_s=settings.fetch_connect_timeout_s,
            read_timeout_s=settings.fetch_read_timeout_s,
            total_timeout_s=settings.fetch_total_timeout_s,
            max_bytes=settings.fetch_max_bytes,
            max_redirects=settings.fetch_max_redirects,
            content_types=frozenset(settings.fetch_content_types),
            allowed_ports=tuple(settings.fetch_allowed_ports),
            allow_networks=tuple(settings.fetch_allow_networks),
            user_agent=settings.fetch_user_agent,
        )


@dataclass(frozen=True, slots=True)
class FetchedPage:
    body: bytes
    charset: str | None  # from the Content-Type header; wins over <meta>, as in browsers (a BOM wins over both)
    final_url: str  # after redirects
    status: int  # the upstream's HTTP status


class Fetcher:
    """Fetches one page at a time under a :class:`FetchPolicy`; open it in a lifespan, close it with :meth:`aclose`."""

    def __init__(
        self, policy: FetchPolicy, *, resolver: Resolver = system_resolver, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self.policy = policy
        self._resolver = resolver
        self._transport = httpx.AsyncHTTPTransport(
            verify=ssl_context if ssl_context is not None else True,
            trust_env=False,  # a proxy from the environment would resolve names itself
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self._timeout = httpx.Timeout(
            connect=policy.connect_timeout_s, read=policy.read_timeout_s, write=policy.read_timeout_s, pool=None
        ).as_dict()
        self._headers = {
            "User-Agent": policy.user_agent,
            "Accept": "text/html,application/xhtml+xml;q=0.9",
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        self.robots = RobotsCache(self._fetch_any, policy.user_agent)

    async def _fetch_any(self, url: str) -> bytes:
        """The body at ``url`` whatever its media type (robots.txt is text/plain), under the same policy."""
        return (await self.fetch(url, any_content_type=True)).body

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def fetch(self, url: str, *, allow_error_status: bool = False, any_content_type: bool = False) -> FetchedPage:
        """The page at ``url``; a :class:`~service.fetching.errors.FetchError` says why not.

        A final status outside 2xx is :class:`UpstreamStatus` unless ``allow_error_status``:
        an error page is rarely the content the caller came for.
        """
        target = parse_target(url)
        try:
            async with asyncio.timeout(self.policy.total_timeout_s):
                return await self._follow(target, allow_error_status, any_content_type)
        except (TimeoutError, httpx.TimeoutException) as error:
            raise UpstreamTimeout(f"{target.host} did not answer in time ({type(error).__name__})") from error
        except httpx.HTTPError as error:
            raise UpstreamError(f"fetching from {target.host} failed: {transport_reason(error)}") from error

    async def _follow(self, target: Target, allow_error_status: bool, any_content_type: bool) -> FetchedPage:
        for _ in range(self.policy.max_redirects + 1):
            ip = await self._checked_address(target)
            extensions: dict[str, object] = {"timeout": self._timeout}
            if target.url.scheme == "https":
                extensions["sni_hostname"] = target.host
            request = httpx.Request(
                "GET", target.pinned(ip), headers={**self._headers, "Host": target.host_header}, extensions=extensions
            )
            response = await self._transport.handle_async_request(request)
            try:
                location = response.headers.get("location")
                if response.status_code not in REDIRECT_STATUSES or location is None:
                    if not (allow_error_status or response.is_success):
                        raise UpstreamStatus(target.host, response.status_code, response.reason_phrase)
                    return await self._read(response, target, any_content_type)
            finally:
                await response.aclose()
            target = self._redirect_target(target, location)
        raise TooManyRedirects(f"more than {self.policy.max_redirects} redirects")

    async def _checked_address(self, target: Target) -> IPAddress:
        if target.ip is not None:
            addresses: Sequence[IPAddress] = [target.ip]
        else:
            async with asyncio.timeout(self.policy.connect_timeout_s):
                addresses = await self._resolver(target.host, target.port)
        return check_addresses(target, addresses, self.policy.allow_networks, self.policy.allowed_ports)

    @staticmethod
    def _redirect_target(current: Target, location: str) -> Target:
        """Where a Location header leads, read as strictly as a caller's URL; a refused scheme stays a refusal."""
        try:
            return parse_target(location, base=current.url)
        except InvalidUrl as error:
            raise UpstreamError(f"{current.host} redirected to an invalid URL: {error}") from error

    async def _read(self, response: httpx.Response, target: Target, any_content_type: bool) -> FetchedPage:
        content_type = response.headers.get("content-type", "")
        accepted = None if any_content_type else self.policy.content_types
        charset = page_charset(content_type, accepted, target.host)
        declared = response.headers.get("content-length", "")
        limit = self.policy.max_bytes
        if declared.isdigit() and int(declared) > limit:
            raise UpstreamTooLarge(f"the page is {declared} bytes; the limit is {limit} bytes")
        try:
            decoder = BodyDecoder(response.headers.get("content-encoding", ""))
            chunks: list[bytes] = []
            size = 0
            async for raw in response.aiter_raw():
                chunk = decoder.decode(raw, limit - size)  # decoded, so a compressed bomb stops at the cap too
                size += len(chunk)
                if size > limit:
                    raise UpstreamTooLarge(f"the page exceeds the limit of {limit} bytes")
                chunks.append(chunk)
            decoder.end()
        except ContentDecodingError as error:
            raise UpstreamError(f"{target.host} sent a body that cannot be read: {error}") from error
        body = b"".join(chunks)
        if not any_content_type:  # labelled HTML, but empty or binary: the checks a page sent to the API passes
            try:
                check_page(body, charset)
            except (EmptyPage, NotHtml) as error:
                raise UpstreamNotHtml(f"{target.host} sent no HTML: {error}") from error
        return FetchedPage(body, charset, str(target.url.copy_with(fragment=None)), response.status_code)
