"""Annotated corpora from three on-disk layouts, as one :class:`Page` record.

- ``wcxb``: ``html/NNNN.html.gz`` + ``ground-truth/NNNN.json`` (+ an optional
  ``metadata.json`` with page types and domains), the layout of WCXB (Web
  Content eXtraction Benchmark, Murrough Foley 2026, CC-BY-4.0).
- ``article-benchmark``: Scrapinghub's article-extraction-benchmark,
  ``ground-truth.json`` mapping ids to ``{"articleBody": ...}`` and
  ``html/<id>.html.gz``.
- ``dragnet``: the same two folders, each JSON with a top-level
  ``main_content`` (and the reader ``comments``, which are not content): the
  Dragnet data (Peters & Lecocq 2013, Moz, AGPL-3.0) as prepared in
  ``../shared/data/dragnet-2012``. For evaluation only: no shipped model is
  trained on it.
- ``boilernet``: HTML files whose elements carry ``__boilernet_label``
  (1 content, 0 boilerplate, inherited by descendants), as prepared for the
  BoilerNet paper's GoogleTrends-2017 and CleanEval sets. The gold blocks
  are in the page itself, so the gold text is rendered from them.

Pages read their HTML on demand, so a corpus of thousands is cheap to list.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from service.errors import UsageError
from service.output.formats import render_text
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

WCXB_CREDIT = "WCXB: Web Content eXtraction Benchmark, Murrough Foley 2026 (CC-BY-4.0)"
DRAGNET_CREDIT = "Dragnet data, Peters & Lecocq 2013, Moz (AGPL-3.0; evaluation only)"
CREDITS = {"wcxb": WCXB_CREDIT, "dragnet": DRAGNET_CREDIT}

LAYOUTS = ("wcxb", "dragnet", "article-benchmark", "boilernet")
AUTO_LAYOUT = "auto"
UNKNOWN_TYPE = "unknown"
ARTICLE_TYPE = "article"
BOILERNET_LABEL = "__boilernet_label"

# WCXB names one page type two ways.
_PAGE_TYPE_ALIASES = {"category": "collection"}
# How far into a page the BoilerNet layout is sniffed for its label attribute.
_SNIFF_BYTES = 1 << 20


class CorpusError(UsageError):
    """A directory that holds no corpus in a known layout, or a broken one."""


@dataclass(frozen=True, slots=True)
class GoldMetadata:
    """What the annotators read off the page; None where the page shows none (WCXB: author and date)."""

    title: str | None
    author: str | None
    date_published: str | None  # YYYY-MM-DD


@dataclass(frozen=True, slots=True)
class Page:
    """One annotated page: where its HTML is, and its gold."""

    id: str
    html_path: Path
    main_content: str  # the gold text; may be empty where the annotators found none
    with_snippets: tuple[str, ...] = ()
    without_snippets: tuple[str, ...] = ()
    page_type: str = UNKNOWN_TYPE
    domain: str = ""
    url: str = ""
    labels_in_html: bool = False  # gold block labels are attributes of the page (BoilerNet layout)
    gold_metadata: GoldMetadata | None = None  # title, author, publication date where the corpus has them

    def html(self) -> bytes:
        """The page as fetched (gunzipped where stored compressed)."""
        return _read_html(self.html_path)


@dataclass(frozen=True)
class Corpus:
    """The pages of one directory, in id order."""

    name: str
    root: Path
    layout: str
    pages: tuple[Page, ...]

    @property
    def credit(self) -> str:
        return CREDITS.get(self.layout, "")

    @property
    def comments_are_content(self) -> bool:
        """Whether the gold keeps reader comments (Dragnet's annotators split them off)."""
        return self.layout != "dragnet"

    def __len__(self) -> int:
        return len(self.pages)

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages)

    def digest(self) -> str:
        """SHA-256 over every page's id, HTML bytes and gold: pins figures to this exact corpus."""
        total = hashlib.sha256()
        for page in self.pages:
            gold = "\x1f".join((page.main_content, *page.with_snippets, "\x1e", *page.without_snippets))
            total.update(page.id.encode() + b"\x00")
            total.update(hashlib.sha256(page.html_path.read_bytes()).digest())
            total.update(hashlib.sha256(gold.encode()).digest())
        return total.hexdigest()


def load_corpus(root: Path, layout: str = AUTO_LAYOUT) -> Corpus:
    """The corpus under ``root``, in the given layout or the one detected."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"no corpus at {root} (give --data or set EXTRACT_DATA_DIR)")
    chosen = detect_layout(root) if layout == AUTO_LAYOUT else layout
    loader = {
        "wcxb": load_wcxb,
        "dragnet": load_dragnet,
        "article-benchmark": load_article_benchmark,
        "boilernet": load_boilernet,
    }.get(chosen)
    if loader is None:
        raise CorpusError(f"unknown layout {chosen!r}; known: {', '.join(LAYOUTS)}")
    try:
        pages = loader(root)
    except (ValueError, TypeError, AttributeError, KeyError) as error:  # JSON that does not parse, or of another shape
        raise CorpusError(f"{root} is no {chosen} corpus: {type(error).__name__}: {error}") from error
    if not pages:
        raise CorpusError(f"no pages found in {root} ({chosen} layout)")
    return Corpus(name=root.name, root=root, layout=chosen, pages=tuple(pages))


def detect_layout(root: Path) -> str:
    """Which of the three layouts ``root`` holds."""
    if (root / "ground-truth").is_dir() and (root / "html").is_dir():
        first = next(iter(sorted((root / "ground-truth").glob("*.json"))), None)
        try:
            dragnet = first is not None and "dragnet_split" in json.loads(first.read_text(encoding="utf-8"))
        except ValueError as error:  # not JSON, not UTF-8
            raise CorpusError(f"{first} is no JSON: {error}") from error
        return "dragnet" if dragnet else "wcxb"
    if (root / "ground-truth.json").is_file():
        return "article-benchmark"
    files = _html_files(root)
    if files and BOILERNET_LABEL.encode() in _read_html(files[0])[:_SNIFF_BYTES]:
        return "boilernet"
    raise CorpusError(f"{root} holds no corpus in a known layout ({', '.join(LAYOUTS)})")


def load_wcxb(root: Path) -> list[Page]:
    """WCXB: one ground-truth JSON per page; page type and domain from metadata.json when present."""
    metadata_path = root / "metadata.json"
    files_meta: dict[str, dict] = (
        json.loads(metadata_path.read_text(encoding="utf-8")).get("files", {}) if metadata_path.is_file() else {}
    )
    pages = []
    for gold_path in sorted((root / "ground-truth").glob("*.json")):
        page_id = gold_path.stem
        html_path = _existing(root / "html", page_id)
        if html_path is None:
            raise CorpusError(f"{gold_path} has no HTML beside it in {root / 'html'}")
        record = json.loads(gold_path.read_text(encoding="utf-8"))
        gold = record.get("ground_truth", {})
        meta = files_meta.get(page_id, {})
        url = record.get("url") or ""
        page_type = meta.get("page_type") or record.get("_internal", {}).get("page_type", {}).get("primary")
        pages.append(
            Page(
                id=page_id,
                html_path=html_path,
                main_content=gold.get("main_content") or "",
                with_snippets=tuple(gold.get("with") or ()),
                without_snippets=tuple(gold.get("without") or ()),
                page_type=_page_type(page_type),
                domain=meta.get("domain") or domain_of(url),
                url=url,
                gold_metadata=GoldMetadata(
                    title=gold.get("title") or None,
                    author=gold.get("author") or None,
                    date_published=gold.get("publish_date") or None,
                ),
            )
        )
    return pages


def load_dragnet(root: Path) -> list[Page]:
    """Dragnet 2012: one JSON per page with the gold at its top level; every page an article."""
    pages = []
    for gold_path in sorted((root / "ground-truth").glob("*.json")):
        html_path = _existing(root / "html", gold_path.stem)
        if html_path is None:
            raise CorpusError(f"{gold_path} has no HTML beside it in {root / 'html'}")
        record = json.loads(gold_path.read_text(encoding="utf-8"))
        url = record.get("url") or ""
        pages.append(
            Page(
                id=gold_path.stem,
                html_path=html_path,
                main_content=record.get("main_content") or "",
                page_type=_page_type(record.get("page_type") or ARTICLE_TYPE),
                domain=domain_of(url),
                url=url,
            )
        )
    return pages


def load_article_benchmark(root: Path) -> list[Page]:
    """Scrapinghub's article-extraction-benchmark: one JSON of article bodies for all pages."""
    records: dict[str, dict] = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for page_id in sorted(records):
        html_path = _existing(root / "html", page_id)
        if html_path is None:
            raise CorpusError(f"ground-truth.json names {page_id!r} but {root / 'html'} has no page for it")
        url = records[page_id].get("url") or ""
        pages.append(
            Page(
                id=page_id,
                html_path=html_path,
                main_content=records[page_id].get("articleBody") or "",
                page_type=ARTICLE_TYPE,
                domain=domain_of(url),
                url=url,
            )
        )
    return pages


def load_boilernet(root: Path) -> list[Page]:
    """BoilerNet-prepared pages: the gold text is the text of the blocks labeled content."""
    pages = []
    for html_path in _html_files(root):
        document = parse_html(_read_html(html_path))
        page_id = html_path.name.split(".", 1)[0]
        pages.append(
            Page(
                id=page_id,
                html_path=html_path,
                main_content=render_text(document, boilernet_labels(document)),
                labels_in_html=True,
            )
        )
    return pages


def boilernet_labels(document: Document) -> np.ndarray:
    """Gold block labels of a BoilerNet-prepared page.

    Each block takes the ``__boilernet_label`` of its nearest labeled
    ancestor, boilerplate if none, as the BoilerNet code reads them.
    """
    parents = document.elem_parent.tolist()
    elem_label = [False] * len(parents)
    labeled = document.elem_attribute(BOILERNET_LABEL)
    for elem in range(len(parents)):  # parents precede children
        own = labeled.get(elem)
        elem_label[elem] = own.strip() == "1" if own is not None else (parents[elem] >= 0 and elem_label[parents[elem]])
    return np.asarray(elem_label, dtype=bool)[document.block_elem] if len(document) else np.zeros(0, dtype=bool)


def domain_of(url: str) -> str:
    """Host name of ``url`` without a leading ``www.``."""
    return (urlsplit(url).hostname or "").removeprefix("www.")


def _page_type(name: str | None) -> str:
    name = (name or UNKNOWN_TYPE).lower()
    return _PAGE_TYPE_ALIASES.get(name, name)


def _existing(folder: Path, page_id: str) -> Path | None:
    for suffix in (".html.gz", ".html"):
        path = folder / f"{page_id}{suffix}"
        if path.is_file():
            return path
    return None


def _html_files(root: Path) -> Sequence[Path]:
    return sorted(p for p in root.iterdir() if p.name.endswith((".html", ".htm", ".html.gz")))


def _read_html(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw
