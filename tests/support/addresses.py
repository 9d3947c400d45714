"""URLs the fetcher must refuse: the policy unit tests and the SSRF matrix over HTTP share them."""

from __future__ import annotations

# Address literals that are not public, in every spelling a URL allows (decimal, hex, octal, short
# IPv4; IPv6 forms that carry an IPv4 address): the policy unit tests and the SSRF matrix refuse each.
NON_PUBLIC_LITERAL_URLS = [
    "http://127.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://0177.1/",
    "http://127.1/",
    "http://127.0.0.1./",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64 of 10.0.0.1
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:3f57:fefe]/",  # Teredo, client 192.168.1.1
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
]
