"""The open-source extractors we compare against, each as ``bytes -> text``, and a peer as an ensemble member.

One small adapter per peer, each importing its package only when asked
for (they are the ``eval`` extra, not serving dependencies). Every peer
gets the same ``str``: the page decoded the way our parser decodes it, so
encoding guesses are not what is compared. The time to decode counts
towards each peer's ms/doc, as our parse counts towards ours. Defaults
are each package's own; justext gets the English stop list (it needs one),
and trafilatura leaves comments out where the corpus's gold does
(``comments=False``), since that is its own switch for it.

The evaluation and ``bench`` compare against these; the ``ensemble_peer``
backend runs one (trafilatura) as a member (:class:`PeerMember`): its text
projected onto the blocks by :func:`service.features.alignment.align_blocks`,
score 1 where it keeps the block's text. A peer reads HTML, and a backend
sees only the parsed :class:`Document`, so the page is written back out from
the Document (:func:`document_html`); the model was trained on exactly that
input.
"""

from __future__ import annotations

import html
import importlib.util
import logging
from collections.abc import Callable, Sequence

import numpy as np

from service.backends.base import Backend, BlockLabels
from service.features.alignment import align_blocks
from service.parsing.decode import to_utf8
from service.parsing.document import Document

PeerExtract = Callable[[bytes], str]

JUSTEXT_STOPLIST = "English"
# Peers a model may name as members: the package that must be importable for it.
PEER_PACKAGES = {"trafilatura": "trafilatura"}
# The pairs of equal words above which a peer's text is aligned to the blocks in bulk (service.features.alignment):
# the exact alignment took up to 1.7 s a page below it (Dragnet T50), 15 s at 16 million pairs (Dragnet 419) and
# 44 s for a 128 KB page of one word; 1 % of the WCXB and Dragnet pages' gold texts have more than 0.4 million.
MAX_ALIGNED_PAIRS = 2_000_000
# Elements written without an end tag.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})


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


def peers_available(peers: Sequence[str]) -> bool:
    """Whether every peer a model names can run here (peers are the eval extra, not a serving dependency)."""
    return all(p in PEER_PACKAGES and importlib.util.find_spec(PEER_PACKAGES[p]) is not None for p in peers)


def document_html(document: Document) -> str:
    """The Document written back out as HTML: its elements, attributes and text leaves in document order.

    Scripts, styles and the head (but the title) are not in a Document, so
    not here either. A leaf's place among its element's children is
    recovered from document order: a child element comes before a leaf when
    its subtree's first leaf does; an element without text goes just before
    its next sibling that has some.
    """
    n_elem = len(document.elem_tag)
    if not n_elem:
        return f"<html><head><title>{html.escape(document.title)}</title></head></html>"
    parent = document.elem_parent.tolist()
    blocks_of: list[list[int]] = [[] for _ in range(n_elem)]
    for block, elem in enumerate(document.block_elem.tolist()):
        blocks_of[elem].append(block)
    first = [b[0] if b else np.inf for b in blocks_of]  # each list ascends: blocks come in document order
    children: list[list[int]] = [[] for _ in range(n_elem)]
    for elem in range(n_elem - 1, 0, -1):  # pre-order: children come after their parent
        up = parent[elem]
        if up >= 0:
            first[up] = min(first[up], first[elem])
            children[up].append(elem)
    attributes = document.elem_attributes
    texts = document.texts
    spaces = document.block_space_before.tolist()
    breaks = document.block_break_before.tolist()
    out: list[str] = [f"<html><head><title>{html.escape(document.title)}</title></head>"]

    def items(elem: int) -> list[tuple[float, int, int]]:
        """(key, 0 for a leaf / 1 for an element, id) of the element's children, in document order."""
        kids = children[elem][::-1]  # the reverse walk appended them last first
        keyed: list[tuple[float, int, int]] = [(float(b), 0, b) for b in blocks_of[elem]]
        following = np.inf
        for kid in reversed(kids):
            following = first[kid] - 0.5 if first[kid] != np.inf else following - 1e-6
            keyed.append((following, 1, kid))
        return sorted(keyed)

    def write(elem: int) -> None:  # an explicit stack would avoid recursion, but depth is capped at 512
        tag = document.elem_tag[elem]
        attrs = "".join(
            f' {k}="{html.escape(v)}"' if v is not None else f" {k}"
            for k, v in attributes[elem].items()
            if k.replace("-", "").replace("_", "").replace(":", "").isalnum()
        )
        out.append(f"<{tag}{attrs}>")
        if tag in VOID_TAGS:
            return
        write_children(elem)
        out.append(f"</{tag}>")

    def write_children(elem: int) -> None:
        for _, is_element, ident in items(elem):
            if is_element:
                write(ident)
            else:
                leaf(ident)

    def leaf(block: int) -> None:
        """A text leaf, with the <br> or the white space that separated it from the previous one."""
        out.append("<br>" if breaks[block] else " " if spaces[block] else "")
        out.append(html.escape(texts[block], quote=False))

    write_children(0)  # the root's own tag is written above, with the title
    out.append("</html>")
    return "".join(out)


class PeerMember(Backend):
    """A peer extractor as an ensemble member: score 1 for the blocks whose text it keeps."""

    kind = "peer"
    version = "peer"

    def __init__(self, name: str) -> None:
        self.name = name
        self.extract = get_peer(name)  # imports the peer's package (the eval extra): only in the slow mode

    def classify(self, document: Document) -> BlockLabels:
        text = self.extract(document_html(document).encode("utf-8"))
        keep = align_blocks(document.texts, text, MAX_ALIGNED_PAIRS) if text else np.zeros(len(document), dtype=bool)
        return BlockLabels(keep.astype(np.float32), keep)
