"""The open-source extractors we compare against, each as ``bytes -> text``.

One small adapter per peer, each importing its package only when asked
for (they are the ``eval`` extra, not serving dependencies). Every peer
gets the same ``str``: the page decoded the way our parser decodes it, so
encoding guesses are not what is compared. The time to decode counts
towards each peer's ms/doc, as our parse counts towards ours. Defaults
are each package's own; justext gets the English stop list (it needs one),
and trafilatura leaves comments out where the corpus's gold does
(``comments=False``), since that is its own switch for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from service.parsing.decode import to_utf8

PeerExtract = Callable[[bytes], str]

JUSTEXT_STOPLIST = "English"


class PeerUnavailable(Exception):
    """A peer that is unknown or whose package is not installed."""


def _decoded(html: bytes) -> str:
    return to_utf8(html)[0].decode("utf-8", "replace")


def _trafilatura(comments: bool) -> PeerExtract:
    import trafilatura  # noqa: PLC0415 - optional, imported when chosen

    return lambda html: trafilatura.extract(_decoded(html), include_comments=comments) or ""


def _readability(comments: bool) -> PeerExtract:
    from readability import Document as Readable  # noqa: PLC0415

    from service.output.formats import render_text  # noqa: PLC0415 - only this peer needs HTML-to-text
    from service.parsing.lexbor import parse_html  # noqa: PLC0415

    def extract(html: bytes) -> str:
        summary = parse_html(Readable(_decoded(html)).summary())  # readability returns HTML
        return render_text(summary, np.ones(len(summary), dtype=bool))

    return extract


def _justext(comments: bool) -> PeerExtract:
    import justext  # noqa: PLC0415

    stoplist = justext.get_stoplist(JUSTEXT_STOPLIST)

    def extract(html: bytes) -> str:
        paragraphs = justext.justext(_decoded(html), stoplist)
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


def _resiliparse(comments: bool) -> PeerExtract:
    from resiliparse.extract.html2text import extract_plain_text  # noqa: PLC0415

    return lambda html: extract_plain_text(_decoded(html), main_content=True)


def _boilerpy3(comments: bool) -> PeerExtract:
    from boilerpy3 import extractors  # noqa: PLC0415

    logging.getLogger("boilerpy3").setLevel(logging.ERROR)  # it warns about every nested <a> it repairs
    extractor = extractors.ArticleExtractor(raise_on_failure=False)
    return lambda html: extractor.get_content(_decoded(html)) or ""


# name -> (the package that provides it, its adapter factory)
_PEERS: dict[str, tuple[str, Callable[[bool], PeerExtract]]] = {
    "trafilatura": ("trafilatura", _trafilatura),
    "readability": ("readability-lxml", _readability),
    "justext": ("justext", _justext),
    "resiliparse": ("resiliparse", _resiliparse),
    "boilerpy3": ("boilerpy3", _boilerpy3),
}
PEER_NAMES = tuple(_PEERS)


def get_peer(name: str, *, comments: bool = True) -> PeerExtract:
    """The ``bytes -> text`` function of one peer; :class:`PeerUnavailable` if it can't be had.

    ``comments`` is whether reader comments count as content, for the peers that have a switch for it.
    """
    if name not in _PEERS:
        raise PeerUnavailable(f"unknown peer {name!r}; known peers: {', '.join(PEER_NAMES)}")
    package, factory = _PEERS[name]
    try:
        return factory(comments)
    except ImportError as error:
        raise PeerUnavailable(
            f"peer {name!r} needs the package {package!r} ({error}); "
            "install the eval extra: pip install -e '.[eval]' (or make eval-deps)"
        ) from error
