"""Peer adapters: each installed peer extracts the fixture article; a missing one is a clear error."""

from __future__ import annotations

import gzip
import sys

import pytest

from service.backends.peers import PEER_NAMES, PeerUnavailable, get_peer

from support.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "eval"
MODULES = {
    "trafilatura": "trafilatura",
    "readability": "readability",
    "justext": "justext",
    "resiliparse": "resiliparse",
    "boilerpy3": "boilerpy3",
}
SHORT_TEXT_AVERSE = {"justext"}  # drops paragraphs as short as the fixture's


def test_every_peer_has_a_module_to_check() -> None:
    assert set(MODULES) == set(PEER_NAMES)


@pytest.mark.parametrize("name", PEER_NAMES)
def test_installed_peer_extracts_text(name: str) -> None:
    pytest.importorskip(MODULES[name])
    text = get_peer(name)(gzip.decompress((FIXTURES / "wcxb" / "html" / "0001.html.gz").read_bytes()))
    assert isinstance(text, str)
    if name not in SHORT_TEXT_AVERSE:
        assert "Anemones close when the water drains" in text


def test_unknown_peer() -> None:
    with pytest.raises(PeerUnavailable, match="unknown peer 'goose'"):
        get_peer("goose")


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # makes `import trafilatura` fail
    with pytest.raises(PeerUnavailable, match=r"eval extra"):
        get_peer("trafilatura")
