"""Which URLs and addresses a fetch may reach (OWASP's SSRF guidance for a service that must reach any URL).

A URL is parsed once, with the same parser (httpx's) that sends the request,
and a host that *ends in a number* is read the way browsers do (WHATWG):
``0x7f.0.0.1``, ``2130706433`` and ``127.1`` are all 127.0.0.1, never a name
to look up. Every address a host resolves to is then checked; one bad
address refuses the URL, so a name cannot mix a public and a private record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

import httpx

from service.fetching.errors import BlockReason, InvalidUrl, UrlNotAllowed

IPAddress = IPv4Address | IPv6Address
Network = IPv4Network | IPv6Network

ALLOWED_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

# Never reached, whatever ``ipaddress.is_global`` says in this Python version
# (3.11 calls multicast, 192.0.0.192, 6to4 and NAT64 "global"). IPv6 forms that
# carry an IPv4 address are refused whole rather than decoded: a legitimate
# site has no reason to publish one. Each range is named for the refusal message.
BLOCKED_NETWORKS: dict[Network, str] = {
    ip_network(cidr): kind
    for cidr, kind in (
        ("0.0.0.0/8", "this network"),  # 0.0.0.0 reaches the local host on Linux
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT"),  # Alibaba's metadata service is 100.100.100.200
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),  # AWS/GCP/Azure metadata 169.254.169.254, ECS 169.254.170.2
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"),  # Oracle's metadata service is 192.0.0.192
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved or broadcast"),
        ("::/96", "unspecified, loopback or IPv4-compatible"),
        ("::ffff:0:0/96", "IPv4-mapped"),
        ("64:ff9b::/96", "NAT64"),
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("100::/64", "discard-only"),
        ("2001::/23", "IETF protocol assignments or Teredo"),  # Teredo is 2001::/32
        ("2001:db8::/32", "documentation"),
        ("2002::/16", "6to4"),
        ("fc00::/7", "unique local"),  # AWS's IPv6 metadata service is fd00:ec2::254
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),  # deprecated
        ("ff00::/8", "multicast"),
    )
}

# What the URL standard and httpx read differently (a backslash is a slash to a
# browser, a tab or newline is dropped): refused rather than guessed at.
_AMBIGUOUS = re.compile(r"[\\\x00-\x1f\x7f]")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
# A DNS name once IDNA has made it ASCII; underscores occur in real names.
_HOST_NAME = re.compile(r"(?=.{1,253}\Z)[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*")
_DECIMAL = re.compile(r"[0-9]+")
_OCTAL = re.compile(r"[0-7]*")
_HEX = re.compile(r"[0-9a-fA-F]*")


@dataclass(frozen=True, slots=True)
class Target:
    """One URL to fetch: the logical URL, and what the connection needs from it."""

    url: httpx.URL
    host: str  # ASCII (IDNA) host name or IP text, without brackets: the Host header, SNI and DNS name
    port: int
    ip: IPAddress | None  # set when the host is an IP literal, in any of its spellings

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.url.scheme] else f"{host}:{self.port}"

    def pinned(self, ip: IPAddress) -> httpx.URL:
        """The URL with its host replaced by the address that was checked, so nothing resolves it again."""
        return self.url.copy_with(host=str(ip), fragment=None)


def parse_target(url: str, base: httpx.URL | None = None) -> Target:
    """An absolute http(s) URL, or one relative to ``base`` (a Location header, from the URL that sent it).

    :class:`InvalidUrl` or :class:`UrlNotAllowed` say why not; nothing else escapes.
    """
    if not url.strip():
        raise InvalidUrl("the URL is empty")
    if _AMBIGUOUS.search(url):
        raise InvalidUrl("a URL must not contain backslashes or control characters")
    scheme = _SCHEME.match(url)
    if scheme and scheme[1].lower() not in ALLOWED_SCHEMES:  # before parsing: data: and javascript: do not parse
        raise UrlNotAllowed(f"scheme {scheme[1]!r} is not allowed; only http and https", BlockReason.SCHEME)
    try:
        parsed = base.join(url) if base is not None and scheme is None else httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as error:  # IDNA errors are ValueErrors
        raise InvalidUrl(f"not a valid URL: {error}") from error
    if parsed.scheme not in ALLOWED_SCHEMES:
        raise InvalidUrl("the URL must be absolute, starting with http:// or https://")
    if parsed.userinfo:
        raise UrlNotAllowed("URLs with credentials are not fetched", BlockReason.CREDENTIALS)
    host = parsed.raw_host.decode("ascii").rstrip(".").lower()
    if not host:
        raise InvalidUrl("the URL has no host")
    port = DEFAULT_PORTS[parsed.scheme] if parsed.port is None else parsed.port
    if not 0 < port < 65536:  # httpx takes any integer
        raise InvalidUrl(f"port {port} is out of range")
    return Target(url=parsed, host=host, port=port, ip=_literal_address(host))


def _literal_address(host: str) -> IPAddress | None:
    """The address an IP-literal host names, in any WHATWG IPv4 spelling; None for a name."""
    if ":" in host:
        try:
            return IPv6Address(host)
        except ValueError as error:
            raise InvalidUrl(f"not a valid IPv6 address: {host}") from error
    if _ends_in_a_number(host):
        return _parse_ipv4(host)
    if not _HOST_NAME.fullmatch(host):  # a percent-encoded or otherwise odd name never reaches the resolver
        raise InvalidUrl(f"host {host!r} is not a valid host name")
    return None


def _ends_in_a_number(host: str) -> bool:
    last = host.rsplit(".", maxsplit=1)[-1]
    return bool(_DECIMAL.fullmatch(last)) or _ipv4_number(last) is not None


def _ipv4_number(part: str) -> int | None:
    """One dotted part: decimal, 0x-hex or 0-octal, as the URL standard reads it."""
    if not part:
        return None
    if part[:2].lower() == "0x":
        digits, pattern, radix = part[2:], _HEX, 16
    elif len(part) > 1 and part[0] == "0":
        digits, pattern, radix = part[1:], _OCTAL, 8
    else:
        digits, pattern, radix = part, _DECIMAL, 10
    if not pattern.fullmatch(digits):
        return None
    return int(digits, radix) if digits else 0


def _parse_ipv4(host: str) -> IPv4Address:
    parts = host.split(".")
    numbers = [_ipv4_number(part) for part in parts]
    if len(parts) > 4 or any(n is None for n in numbers):
        raise InvalidUrl(f"host {host!r} ends in a number but is not an IPv4 address")
    values = [n for n in numbers if n is not None]
    last = values.pop()
    if any(n > 255 for n in values) or last >= 256 ** (4 - len(values)):
        raise InvalidUrl(f"host {host!r} is an IPv4 address out of range")
    for position, value in enumerate(values):
        last += value << (8 * (3 - position))
    return IPv4Address(last)


def is_allowlisted(ip: IPAddress, allow_networks: Sequence[Network]) -> bool:
    return any(ip.version == net.version and ip in net for net in allow_networks)


def blocked_kind(ip: IPAddress) -> str | None:
    """What kind of address ``ip`` is when it is not public ("loopback", "private", ...); None when it is."""
    for network, kind in BLOCKED_NETWORKS.items():
        if ip.version == network.version and ip in network:
            return kind
    return None if ip.is_global else "not globally routable"


def is_public(ip: IPAddress) -> bool:
    """A global unicast address outside every blocked range."""
    return blocked_kind(ip) is None


def check_addresses(
    target: Target, addresses: Sequence[IPAddress], allow_networks: Sequence[Network], allowed_ports: Sequence[int]
) -> IPAddress:
    """The address to connect to, once every address of the host has passed; :class:`UrlNotAllowed` otherwise."""
    if not addresses:
        raise UrlNotAllowed(f"host {target.host} has no address", BlockReason.ADDRESS)
    for ip in addresses:
        kind = None if is_allowlisted(ip, allow_networks) else blocked_kind(ip)
        if kind is not None:
            raise UrlNotAllowed(f"{_naming(target, ip)} not a public address ({kind})", BlockReason.ADDRESS)
    chosen = addresses[0]
    if target.port not in allowed_ports and not is_allowlisted(chosen, allow_networks):
        raise UrlNotAllowed(f"port {target.port} is not allowed; allowed: {list(allowed_ports)}", BlockReason.PORT)
    return chosen


def _naming(target: Target, ip: IPAddress) -> str:
    """How the refusal names the address: once when the URL spelled it plainly, else with the host it came from."""
    if target.ip is None:
        return f"{target.host} resolves to {ip}, which is"
    return f"{ip} is" if target.host == str(ip) else f"{target.host} is {ip}, which is"


def to_address(text: str) -> IPAddress:
    """An address as a resolver returns it (IPv6 zone index dropped)."""
    return ip_address(text.partition("%")[0])
