"""The images a reader should see with the content, and the URL each one really loads.

An image is kept where its paragraph keeps text, where its ``<figure>`` keeps text
(a caption), or where the content runs on both sides of it. Its URL is the first of
the lazy-load attributes sites put the real one in (``data-src``, ``data-original``,
``data-lazy-src``), the largest candidate of a ``srcset`` (its own, ``data-srcset``,
or a ``<picture>``'s ``<source>``), then ``src``; a ``data:`` placeholder or a script
URL never counts. URLs are made absolute against the base URL; an image whose URL
already came earlier (the ``<noscript>`` copy of a lazy image) is left out, as are
tracking pixels (width or height of at most :data:`MAX_PIXEL_SIDE`).
"""

from __future__ import annotations

import numpy as np

from service.output.markup import safe_url
from service.output.tree import Image
from service.parsing.document import BLOCK_LEVEL_TAGS, Document
from service.parsing.urls import joined_url

LAZY_ATTRIBUTES = ("data-src", "data-original", "data-lazy-src")
SRCSET_ATTRIBUTES = ("data-srcset", "srcset")
MAX_PIXEL_SIDE = 2
_IMG, _FIGURE = frozenset({"img"}), frozenset({"figure"})


def kept_images(document: Document, keep: np.ndarray, base_url: str | None) -> list[Image]:
    """The images that belong to the kept content, in document order."""
    images = np.flatnonzero(document.elem_tagged(_IMG))
    kept = np.flatnonzero(keep)
    if not images.size or not kept.size:
        return []
    # an image goes before the first block whose element comes after it in the page
    last_elem = np.maximum.accumulate(document.block_elem)
    before = np.searchsorted(last_elem, images, side="right")
    paragraph = document.nearest_marked(document.elem_tagged(BLOCK_LEVEL_TAGS))
    figure = document.nearest_marked(document.elem_tagged(_FIGURE))
    kept_paragraphs = set(document.block_paragraph[kept].tolist())
    kept_figures = set(figure[document.block_elem[kept]].tolist()) - {-1}
    padded = np.concatenate([[False], keep, [False]])
    surrounded = padded[before] & padded[before + 1]  # the blocks before and after it are both kept
    out: list[Image] = []
    seen: set[str] = set()
    for elem, at, between in zip(images.tolist(), before.tolist(), surrounded.tolist(), strict=True):
        if not (between or paragraph[elem] in kept_paragraphs or figure[elem] in kept_figures):
            continue
        src = image_url(document, elem, base_url)
        if src is None or src in seen or _is_pixel(document, elem):
            continue
        seen.add(src)
        out.append(Image(elem, at, src, " ".join(document.elem_attribute("alt", "img").get(elem, "").split())))
    return out


def image_url(document: Document, elem: int, base_url: str | None) -> str | None:
    """The URL the image really loads, absolute where ``base_url`` is given; None where it has none worth loading."""
    candidates = [document.elem_attribute(name, "img").get(elem, "") for name in LAZY_ATTRIBUTES]
    candidates += [_largest(document.elem_attribute(name, "img").get(elem, "")) for name in SRCSET_ATTRIBUTES]
    candidates.append(document.elem_attribute("src", "img").get(elem, ""))
    candidates += [_largest(srcset) for srcset in _picture_sources(document, elem)]
    for candidate in candidates:
        url = safe_url(candidate.strip())
        if url and (url := joined_url(base_url, url)):  # "" where it does not read as a URL: the next candidate
            return url
    return None


def _picture_sources(document: Document, elem: int) -> list[str]:
    """The ``srcset`` of each ``<source>`` beside the image in its ``<picture>``."""
    parent = int(document.elem_parent[elem])
    if parent < 0 or document.elem_tag[parent] != "picture":
        return []
    sources = document.elem_attribute("srcset", "source")
    return [srcset for source, srcset in sources.items() if int(document.elem_parent[source]) == parent]


def _largest(srcset: str) -> str:
    """The candidate of a ``srcset`` with the largest width or density descriptor ("" for none)."""
    best, best_size = "", -1.0
    for candidate in srcset.split(","):
        parts = candidate.split()
        if not parts:
            continue
        size = 1.0
        if len(parts) > 1 and parts[1][:-1].replace(".", "", 1).isdigit():
            size = float(parts[1][:-1])
        if size > best_size:
            best, best_size = parts[0], size
    return best


def _is_pixel(document: Document, elem: int) -> bool:
    for name in ("width", "height"):
        value = document.elem_attribute(name, "img").get(elem, "").strip()
        if value.isdigit() and int(value) <= MAX_PIXEL_SIDE:
            return True
    return False
