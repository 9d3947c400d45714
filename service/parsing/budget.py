"""How much work a page may ask of the parser, counted in its bytes before it is parsed.

A few megabytes of markup can ask for far more work than their size suggests: two
million sibling ``<p>`` make two million elements (and blocks, and model steps), and
Lexbor registers every distinct attribute name in a structure whose cost grows with
the square of their number (``python -m service bench --page-budget``: 20,000
elements with distinct attribute names took 3.6 s to parse, with one name 0.01 s).
and Lexbor's tree builder spends time on each ``<option>`` of a ``<select>`` in
proportion to the options before it (``bench --page-budget``: 10,000 in one ``<select>``
0.54 s, 20,000 2.8 s). All three are counted here and a page over any budget is
:class:`~service.errors.PageTooComplex`, refused before Lexbor or the walk spend
anything on it.

elements
    Start tags: a ``<`` followed by an ASCII letter, counted in the bytes with numpy
    (tag-like text inside scripts and comments counts too, so the count errs high).
    Lexbor makes one element per start tag, plus a few it implies.
attribute names
    The distinct names of start-tag attributes, found by a scan that follows the
    HTML tokenizer: comments (abrupt ``<!-->`` included), doctypes and bogus
    comments, quoted attribute values, and the raw-text elements (``<script>``,
    ``<style>``, ``<textarea>``, ``<title>`` ...), whose text holds no tags. End-tag
    attributes are tokenized and dropped by Lexbor, at no cost. Inside ``<svg>`` and
    ``<math>`` (where ``<script>`` and ``<style>`` hold markup) and after a
    ``<frameset>`` (which drops them unread), raw text is scanned as markup. What
    only the tree builder knows escapes the scan: script text that opens
    ``<!--<script>``, an HTML element inside ``<svg>`` that ends foreign content
    early. A page built on that may carry more names than counted. The scan is
    compiled (``_budget.pyx``, ``make build-ext``) where built, a regex pass here
    where not: the same count, at some forty times the speed (``bench --page-budget``).
options
    ``<option`` in any case, anywhere: an upper bound on the options of any one
    ``<select>`` (those outside one cost Lexbor nothing much, but are counted too;
    in ``<optgroup>`` groups of ten they cost a twentieth, growing as fast). Counted
    only on a page with more ``<`` than the budget allows options.

The defaults are about ten times (elements) and four times (names) the most of any
WCXB dev page (``bench --page-budget``: 15,793 start tags; 1,285 attribute names);
options about three times the most of any WCXB dev page (1,854), where one ``<select>``
of 5,000 parses in about a tenth of a second (10,000: half a second; 20,000: nearly three).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from service.errors import PageTooComplex

DEFAULT_MAX_ELEMENTS = 150_000
DEFAULT_MAX_ATTRIBUTE_NAMES = 5_000
DEFAULT_MAX_OPTIONS = 5_000

_LT, _CASE_BIT, _A, _Z = ord("<"), 0x20, ord("a"), ord("z")
_OPTION = b"option"
_LT_O = _LT | ord("o") << 8  # "<o" read as a little-endian pair of bytes

# One attribute as the tokenizer reads it: separators, a name (its first character may be "="),
# and an optional value, quoted (to the closing quote or the end) or not (to white space or ">").
# Possessive (*+) white space, and a name search that starts only where a run of separators does:
# a run of a million spaces is read once, not once per space.
_ATTRIBUTE = (
    rb"[\t\n\f\r /]*+([^\t\n\f\r />][^\t\n\f\r />=]*)"
    rb"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*"?|'[^']*'?|[^\t\n\f\r >]*))?"""
)
_ATTRIBUTES = rb"(?:" + _ATTRIBUTE.replace(b"(", b"(?:", 1) + rb")*"
# Rescanned from the start of each list it reads the same attributes, so every search starts at one
# and none fails inside a run of separators (what keeps it linear).
_ATTRIBUTE_NAME = re.compile(_ATTRIBUTE)
# Between lists rescanned as one: it ends an unquoted value (or the white space after "=") and starts no name.
_LIST_SEPARATOR = b">"
# Elements whose text the tokenizer reads as text (RAWTEXT, RCDATA, script data) up to their end tag.
_RAW_TEXT_TAGS = rb"script|style|textarea|title|xmp|iframe|noembed|noframes"
_NOT_MARKUP = (
    rb"<!--(?:-?>|[^-]*(?:-(?!-!?>)[^-]*)*(?:--!?>)?)"  # a comment, <!--> and <!---> included
    rb"|<[!?][^>]*>?"  # a doctype, <![CDATA[ outside foreign content, <?xml ...>: to the next ">"
)
_TAGS = (
    rb"|</([A-Za-z][^\t\n\f\r />]*)"
    + _ATTRIBUTES  # an end tag (its attributes cost Lexbor nothing)
    + rb"|</[^>]*>?"  # </> and </ followed by no letter
    + rb"|<([A-Za-z][^\t\n\f\r />]*)("
    + _ATTRIBUTES
    + rb")"  # a start tag: its name and attributes
)
# Groups: raw-text element (tag, attributes, text), end tag name, start tag (name, attributes).
_MARKUP = re.compile(
    _NOT_MARKUP
    + rb"|<((?i:"
    + _RAW_TEXT_TAGS
    + rb"))(?=[\t\n\f\r />])("
    + _ATTRIBUTES
    + rb")[^>]*>?([^<]*(?:<(?!/(?i:\1)[\t\n\f\r />])[^<]*)*)"  # its text, to its end tag
    + _TAGS,
    re.DOTALL,
)
# The same, where raw-text elements hold markup (inside <svg> or <math>): groups end tag, start tag.
_MARKUP_ONLY = re.compile(_NOT_MARKUP + _TAGS, re.DOTALL)
_FOREIGN = re.compile(rb"<(?:svg|math|frameset)[\t\n\f\r />]", re.IGNORECASE)
_FOREIGN_NAMES = frozenset({b"svg", b"math", b"frameset"})


@dataclass(frozen=True, slots=True)
class PageBudget:
    """The most elements, distinct attribute names and options a page may have (0 names: not counted).

    Counting the names is a pass over every tag (in C where built, else a regex pass costlier than
    the parse itself); it is what keeps a page of many distinct attribute names from costing seconds
    to minutes.
    """

    max_elements: int = DEFAULT_MAX_ELEMENTS
    max_attribute_names: int = DEFAULT_MAX_ATTRIBUTE_NAMES
    max_options: int = DEFAULT_MAX_OPTIONS

    def check(self, html: bytes, lt_count: int | None = None) -> None:
        """Raise :class:`PageTooComplex` when ``html`` (UTF-8) is over any budget.

        ``lt_count``: :func:`count_lt` of ``html``, where the caller has counted already.
        """
        # Every start tag opens with "<": a page with no more of those than allowed needs no exact count,
        # and counting them alone costs a third of the exact count (most pages stop here).
        lt_count = count_lt(html) if lt_count is None else lt_count
        if lt_count > self.max_elements and (elements := count_start_tags(html)) > self.max_elements:
            raise PageTooComplex(f"the page has {elements} elements, more than the {self.max_elements} allowed")
        if lt_count > self.max_options and (options := count_options(html, self.max_options)) > self.max_options:
            raise PageTooComplex(f"the page has {options} <option>s, more than the {self.max_options} allowed")
        if not self.max_attribute_names:  # no scan: a deployment that trusts its pages
            return
        names = count_attribute_names(html)
        if names > self.max_attribute_names:
            raise PageTooComplex(
                f"the page has {names} distinct attribute names, more than the {self.max_attribute_names} allowed"
            )


def lexbor_parse_only(html: bytes) -> None:
    """Lexbor's tree build of ``html`` and nothing after it: the cost the attribute-name budget bounds.

    ``bench --page-budget`` times it; here so that selectolax stays inside :mod:`service.parsing`.
    """
    LexborHTMLParser(html)


def count_lt(html: bytes) -> int:
    """Every ``<`` in ``html``: numpy's count, a fourth of the time ``bytes.count`` takes on a page."""
    return int(np.count_nonzero(np.frombuffer(html, dtype=np.uint8) == _LT))


def count_start_tags(html: bytes) -> int:
    """``<`` followed by an ASCII letter, anywhere in ``html``: an upper bound on the start tags."""
    data = np.frombuffer(html, dtype=np.uint8)
    following = data[1:] | _CASE_BIT
    return int(np.count_nonzero((data[:-1] == _LT) & (following >= _A) & (following <= _Z)))


def count_options(html: bytes, enough: int = 0) -> int:
    """``<option`` in any case, anywhere in ``html``: an upper bound on the options of any ``<select>``.

    First ``<o`` and ``<O``, as pairs of bytes read two at a time at either offset (numpy, as
    :func:`count_lt`, and about its cost); where those are no more than ``enough``, their count (every
    option is one of them). Else every ``<`` followed by each letter of "option" in turn.
    """
    if len(html) < len(b"<o"):
        return 0
    rough = sum(
        int(np.count_nonzero((np.frombuffer(html, "<u2", (len(html) - start) // 2, start) | _CASE_BIT << 8) == _LT_O))
        for start in (0, 1)
    )
    if rough <= enough:
        return rough
    data = np.frombuffer(html, dtype=np.uint8)
    at = np.flatnonzero(data[: max(len(data) - len(_OPTION), 0)] == _LT)
    for offset, letter in enumerate(_OPTION, 1):
        at = at[(data[at + offset] | _CASE_BIT) == letter]
    return len(at)


def python_count_attribute_names(html: bytes) -> int:
    """Distinct attribute names of the start tags of ``html`` (lower case, as the tokenizer makes them).

    The reference, and what serves where the compiled scan is not built. One regex pass lists the
    tags; only a page with ``<svg>``, ``<math>`` or ``<frameset>`` is walked tag by tag, to scan the
    raw-text elements inside them as markup.
    """
    tags = _MARKUP.findall(html)
    lists = [listed for _, attributes, _, _, _, attributes_2 in tags for listed in (attributes, attributes_2) if listed]
    names = set(_ATTRIBUTE_NAME.findall(_LIST_SEPARATOR.join(lists).lower()))
    if _FOREIGN.search(html) is not None:
        # One by one: a quote left open at the end of a raw text would run on into the next list.
        names.update(name for listed in _raw_text_markup(tags) for name in _ATTRIBUTE_NAME.findall(listed.lower()))
    return len(names)


def _raw_text_markup(tags: list[tuple[bytes, ...]]) -> list[bytes]:
    """Attribute lists in the text of raw-text elements inside <svg>, <math> or after <frameset>."""
    found: list[bytes] = []
    depth = 0  # open <svg> and <math> elements; a <frameset> never closes
    for raw_tag, _, text, end_tag, start_tag, _ in tags:
        if start_tag and start_tag.lower() in _FOREIGN_NAMES:
            depth += 1
        elif end_tag and depth and end_tag.lower() in (b"svg", b"math"):
            depth -= 1
        elif raw_tag and depth and text:
            found.extend(attributes for _, _, attributes in _MARKUP_ONLY.findall(text) if attributes)
    return found


def load_compiled_scan(name: str) -> Callable[..., int] | None:
    """The byte scan ``name`` of ``_budget.pyx`` (``make build-ext``); None where it is not built.

    Each gives what its Python twin gives (the attribute-name count here, the nesting depth in nesting.py).
    """
    try:
        from service.parsing import _budget  # noqa: PLC0415 - optional: built by `make build-ext`
    except ImportError:
        return None
    scan: Callable[..., int] = getattr(_budget, name)
    return scan


compiled_count_attribute_names = load_compiled_scan("count_attribute_names")
count_attribute_names: Callable[[bytes], int] = compiled_count_attribute_names or python_count_attribute_names
