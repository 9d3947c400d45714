"""Why a page could not be fetched, in domain terms; the HTTP edge maps each class to a status."""

from __future__ import annotations

import re
from enum import StrEnum

from service.errors import ExtractionError

# The parser's echo of the bytes it refused, which h11 appends to a protocol error ("illegal chunk header:
# bytearray(b'zz\\r\\n')"): a status line or header of up to 64 KiB of the upstream's bytes, in an answer and a log.
_ECHOED_BYTES = re.compile(r":?\s*(?:bytearray\()?(?<![\w])b['\"].*$", re.DOTALL)
MAX_REASON_CHARS = 200


def transport_reason(error: Exception) -> str:
    """What a transport error says went wrong, without the bytes it echoes, in a line; else its class's name."""
    reason = " ".join(_ECHOED_BYTES.sub("", str(error)).split())
    return reason[:MAX_REASON_CHARS] or type(error).__name__


class BlockReason(StrEnum):
    """Why a URL was refused; a bounded set, so it can label a metric."""

    SCHEME = "scheme"
    CREDENTIALS = "credentials"
    PORT = "port"
    ADDRESS = "address"


class FetchError(ExtractionError):
    """A page that could not be fetched."""


class InvalidUrl(FetchError):
    """A URL that does not parse as an absolute http(s) URL with a host."""


class UrlNotAllowed(FetchError):
    """A URL the service refuses to fetch: wrong scheme, credentials, a port or an address it must not reach."""

    def __init__(self, message: str, reason: BlockReason) -> None:
        super().__init__(message)
        self.reason = reason


class RobotsDisallowed(FetchError):
    """A URL the host's robots.txt refuses to the service's user agent (asked for with respect_robots)."""


class UpstreamError(FetchError):
    """The upstream server could not be reached or answered something unusable."""


class TooManyRedirects(UpstreamError):
    """More redirects than the configured limit."""


class UpstreamStatus(UpstreamError):
    """A final answer outside 2xx (a 404 page, a 500 page): not the page the caller asked for."""

    def __init__(self, host: str, status: int, reason: str) -> None:
        super().__init__(f"{host} answered HTTP {status}{f' {reason}' if reason else ''}")
        self.status = status


class UpstreamTooLarge(UpstreamError):
    """A page larger than the configured byte cap."""


class UpstreamNotHtml(UpstreamError):
    """A response whose Content-Type is not on the allowlist."""


class UpstreamTimeout(FetchError):
    """The upstream server was too slow: connect, read or total timeout."""
