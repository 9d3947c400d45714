"""What kind of page this is (article, forum, product, ...): features, and the model that reads them.

The features are a function of the Document, its metadata and its URL, with
a schema version, shared verbatim by ``python -m service train page_type``
and serving. The model is a multinomial logistic regression over
standardised features, small enough to ship as a JSON of coefficients in the
model store (with a manifest entry and a sha256 like every model) and to run
as a product with its features and a sum of its words' weights: no ONNX session for it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from types import ModuleType
from typing import NamedTuple
from urllib.parse import urlsplit

import numpy as np

from service.metadata.fields import PAGE_TYPES, Metadata
from service.metadata.jsonld import ARTICLE_TYPES, FORUM_TYPES, PRODUCT_TYPES
from service.models.store import ModelError, ModelStore
from service.parsing.document import Document

MODEL_NAME = "page_type"
SCHEMA_NAME = "page-type-features"
SCHEMA_VERSION = 9  # 9: prose paragraphs side by side; 8: the short blocks' phrases among the words

_LD_GROUPS: dict[str, frozenset[str]] = {
    "ld_article": ARTICLE_TYPES,
    "ld_forum": FORUM_TYPES,
    "ld_product": PRODUCT_TYPES,
    "ld_collection": frozenset({"collectionpage", "itemlist", "searchresultspage", "offercatalog"}),
    "ld_faq_howto": frozenset({"faqpage", "howto"}),
    "ld_business": frozenset({"organization", "localbusiness", "service", "professionalservice", "corporation"}),
    "ld_docs": frozenset({"techarticle", "apireference", "softwaresourcecode"}),
    "ld_breadcrumb": frozenset({"breadcrumblist"}),
}
# Words in a URL's path that say what kind of page it is: whole pieces of the path between "/", "_", "." and "-".
_URL_GROUPS: dict[str, frozenset[str]] = {
    name: frozenset(words.split())
    for name, words in {
        "url_article": "blog blogs news article articles post posts story stories insights",  # and a year
        "url_forum": "forum forums thread threads topic topics discussion discussions community questions t r comments",
        "url_product": "product products p dp item items shop store buy",
        "url_collection": "category categories collection collections c tag tags archive catalog browse search list",
        "url_docs": "docs doc documentation reference api guide guides manual learn wiki help kb support tutorial",
        "url_service": "services service solutions pricing contact about features plans company careers demo",
    }.items()
}
_URL_PIECE_END = re.compile(r"[/_.-]")
_YEAR_PIECE = re.compile(r"(?:^|[/_.-])(?:19|20)\d\d(?:$|[/_.-])")  # a piece that is a year says article too
_ARTICLE_GROUP = list(_URL_GROUPS).index("url_article")
_LONG_NUMBER = re.compile(r"\d{4,}")
_URL_FEATURES = (*_URL_GROUPS, "url_depth", "url_root", "url_query", "url_number")  # what _url_features returns
_TAG_COUNTS = {
    "n_article": {"article"},
    "n_li": {"li"},
    "n_h2_h3": {"h2", "h3"},
    "n_img": {"img", "picture"},
    "n_form": {"form", "input", "button", "select", "textarea"},
    "n_pre_code": {"pre", "code"},
    "n_table": {"table"},
    "n_time": {"time"},
}
_BLOCK_SHARES = {
    "in_li": {"li"},
    "in_table": {"td", "th"},
    "in_pre": {"pre", "code"},
    "in_heading": {"h1", "h2", "h3", "h4", "h5", "h6"},
    "in_nav": {"nav", "header", "footer", "aside"},
}
_LETTERS = re.compile(r"[a-z]+")
_WORD = re.compile(r"\w+")
# Every tag of a group to one code, looked up once per tag path (the groups are disjoint; 0: any other tag):
# its share group in the low bits (1-based; <p> last, a share of its own, a prose feature), its count group above.
_P_SHARE = len(_BLOCK_SHARES) + 1
_COUNT_SHIFT = 3  # share codes 0..6 fit below it
_SHARE_GROUP = {tag: i for i, tags in enumerate(_BLOCK_SHARES.values(), 1) for tag in tags} | {"p": _P_SHARE}
_COUNT_GROUP = {tag: i for i, tags in enumerate(_TAG_COUNTS.values(), 1) for tag in tags}
_TAG_CODE = {
    tag: _SHARE_GROUP.get(tag, 0) | _COUNT_GROUP.get(tag, 0) << _COUNT_SHIFT
    for tag in _SHARE_GROUP.keys() | _COUNT_GROUP.keys()
}
FEATURES: tuple[str, ...] = (
    "log_blocks", "log_chars", "log_mean_block_chars", "link_char_share", "link_block_share",
    *_BLOCK_SHARES, *(f"log_{name}" for name in _TAG_COUNTS), *_LD_GROUPS,
    "og_article", "og_product", "og_website", "has_author", "has_published", "has_modified", "has_description",
    *_URL_FEATURES,
    "p_share", "log_longest_paragraph", "log_long_paragraphs", "log_prose_siblings",
)  # fmt: skip
LONG_PARAGRAPH_CHARS = 200  # a paragraph of prose, as articles have many and listings few
# Cross-validated (see page_words) with letters-only labels: 15 and 40 characters did as well as 25;
# the first 100, 200 and 400 labels 0.869, 0.873 and 0.877, as many as all of them
LABEL_CHARS = 25  # a block this short is a label: a button, a caption, a menu entry
MAX_LABELS = 400  # the labels read, in page order
N_FEATURES = len(FEATURES)


def page_type_features(document: Document, metadata: Metadata, ld_types: set[str], url: str | None) -> np.ndarray:
    """The :data:`FEATURES` of one page (float32, schema :data:`SCHEMA_VERSION`); ``ld_types``: its JSON-LD types."""
    counts = page_counts(document)
    blocks = len(document.texts)
    total = counts.total or 1.0
    values: list[float] = [
        math.log1p(blocks),  # math on one number: numpy's call costs more than the logarithm
        math.log1p(total),
        math.log1p(total / max(blocks, 1)),
        counts.link_chars / total,
        counts.link_blocks / blocks if blocks else 0.0,
    ]
    values += [*(counts.shares[1:_P_SHARE] / total).tolist(), *np.log1p(counts.tag_counts[1:]).tolist()]
    values += [float(bool(ld_types & group)) for group in _LD_GROUPS.values()]
    og = og_type(document)
    values += [float(og == "article"), float("product" in og), float(og == "website")]
    values += [
        float(bool(metadata.author)),
        float(metadata.date_published is not None),
        float(metadata.date_modified is not None),
        float(metadata.description is not None),
    ]
    values += _url_features(url or metadata.canonical_url)
    values += [
        float(counts.shares[_P_SHARE] / total),
        math.log1p(counts.longest_paragraph),
        math.log1p(counts.long_paragraphs),
        math.log1p(counts.prose_side_by_side),
    ]
    return np.asarray(values, dtype=np.float32)


def _url_features(address: str | None) -> list[float]:
    """What the page's URL says (its path's words, depth, query, a long number); NaN for each where it has none.

    A page whose URL is not known (raw HTML sent without one, and no canonical link) is not a site's
    root page: :meth:`PageTypeModel.row` reads each unknown as the training pages' mean, which moves
    no class. Read as an empty path, two thirds of such WCXB pages were typed wrong, most as service.
    """
    if not address:
        return [np.nan] * len(_URL_FEATURES)
    parts = urlsplit(address)
    path = parts.path.lower()
    segments = [s for s in path.split("/") if s]
    pieces = set(_URL_PIECE_END.split(path))  # a set intersection per group, not a pattern's search: a third faster
    groups = [float(not words.isdisjoint(pieces)) for words in _URL_GROUPS.values()]
    groups[_ARTICLE_GROUP] = groups[_ARTICLE_GROUP] or float(_YEAR_PIECE.search(path) is not None)
    return [
        *groups,
        len(segments),
        float(not segments),
        float(bool(parts.query)),
        float(bool(_LONG_NUMBER.search(path))),
    ]


class PageCounts(NamedTuple):
    """What the structure features are made of: sums over the page's blocks and counts of its elements.

    ``shares``: the characters of the blocks in each share group's paragraphs (index 0: no group);
    ``tag_counts``: the elements of each count group (index 0: none). The paragraphs' figures say how
    long they run, whatever the page's markup era: the longest, how many are prose, and side by side.
    With the share of text in ``<p>``, those are the prose features; the share inside comment threads,
    tried too, took 2012 articles with long threads for forums. "Side by side" is the most paragraphs
    of prose (:data:`LONG_PARAGRAPH_CHARS` outside links) under one parent: an article's body holds
    its paragraphs together where a listing gives each summary a card of its own (Readability scores a
    parent by its paragraphs for the same reason). Without it, 2012 articles whose sidebars and
    footers are lists of linked headlines were typed listings; with it, cross-validated over the train
    and validation parts, more pages of every draw were typed right.
    """

    total: float
    link_chars: float
    link_blocks: int
    shares: np.ndarray
    tag_counts: np.ndarray
    longest_paragraph: float
    long_paragraphs: int
    prose_side_by_side: int


def page_counts(document: Document) -> PageCounts:
    """The page's :class:`PageCounts`: in C (``_page_counts.pyx``) where ``make build-ext`` built it."""
    if _compiled is None:
        return python_page_counts(document)
    shares = np.empty(_P_SHARE + 1)
    tag_counts = np.empty(len(_TAG_COUNTS) + 1, dtype=np.int64)
    sums = _compiled.page_counts(
        _path_codes(document),
        document.elem_path,
        document.elem_parent,
        document.block_paragraph,
        document.block_chars,
        document.block_in_link.view(np.uint8),
        _COUNT_SHIFT,
        LONG_PARAGRAPH_CHARS,
        shares,
        tag_counts,
    )
    total, link_chars, link_blocks, longest, long_paragraphs, side_by_side = sums
    return PageCounts(total, link_chars, link_blocks, shares, tag_counts, longest, long_paragraphs, side_by_side)


def python_page_counts(document: Document) -> PageCounts:
    """:func:`page_counts` in NumPy: the reference of the compiled one, and what serves where it is not built."""
    chars, in_link, paragraph = document.block_chars, document.block_in_link, document.block_paragraph
    # a block's paragraph is its nearest block-level ancestor: its tag says list item, cell, heading, nav ...
    code = _path_codes(document)
    groups = code[document.elem_path[paragraph]] & ((1 << _COUNT_SHIFT) - 1)
    shares = np.bincount(groups, weights=chars, minlength=_P_SHARE + 1).astype(np.float64)  # int64 where no blocks
    tag_counts = np.bincount(code[document.elem_path] >> _COUNT_SHIFT, minlength=len(_TAG_COUNTS) + 1)
    if not len(chars):
        return PageCounts(0.0, 0.0, 0, shares, tag_counts, 0.0, 0, 0)
    per_paragraph = np.bincount(paragraph, weights=chars)
    prose = np.bincount(paragraph, weights=np.where(in_link, 0, chars))
    parents = document.elem_parent[np.flatnonzero(prose >= LONG_PARAGRAPH_CHARS)]
    parents = parents[parents >= 0]
    return PageCounts(
        total=float(chars.sum()),
        link_chars=float(chars[in_link].sum()),
        link_blocks=int(np.count_nonzero(in_link)),
        shares=shares,
        tag_counts=tag_counts,
        longest_paragraph=float(per_paragraph.max()),
        long_paragraphs=int(np.count_nonzero(per_paragraph >= LONG_PARAGRAPH_CHARS)),
        prose_side_by_side=int(np.bincount(parents).max()) if parents.size else 0,
    )


def _path_codes(document: Document) -> np.ndarray:
    """Each tag path's group code (:data:`_TAG_CODE`); dict.get with a default, mapped in C.

    A defaultdict would keep every tag name a page invents.
    """
    return np.fromiter(map(_TAG_CODE.get, document.path_tag, repeat(0)), np.int32, len(document.path_tag))


def og_type(document: Document) -> str:
    """The page's OpenGraph type, lower-cased ("" where it has none)."""
    return next((v for k, v in document.markup.meta if k == "og:type"), "").lower()


def page_words(document: Document, metadata: Metadata, ld_types: set[str], url: str | None) -> set[str]:
    """The page's words that name its kind: its URL's and ``<title>``'s, its JSON-LD and OpenGraph types, its labels.

    The head's title as the page writes it, not the metadata's chosen title: the rules that choose one
    can change without the model having to be refitted. The labels are the page's short blocks, each
    whole ("add to cart", "reply", "read more", "contact us"): the buttons and captions that say what a
    page is for, lower-cased (5-fold cross-validation over the train and validation parts: 0.853 without
    them, 0.876 with; 0.877 with only their letters kept, which cost twice as much).

    Prefixed by where they come from (``u_blog``, ``t_best``, ``ld_product``, ``og_article``,
    ``s_add to cart``); the model keeps those seen on at least a few training pages as yes/no features.
    """
    path = urlsplit(url or metadata.canonical_url or "").path.lower()
    words = {f"u_{w}" for w in _LETTERS.findall(path)}
    words.update(f"t_{w}" for w in _WORD.findall(document.markup.title.lower()))
    words.update(f"ld_{t}" for t in ld_types)
    og = og_type(document)
    if og:
        words.add(f"og_{og}")
    labels = np.flatnonzero(document.block_chars <= LABEL_CHARS)[:MAX_LABELS].tolist()
    if labels:  # lower-cased and prefixed in one join: 0.05 ms a page, 0.11 one by one
        texts = itemgetter(*labels)(document.texts) if len(labels) > 1 else (document.texts[labels[0]],)
        words.update(("s_" + "\x1fs_".join(texts)).lower().split("\x1f"))
    return words


@dataclass(frozen=True)
class PageTypeModel:
    """Standardise, multiply, softmax: the page type and its probability.

    A row is the :data:`FEATURES` then one yes/no column per word of ``vocabulary`` (see :func:`page_words`).
    """

    classes: tuple[str, ...]
    vocabulary: tuple[str, ...]
    mean: np.ndarray  # per column; 0 for the word columns
    scale: np.ndarray  # per column; 1 for the word columns
    coef: np.ndarray  # classes × columns
    intercept: np.ndarray

    @cached_property
    def _columns(self) -> dict[str, int]:
        return {word: N_FEATURES + i for i, word in enumerate(self.vocabulary)}

    @cached_property
    def _known(self) -> frozenset[str]:
        return frozenset(self.vocabulary)

    def row(self, features: np.ndarray, words: set[str]) -> np.ndarray:
        """The model's input for one page as the trainer fits it: its features and which vocabulary words it has."""
        row = np.zeros(N_FEATURES + len(self.vocabulary))
        row[:N_FEATURES] = self._known_features(features)
        row[self._word_columns(words)] = 1.0
        return row

    def _known_features(self, features: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(features), self.mean[:N_FEATURES], features)  # unknown: the training pages' mean

    def _word_columns(self, words: set[str]) -> list[int]:
        columns = self._columns
        return [columns[word] for word in words & self._known]  # a set intersection walks the page's words in C

    @cached_property
    def _folded(self) -> tuple[np.ndarray, np.ndarray]:
        """The standardisation folded into the weights: a product with the features, a sum of the words' rows."""
        weights = np.ascontiguousarray((self.coef / self.scale).T)  # a word's weights one row in memory
        return weights, self.intercept - (self.mean / self.scale) @ self.coef.T

    def probabilities(self, features: np.ndarray, words: set[str]) -> np.ndarray:
        """Each class's probability for one page, from its :data:`FEATURES` (NaN: unknown) and its words.

        A word column is 1 or 0, so its product is its weights' row or nothing: the rows of the page's
        words are summed instead of multiplying a row of some 2,400 zeros and a few ones (0.06 ms a page).
        """
        weights, bias = self._folded
        logits = self._known_features(features) @ weights[:N_FEATURES] + bias
        present = self._word_columns(words)
        if present:
            logits = logits + np.add.reduce(weights.take(present, axis=0), axis=0)
        exp = np.exp(logits - logits.max())
        return exp / exp.sum()

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA_NAME,
            "schema_version": SCHEMA_VERSION,
            "features": list(FEATURES),
            "classes": list(self.classes),
            "vocabulary": list(self.vocabulary),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
        }

    @classmethod
    def from_json(cls, record: dict[str, object], source: str) -> PageTypeModel:
        """The model in ``record``; refuses another feature schema or a shape that does not fit."""
        if record.get("schema") != SCHEMA_NAME or record.get("schema_version") != SCHEMA_VERSION:
            raise ModelError(f"{source}: trained on features {record.get('schema')!r} v{record.get('schema_version')}")
        if record.get("features") != list(FEATURES):
            raise ModelError(f"{source}: its feature list differs from this code's; retrain it")
        try:
            model = cls(
                classes=tuple(str(c) for c in record["classes"]),  # type: ignore[attr-defined]
                vocabulary=tuple(str(w) for w in record["vocabulary"]),  # type: ignore[attr-defined]
                mean=np.asarray(record["mean"], dtype=np.float64),
                scale=np.asarray(record["scale"], dtype=np.float64),
                coef=np.asarray(record["coef"], dtype=np.float64),
                intercept=np.asarray(record["intercept"], dtype=np.float64),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(f"{source}: malformed page-type model: {error}") from error
        columns = N_FEATURES + len(model.vocabulary)
        shapes_fit = model.coef.shape == (len(model.classes), columns) and model.mean.shape == (columns,)
        if not shapes_fit or model.scale.shape != (columns,) or model.intercept.shape != (len(model.classes),):
            raise ModelError(f"{source}: coefficient shapes do not fit {N_FEATURES} features and the vocabulary")
        if not set(model.classes) <= set(PAGE_TYPES):
            raise ModelError(f"{source}: unknown page types {sorted(set(model.classes) - set(PAGE_TYPES))}")
        return model


def load_page_type_model(store: ModelStore) -> PageTypeModel | None:
    """The store's page-type model, digest checked; None where the store has none."""
    if MODEL_NAME not in store.names():
        return None
    entry, paths = store.verified(MODEL_NAME)
    entry.require_schema(SCHEMA_NAME, SCHEMA_VERSION)
    path: Path = paths["model"]
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read {path}: {error}") from error
    return PageTypeModel.from_json(record, str(path))


def _load_compiled() -> ModuleType | None:
    """The compiled counts (``_page_counts.pyx``, ``make build-ext``); None where not built."""
    try:
        from service.metadata import _page_counts  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    return _page_counts


_compiled = _load_compiled()
