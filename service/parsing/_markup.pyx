# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The page markup of :func:`service.parsing.markup.collect_markup` in C: the same fields, read off Lexbor's nodes.

The Python reader pays for a matcher pass over ``<head>``, a ``LexborNode`` and an
attribute dict per ``<meta>`` (a page has 20 to 60); here the head is walked and
each attribute compared by its name in Lexbor's tables, as ``_walk.pyx`` does, so
no Lexbor function is called and nothing is linked. Text is cleaned by the Python
reader's own ``clean`` unless its bytes show that cleaning leaves it as it is (no
white space at its ends or runs of it inside, short enough), so both read the same.
Built against the selectolax version ``_walk.pyx`` is (``setup.py``); beside another one it does not
import, and the Python reader serves.
"""

from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy
import selectolax

from selectolax.lexbor cimport (
    LXB_DOM_NODE_TYPE_ELEMENT,
    LexborNode,
    lxb_dom_attr_t,
    lxb_dom_character_data_t,
    lxb_dom_node_t,
)

include "_selectolax_version.pxi"

if selectolax.__version__ != SELECTOLAX_VERSION:
    raise ImportError(f"built against selectolax {SELECTOLAX_VERSION}, not {selectolax.__version__}")

include "_lexbor_attributes.pxi"

cdef extern from "lexbor/tag/const.h":
    cdef uintptr_t LXB_TAG__TEXT
    cdef uintptr_t LXB_TAG_HEAD
    cdef uintptr_t LXB_TAG_META
    cdef uintptr_t LXB_TAG_LINK
    cdef uintptr_t LXB_TAG_TITLE
    cdef uintptr_t LXB_TAG_BASE
    cdef uintptr_t LXB_TAG_SCRIPT
    cdef uintptr_t LXB_TAG_TIME
    cdef uintptr_t LXB_TAG_H1
    cdef uintptr_t LXB_TAG_BR
    cdef uintptr_t LXB_TAG_STYLE

# The attributes read, by what they are called: a standard one by Lexbor's id, any other by its name.
cdef enum:  # the attribute names, as indices
    CONTENT, HREF, HTTP_EQUIV, REL, TYPE, PROPERTY, NAME, ITEMPROP, DATETIME, NAMES

cdef object _clean = None  # the Python reader's clean(), for text whose bytes do not show it clean already
cdef Py_ssize_t _max_text = 0, _max_items = 0
cdef frozenset _item_dates = frozenset()


def configure(clean, Py_ssize_t max_text_chars, Py_ssize_t max_items, item_dates):
    """The Python reader's cleaning, limits and microdata date names: one definition of each."""
    global _clean, _max_text, _max_items, _item_dates
    _clean, _max_text, _max_items, _item_dates = clean, max_text_chars, max_items, frozenset(item_dates)


cdef int _name_of(lxb_dom_attr_t *attr) noexcept:
    """Which of the names above the attribute has, read as ``node.attributes`` keys it; NAMES for any other."""
    cdef uintptr_t name = attr.qualified_name if attr.qualified_name != 0 else attr.node.local_name
    if name <= LXB_DOM_ATTR__LAST_ENTRY:
        if name == LXB_DOM_ATTR_CONTENT:
            return CONTENT
        if name == LXB_DOM_ATTR_HREF:
            return HREF
        if name == LXB_DOM_ATTR_HTTP_EQUIV:
            return HTTP_EQUIV
        if name == LXB_DOM_ATTR_REL:
            return REL
        if name == LXB_DOM_ATTR_TYPE:
            return TYPE
        return NAMES
    cdef const _AttrData *data = <const _AttrData *> name
    if _named(data, "property", 8):
        return PROPERTY
    if _named(data, "name", 4):
        return NAME
    if _named(data, "itemprop", 8):
        return ITEMPROP
    if _named(data, "datetime", 8):
        return DATETIME
    return NAMES


cdef void _attributes(lxb_dom_node_t *node, lxb_dom_attr_t **found) noexcept:
    """``found[name]``: the element's attribute of each name above (the last, as in a dict), NULL where none."""
    cdef int i
    for i in range(NAMES):
        found[i] = NULL
    cdef lxb_dom_attr_t *attr = (<_Element *> node).first_attr
    while attr != NULL:
        i = _name_of(attr)
        if i != NAMES:
            found[i] = attr
        attr = attr.next


cdef inline bint _has_value(lxb_dom_attr_t *attr) noexcept:
    """Whether ``node.attributes`` gives the attribute a truthy value (not None, not "")."""
    return attr != NULL and attr.value != NULL and attr.value.data != NULL and attr.value.length > 0


cdef inline str _value(lxb_dom_attr_t *attr):
    """The attribute's value as ``node.attributes`` reads it, "" for None."""
    if not _has_value(attr):
        return ""
    return PyUnicode_DecodeUTF8(<const char *> attr.value.data, attr.value.length, "replace")


cdef inline bint _visible_ascii(unsigned char byte) noexcept:
    return 0x21 <= byte <= 0x7e


cdef str _cleaned(const unsigned char *data, Py_ssize_t length):
    """``clean(data.decode("utf-8", "replace"))``, without the call where the bytes show it changes nothing."""
    cdef Py_ssize_t i
    cdef unsigned char byte
    if length == 0:
        return ""
    if length <= _max_text and _visible_ascii(data[0]) and _visible_ascii(data[length - 1]):
        for i in range(length):
            byte = data[i]
            if byte == 10 or byte == 9 or byte == 13 or (byte == 32 and data[i + 1] == 32):  # the last byte is no space
                break
        else:
            return PyUnicode_DecodeUTF8(<const char *> data, length, "replace")
    return _clean(PyUnicode_DecodeUTF8(<const char *> data, length, "replace"))


cdef inline str _cleaned_value(lxb_dom_attr_t *attr):
    if not _has_value(attr):
        return ""
    return _cleaned(attr.value.data, attr.value.length)


cdef str _folded(lxb_dom_attr_t *attr):
    """The value ``.strip().lower()`` (in C where it is visible ASCII, which neither changes but for the case)."""
    if not _has_value(attr):
        return ""
    cdef const unsigned char *data = attr.value.data
    cdef Py_ssize_t i, length = attr.value.length
    cdef unsigned char small[64]
    if length <= 64:
        for i in range(length):
            if not _visible_ascii(data[i]):
                break
            small[i] = data[i] + 32 if 65 <= data[i] <= 90 else data[i]
        else:
            return PyUnicode_DecodeASCII(<const char *> small, length, NULL)
    return _value(attr).strip().lower()


cdef struct Buffer:
    unsigned char *data
    Py_ssize_t size, capacity


cdef inline lxb_dom_node_t *_next_under(lxb_dom_node_t *node, lxb_dom_node_t *root) noexcept:
    """The node after ``node`` in document order among ``root``'s descendants; NULL after the last."""
    if node.first_child != NULL:
        return node.first_child
    while node != root and node.next == NULL:
        node = node.parent
    return NULL if node == root else node.next


cdef Py_ssize_t _text(lxb_dom_node_t *root, Buffer *buffer) except -1:
    """``node.text()``'s bytes into ``buffer``: the data of every text node under ``root``, in document order."""
    cdef lxb_dom_node_t *node = root.first_child
    cdef lxb_dom_character_data_t *character
    cdef Py_ssize_t length
    cdef unsigned char *grown
    buffer.size = 0
    while node != NULL:
        if node.local_name == LXB_TAG__TEXT:
            character = <lxb_dom_character_data_t *> node
            length = character.data.length
            if character.data.data != NULL and length > 0:
                if buffer.size + length > buffer.capacity:
                    grown = <unsigned char *> realloc(buffer.data, 2 * (buffer.size + length))
                    if grown == NULL:
                        raise MemoryError()
                    buffer.data, buffer.capacity = grown, 2 * (buffer.size + length)
                memcpy(buffer.data + buffer.size, character.data.data, length)
                buffer.size += length
        node = _next_under(node, root)
    return buffer.size


cdef str _heading_text(lxb_dom_node_t *root):
    """The Python reader's ``heading_text``: each text node decoded, a ``<br>`` a space, a ``<style>`` nothing."""
    cdef lxb_dom_node_t *node = root.first_child
    cdef lxb_dom_character_data_t *character
    cdef list parts = []
    while node != NULL:
        if node.local_name == LXB_TAG__TEXT:
            character = <lxb_dom_character_data_t *> node
            if character.data.data != NULL and character.data.length > 0 and not _in_code(node):
                parts.append(PyUnicode_DecodeUTF8(<const char *> character.data.data, character.data.length, "replace"))
        elif node.local_name == LXB_TAG_BR:
            parts.append(" ")
        node = _next_under(node, root)
    return "".join(parts)


cdef bint _in_code(lxb_dom_node_t *text) noexcept:
    """Whether a text node is a ``<style>``'s or a ``<script>``'s (CSS-in-JS puts one inside a heading)."""
    return text.parent != NULL and (text.parent.local_name == LXB_TAG_STYLE or text.parent.local_name == LXB_TAG_SCRIPT)


cdef str _text_str(lxb_dom_node_t *root, Buffer *buffer):
    """``node.text()``, decoded from the buffer as selectolax decodes it."""
    if not _text(root, buffer):
        return ""
    return PyUnicode_DecodeUTF8(<const char *> buffer.data, buffer.size, "replace")


cdef str _text_cleaned(lxb_dom_node_t *root, Buffer *buffer):
    """``clean(node.text())``."""
    return _cleaned(buffer.data, buffer.size) if _text(root, buffer) else ""


cdef bint _is_json_ld(lxb_dom_attr_t *type_attr) except -1:
    """``type="application/ld+json"``, its case aside and parameters aside (``; charset=utf-8``)."""
    return _has_value(type_attr) and _folded(type_attr).split(";", 1)[0].strip() == "application/ld+json"


cdef bint _has_token(lxb_dom_attr_t *attr, const char *word, Py_ssize_t length) noexcept:
    """CSS ``[rel~="word" i]``: ``word`` is one of the value's white-space separated tokens, ASCII case aside."""
    if not _has_value(attr):
        return False
    cdef const unsigned char *data = attr.value.data
    cdef Py_ssize_t n = attr.value.length, start = 0, end, i
    cdef unsigned char byte
    while start < n:
        while start < n and data[start] in b" \t\n\r\f":
            start += 1
        end = start
        while end < n and data[end] not in b" \t\n\r\f":
            end += 1
        if end - start == length:
            for i in range(length):
                byte = data[start + i]
                if (byte | 32 if 65 <= byte <= 90 else byte) != <unsigned char> word[i]:
                    break
            else:
                return True
        start = end
    return False


cdef str _meta_key(lxb_dom_attr_t **found):
    """The first of property, name, itemprop, http-equiv with a value (the Python reader's ``or`` chain)."""
    for name in (PROPERTY, NAME, ITEMPROP, HTTP_EQUIV):
        if _has_value(found[name]):
            return _value(found[name])
    return ""


cdef void _read_head(
    lxb_dom_node_t *head, list meta, list links, list json_ld, list title, list base, Buffer *buffer
) except *:
    """What the Python reader's matcher pass over ``<head>`` reads, in document order."""
    cdef lxb_dom_attr_t *found[NAMES]
    cdef lxb_dom_node_t *node = head.first_child
    cdef uintptr_t tag
    cdef str key, content
    while node != NULL:
        if node.type == LXB_DOM_NODE_TYPE_ELEMENT:
            tag = node.local_name
            if tag == LXB_TAG_META or tag == LXB_TAG_LINK or tag == LXB_TAG_SCRIPT or tag == LXB_TAG_BASE:
                _attributes(node, found)
            if tag == LXB_TAG_META and found[CONTENT] != NULL:
                key = _meta_key(found)
                content = _cleaned_value(found[CONTENT])
                if key and content:
                    meta.append((key.strip().lower(), content))
            elif tag == LXB_TAG_LINK and found[HREF] != NULL:
                # once per selector of the list it matches, as Lexbor's matcher reports it ("canonical author": twice)
                for _ in range(_has_token(found[REL], "canonical", 9) + _has_token(found[REL], "author", 6)):
                    links.append((_folded(found[REL]), _value(found[HREF]).strip()))
            elif tag == LXB_TAG_TITLE:
                if not title[0]:
                    title[0] = _text_cleaned(node, buffer)
            elif tag == LXB_TAG_SCRIPT and found[TYPE] != NULL and _is_json_ld(found[TYPE]):
                json_ld.append(_text_str(node, buffer))
            elif tag == LXB_TAG_BASE and found[HREF] != NULL and base[0] is None:
                base[0] = _value(found[HREF]).strip()
        node = _next_under(node, head)


cdef void _add_item_date(list found, lxb_dom_attr_t **attributes, int value_name) except *:
    cdef str name = _folded(attributes[ITEMPROP])
    cdef str value = _cleaned_value(attributes[value_name])
    if name in _item_dates and value and len(found) < _max_items:
        found.append((name, value))


def read_markup(kept):
    """PageMarkup's fields (title, meta, ..., base_href) of the walk's ``kept`` nodes, as the Python reader reads them."""
    if _clean is None:
        raise RuntimeError("configure() the compiled markup reader first")
    cdef list meta = [], links = [], json_ld = [], times = [], headings = [], item_dates = []
    cdef list title = [""]
    cdef list base = [None]
    cdef lxb_dom_attr_t *found[NAMES]
    cdef lxb_dom_node_t *node
    cdef uintptr_t tag
    cdef Buffer buffer
    cdef str text
    buffer.data, buffer.size, buffer.capacity = NULL, 0, 0
    try:
        for item in kept:
            node = (<LexborNode?> item).node
            tag = node.local_name
            if tag == LXB_TAG_HEAD:
                _read_head(node, meta, links, json_ld, title, base, &buffer)
            elif tag == LXB_TAG_SCRIPT:
                _attributes(node, found)
                if _is_json_ld(found[TYPE]):
                    json_ld.append(_text_str(node, &buffer))
            elif tag == LXB_TAG_TIME and len(times) < _max_items:
                _attributes(node, found)
                times.append((_cleaned_value(found[DATETIME]), _text_cleaned(node, &buffer)))
                _add_item_date(item_dates, found, DATETIME)
            elif tag == LXB_TAG_META:
                _attributes(node, found)
                _add_item_date(item_dates, found, CONTENT)
            elif tag == LXB_TAG_H1 and len(headings) < _max_items:
                text = _clean(_heading_text(node))
                if text:
                    headings.append(text)
    finally:
        free(buffer.data)
    return (
        title[0], tuple(meta), tuple(links), tuple(json_ld), tuple(times), tuple(headings), tuple(item_dates),
        base[0] or "",
    )
