"""Which URLs and addresses the fetcher refuses: parsing and checks only, nothing is connected to."""

from __future__ import annotations

import asyncio
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

import httpx
import pytest

from service.fetching.addresses import check_addresses, is_public, parse_target
from service.fetching.errors import MAX_REASON_CHARS, BlockReason, InvalidUrl, UrlNotAllowed, transport_reason
from service.fetching.fetcher import system_resolver

from support.addresses import NON_PUBLIC_LITERAL_URLS

pytestmark = pytest.mark.timeout(30)

ALLOWED_PORTS = (80, 443)


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://127.0.0.1/", "127.0.0.1"),
        ("http://0x7f.0.0.1/", "127.0.0.1"),
        ("http://0x7F000001/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0177.1/", "127.0.0.1"),
        ("http://127.0.0.1./", "127.0.0.1"),
        ("http://0/", "0.0.0.0"),
        ("http://[::1]/", "::1"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://[0:0:0:0:0:ffff:7f00:1]/", "::ffff:127.0.0.1"),
    ],
)
def test_every_spelling_of_an_ip_literal_is_read_as_the_address(url: str, address: str) -> None:
    assert parse_target(url).ip == ip_address(address)


@pytest.mark.parametrize("url", NON_PUBLIC_LITERAL_URLS)
def test_ip_literals_that_are_not_public_are_refused(url: str) -> None:
    target = parse_target(url)
    assert target.ip is not None
    with pytest.raises(UrlNotAllowed) as refused:
        check_addresses(target, [target.ip], (), ALLOWED_PORTS)
    assert refused.value.reason is BlockReason.ADDRESS


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.31.255.255",
        "192.168.0.1",
        "100.64.0.1",  # carrier-grade NAT
        "100.100.100.200",  # Alibaba metadata
        "0.0.0.0",
        "0.1.2.3",
        "169.254.169.254",  # AWS, GCP, Azure metadata
        "169.254.170.2",  # ECS task metadata
        "192.0.0.192",  # Oracle metadata
        "192.0.2.1",
        "198.18.0.1",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "::ffff:8.8.8.8",  # IPv4-mapped, even of a public address: refused whole
        "::127.0.0.1",  # IPv4-compatible
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::808:808",  # NAT64 of 8.8.8.8
        "64:ff9b:1::a00:1",  # local-use NAT64
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "2002:808:808::1",  # 6to4 of 8.8.8.8
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
        "2001:db8::1",
        "fc00::1",
        "fd00:ec2::254",  # AWS IPv6 metadata
        "fe80::1",
        "fec0::1",
        "ff02::1",
    ],
)
def test_non_global_and_transition_addresses_are_not_public(address: str) -> None:
    assert not is_public(ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700::1111", "2a00:1450:4001::1"])
def test_global_unicast_addresses_are_public(address: str) -> None:
    assert is_public(ip_address(address))


def test_one_private_record_refuses_a_name_with_public_ones() -> None:
    target = parse_target("http://mixed.example/")
    with pytest.raises(UrlNotAllowed, match=r"mixed\.example resolves to 10\.0\.0\.1"):
        check_addresses(target, [IPv4Address("93.184.216.34"), IPv4Address("10.0.0.1")], (), ALLOWED_PORTS)


def test_a_name_with_no_address_is_refused() -> None:
    with pytest.raises(UrlNotAllowed):
        check_addresses(parse_target("http://empty.example/"), [], (), ALLOWED_PORTS)


def test_the_first_checked_address_is_the_one_to_connect_to() -> None:
    target = parse_target("https://example.com/")
    chosen = check_addresses(target, [IPv6Address("2606:4700::1111"), IPv4Address("1.1.1.1")], (), ALLOWED_PORTS)
    assert chosen == IPv6Address("2606:4700::1111")


def test_an_allowlisted_network_is_reached_on_any_port() -> None:
    target = parse_target("http://127.0.0.1:8123/")
    allow = (ip_network("127.0.0.1/32"),)
    assert check_addresses(target, [IPv4Address("127.0.0.1")], allow, ALLOWED_PORTS) == IPv4Address("127.0.0.1")
    mapped = parse_target("http://[::ffff:127.0.0.1]:8123/")
    with pytest.raises(UrlNotAllowed):  # the allowlist names 127.0.0.1, not its IPv6 spellings
        check_addresses(mapped, [mapped.ip], allow, ALLOWED_PORTS)  # type: ignore[list-item]


def test_public_hosts_are_reached_on_allowed_ports_only() -> None:
    target = parse_target("http://example.com:22/")
    with pytest.raises(UrlNotAllowed) as refused:
        check_addresses(target, [IPv4Address("93.184.216.34")], (), ALLOWED_PORTS)
    assert refused.value.reason is BlockReason.PORT


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", BlockReason.SCHEME),
        ("ftp://example.com/", BlockReason.SCHEME),
        ("gopher://127.0.0.1:6379/_INFO", BlockReason.SCHEME),
        ("dict://127.0.0.1:11211/", BlockReason.SCHEME),
        ("data:text/html,<p>x</p>", BlockReason.SCHEME),  # refused before parsing: httpx cannot parse it
        ("JavaScript:alert(1)", BlockReason.SCHEME),
        ("http://user:secret@example.com/", BlockReason.CREDENTIALS),
        ("http://example.com@127.0.0.1/", BlockReason.CREDENTIALS),
    ],
)
def test_other_schemes_and_credentials_are_refused(url: str, reason: BlockReason) -> None:
    with pytest.raises(UrlNotAllowed) as refused:
        parse_target(url)
    assert refused.value.reason is reason


@pytest.mark.parametrize(
    "url",
    [
        "",
        "example.com",
        "/relative",
        "http://",
        "http:///path",
        "http://[::1/",
        "http://1.2.3.4.5/",
        "http://256.0.0.1/",
        "http://0177.0.0.1/",  # httpx refuses a dotted quad with octal parts outright
        "http://0x100000000/",
        "http://example.com:0/",
        "http://example.com:-1/",  # httpx takes any integer as a port
        "http://example.com:65536/",
        "http://example.com\\@127.0.0.1/",  # a browser reads the backslash as a slash
        "http:\\\\127.0.0.1\\",
        "http://example.com/\tpath",  # a browser drops the tab
        "http://%31%32%37.0.0.1/",  # a browser decodes it to 127.0.0.1
        "http://%6c%6f%63%61%6c%68%6f%73%74/",
        "http://a..b/",
        "http://１２７.０.０.１/",
    ],
)
def test_urls_that_do_not_parse_are_invalid(url: str) -> None:
    with pytest.raises(InvalidUrl):
        parse_target(url)


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/next?page=2", "https://example.com/next?page=2"),
        ("next", "https://example.com/a/next"),
        ("//other.example/x", "https://other.example/x"),
        ("http://other.example/", "http://other.example/"),
    ],
)
def test_a_location_is_read_against_the_url_that_sent_it(location: str, expected: str) -> None:
    assert str(parse_target(location, base=httpx.URL("https://example.com/a/b")).url) == expected


@pytest.mark.parametrize("location", ["", "http://", "http:", "http:/x", "/\\evil.example", "http://::1/"])
def test_a_location_that_names_no_valid_url_is_invalid(location: str) -> None:
    with pytest.raises(InvalidUrl):
        parse_target(location, base=httpx.URL("https://example.com/a/b"))


def test_a_refusal_names_a_plainly_written_address_once() -> None:
    def message(url: str) -> str:
        target = parse_target(url)
        with pytest.raises(UrlNotAllowed) as refused:
            check_addresses(target, [target.ip], (), ALLOWED_PORTS)  # type: ignore[list-item]
        return str(refused.value)

    assert message("http://169.254.169.254/") == "169.254.169.254 is not a public address (link-local)"
    assert message("http://[::1]/") == "::1 is not a public address (unspecified, loopback or IPv4-compatible)"
    assert message("http://127.1/") == "127.1 is 127.0.0.1, which is not a public address (loopback)"


def test_the_host_header_keeps_the_name_and_a_non_default_port() -> None:
    assert parse_target("https://Example.COM/a").host_header == "example.com"
    assert parse_target("http://example.com:8080/a").host_header == "example.com:8080"
    assert parse_target("http://[2606:4700::1111]:81/").host_header == "[2606:4700::1111]:81"
    assert parse_target("http://bücher.de/").host == "xn--bcher-kva.de"


def test_the_pinned_url_carries_the_checked_address_and_no_fragment() -> None:
    target = parse_target("https://example.com:8443/path?q=1#part")
    assert str(target.pinned(IPv4Address("93.184.216.34"))) == "https://93.184.216.34:8443/path?q=1"
    assert str(target.pinned(IPv6Address("2606:4700::1111"))) == "https://[2606:4700::1111]:8443/path?q=1"


def test_the_system_resolver_returns_every_address_of_localhost() -> None:
    """localhost comes from the hosts file: no DNS query leaves the machine."""
    addresses = asyncio.run(system_resolver("localhost", 80))
    assert IPv4Address("127.0.0.1") in addresses
    assert not any(is_public(address) for address in addresses)


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("illegal chunk header: bytearray(b'zz\\r\\n')", "illegal chunk header"),
        ('illegal header line: b"X: \\x01"', "illegal header line"),
        ("Server disconnected without sending a response.", "Server disconnected without sending a response."),
        ("cannot reach bob's host", "cannot reach bob's host"),  # a word's b' is no echo
        ("", "ValueError"),
        ("x" * 500, "x" * MAX_REASON_CHARS),
    ],
)
def test_a_transport_errors_reason_leaves_out_the_bytes_the_parser_echoes(message: str, reason: str) -> None:
    assert transport_reason(ValueError(message)) == reason
