# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The block walk of :mod:`service.parsing.walk` in C: the same columns, read off Lexbor's nodes directly.

The Python walk pays for a ``LexborNode`` object and two property calls per node;
here a node is a ``lxb_dom_node_t`` pointer and its tag id, type and text are
struct fields (``cimport``-ed from selectolax's shipped ``lexbor.pxd``; an element's
attributes, and their names in the document's name table, from Lexbor's own
``element.h`` and ``attr.h``), so no Lexbor function is called (but one inline in a
header) and nothing is linked. Text is still cut with
Python's own ``str`` methods, so white space and printability are decided
exactly as the Python walk decides them; only all-ASCII white space, the most
common leaf, is recognised on the bytes. Built only against the selectolax
version it was compiled with (``SELECTOLAX_VERSION``; see ``setup.py``).
"""

from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from selectolax.lexbor cimport (
    LXB_DOM_NODE_TYPE_ELEMENT,
    LXB_DOM_NODE_TYPE_TEXT,
    LexborHTMLParser,
    LexborNode,
    lxb_dom_attr_t,
    lxb_dom_character_data_t,
    lxb_dom_node_t,
)

import numpy as np

include "_selectolax_version.pxi"


include "_lexbor_attributes.pxi"

# A tag's role, one byte per Lexbor tag id below TABLE_SIZE (every id the walk tells apart is a standard one).
cdef enum:
    TABLE_SIZE = 512
    SKIP = 1         # passed over without descending
    NOT_ELEMENT = 2  # no :nth-child (comments, doctypes)
    TEXT = 4
    BR = 8
    KEPT_SKIPPED = 16  # a skipped subtree whose node is kept for the page's markup (<head>, <script>)

cdef uint8_t _roles[TABLE_SIZE]
cdef uint8_t _effects[TABLE_SIZE]
cdef int _max_depth = 0
cdef int _block_level = 0, _inherited = 0, _in_pre = 0, _flattened = 0, _kept = 0
cdef bint _configured = False

# Python's str.isspace() over ASCII: \t \n \v \f \r, the four separators \x1c-\x1f, and the space.
cdef uint8_t _ascii_space[128]
memset(_ascii_space, 0, sizeof(_ascii_space))
for _c in (9, 10, 11, 12, 13, 28, 29, 30, 31, 32):
    _ascii_space[_c] = 1


def configure(
    *, text_id, br_id, skipped, not_elements, effects, max_depth, block_level, inherited, in_pre, flattened,
    kept, kept_skipped,
):
    """Take the Python walk's tables, so both walks read one definition of what each tag does."""
    global _max_depth, _block_level, _inherited, _in_pre, _flattened, _kept, _configured
    ids = [text_id, br_id, *skipped, *not_elements, *effects, *kept_skipped]
    if any(not 0 <= tag_id < TABLE_SIZE for tag_id in ids):
        raise ValueError("a tag id the walk tells apart is beyond the compiled table")
    memset(_roles, 0, sizeof(_roles))
    memset(_effects, 0, sizeof(_effects))
    for tag_id in skipped:
        _roles[tag_id] |= SKIP
    for tag_id in not_elements:
        _roles[tag_id] |= NOT_ELEMENT
    for tag_id in kept_skipped:
        _roles[tag_id] |= KEPT_SKIPPED
    _roles[text_id] |= TEXT
    _roles[br_id] |= BR
    for tag_id, effect in effects.items():
        _effects[tag_id] = effect
    _max_depth, _block_level, _inherited = max_depth, block_level, inherited
    _in_pre, _flattened, _kept = in_pre, flattened, kept
    _configured = True


include "_walk_tables.pxi"


cdef struct Frame:
    lxb_dom_node_t *next  # the next sibling to visit when this element is done
    int32_t elem, path, paragraph, context, child_index, elem_index


cdef inline str _tag_name(lxb_dom_node_t *node, LexborHTMLParser parser):
    """The element's name as selectolax gives it (read once per new tag path)."""
    return LexborNode.new(node, parser).tag


cdef inline bint ascii_only(const unsigned char *data, Py_ssize_t length) noexcept:
    cdef Py_ssize_t i
    for i in range(length):
        if data[i] >= 128:
            return False
    return True


cdef struct Buffer:
    char *data
    Py_ssize_t capacity


cdef str _collapse(const unsigned char *data, Py_ssize_t length, Buffer *buffer):
    """ASCII text with white space runs made one space and the ends stripped (``" ".join(text.split())``)."""
    cdef Py_ssize_t i, size = 0
    cdef bint space = False
    cdef char *grown
    if buffer.capacity < length:
        grown = <char *> realloc(buffer.data, length)
        if grown == NULL:
            raise MemoryError()
        buffer.data, buffer.capacity = grown, length
    for i in range(length):
        if _ascii_space[data[i]]:
            space = size > 0
        else:
            if space:
                buffer.data[size] = 32
                size += 1
                space = False
            buffer.data[size] = <char> data[i]
            size += 1
    return PyUnicode_DecodeASCII(buffer.data, size, NULL)


cdef str _strip_newlines(const unsigned char *data, Py_ssize_t length):
    """ASCII text without the line breaks at its ends (``text.strip("\\r\\n")``)."""
    cdef Py_ssize_t start = 0, end = length
    while start < end and (data[start] == 10 or data[start] == 13):
        start += 1
    while end > start and (data[end - 1] == 10 or data[end - 1] == 13):
        end -= 1
    return PyUnicode_DecodeASCII(<const char *> data + start, end - start, NULL)


cdef inline str _attr_value(lxb_dom_attr_t *attr):
    """An attribute's value as ``node.attrs.get`` reads it (invalid UTF-8 replaced), "" where it has none."""
    if attr.value == NULL or attr.value.data == NULL:
        return ""
    return PyUnicode_DecodeUTF8(<const char *> attr.value.data, attr.value.length, "replace")


cdef class _Recorded:
    """The recorded attributes (``RECORDED_ATTRIBUTES`` of :mod:`service.parsing.attributes`), a dict by element each."""

    cdef dict ids, classes, roles, hidden, aria_hidden, styles, itemprops, rels

    def __cinit__(self):
        self.ids, self.classes, self.roles, self.hidden, self.aria_hidden, self.styles = {}, {}, {}, {}, {}, {}
        self.itemprops, self.rels = {}, {}

    def by_name(self):
        return {
            "id": self.ids, "class": self.classes, "role": self.roles, "hidden": self.hidden,
            "aria-hidden": self.aria_hidden, "style": self.styles, "itemprop": self.itemprops, "rel": self.rels,
        }


cdef inline void _record_names(lxb_dom_node_t *node, int32_t elem, _Recorded recorded) except *:
    """The element's recorded attributes (the Python walk's ``_record_names``)."""
    if node.type != LXB_DOM_NODE_TYPE_ELEMENT:
        return
    cdef _Element *element = <_Element *> node
    if element.attr_id != NULL:
        recorded.ids[elem] = _attr_value(element.attr_id)
    if element.attr_class != NULL:
        recorded.classes[elem] = _attr_value(element.attr_class)
    cdef lxb_dom_attr_t *attr = element.first_attr
    cdef uintptr_t name
    cdef const _AttrData *data
    while attr != NULL:
        name = attr.node.local_name
        if name == LXB_DOM_ATTR_STYLE:
            recorded.styles[elem] = _attr_value(attr)
        elif name == LXB_DOM_ATTR_REL:
            recorded.rels[elem] = _attr_value(attr)
        elif name > LXB_DOM_ATTR__LAST_ENTRY:
            data = <const _AttrData *> name
            if _named(data, "role", 4):
                recorded.roles[elem] = _attr_value(attr)
            elif _named(data, "hidden", 6):
                recorded.hidden[elem] = _attr_value(attr)
            elif _named(data, "aria-hidden", 11):
                recorded.aria_hidden[elem] = _attr_value(attr)
            elif _named(data, "itemprop", 8):
                recorded.itemprops[elem] = _attr_value(attr)
        attr = attr.next


def walk(LexborNode root):
    """The Python walk's columns for the tree under ``root`` (see ``service.parsing.walk.Builder.walk``), as one tuple.

    (elem_tag, elem_parent, elem_nth, elem_path, elem_address, path_parent, path_tag,
    texts, block_chars, block_elem, block_child, block_paragraph, block_flags, kept, elem_attributes)
    """
    if not _configured:
        raise RuntimeError("configure() the compiled walk first")
    cdef LexborHTMLParser parser = root.parser
    cdef Column elem_parent, elem_nth, elem_path, block_elem, block_child, block_paragraph, block_flags, block_chars
    memset(&elem_parent, 0, sizeof(Column)); memset(&elem_nth, 0, sizeof(Column))
    memset(&elem_path, 0, sizeof(Column)); memset(&block_elem, 0, sizeof(Column))
    memset(&block_child, 0, sizeof(Column)); memset(&block_paragraph, 0, sizeof(Column))
    memset(&block_flags, 0, sizeof(Column)); memset(&block_chars, 0, sizeof(Column))
    cdef Frame *stack = NULL
    cdef Py_ssize_t stack_size = 0, stack_capacity = 0
    cdef Frame *grown
    cdef Column addresses
    memset(&addresses, 0, sizeof(Column))
    cdef list path_parent = [], path_tag = [], texts = [], elem_tag = [], kept = []
    cdef dict names = {}
    cdef _Recorded recorded = _Recorded()
    cdef _Trie trie = _Trie()
    cdef lxb_dom_node_t *node
    cdef lxb_dom_character_data_t *character
    cdef uintptr_t tag_id
    cdef uint8_t role, effect, byte
    cdef int32_t elem = 0, path = 0, paragraph = 0, context = 0, child_index = 0, elem_index = 0, found
    cdef int depth = 0
    cdef bint pending_space = False, pending_break = False, all_space, any_visible, has_newline
    cdef str pending_indent = ""  # in a <pre>: the white space of blank nodes since the last line break
    cdef dict pre_indents = {}
    cdef Py_ssize_t last_newline
    cdef const unsigned char *data
    cdef Py_ssize_t length, i
    cdef str raw, text, tag, leaf
    cdef Py_UCS4 first, last_char
    cdef uint8_t last
    cdef bint first_space
    cdef Buffer buffer
    memset(&buffer, 0, sizeof(Buffer))
    cdef int flags
    try:
        tag = root.tag or "html"
        path_parent.append(-1)
        path_tag.append(tag)
        elem_tag.append(tag)
        _push(&elem_parent, -1)
        _push(&elem_nth, 1)
        _push(&elem_path, 0)
        _push(&addresses, <int64_t> <uintptr_t> root.node)
        _record_names(root.node, 0, recorded)
        node = root.node.first_child
        while True:
            while node != NULL:
                tag_id = node.local_name
                role = _roles[tag_id] if tag_id < TABLE_SIZE else 0
                child_index += 1
                if role & TEXT:
                    character = <lxb_dom_character_data_t *> node
                    data = character.data.data if node.type == LXB_DOM_NODE_TYPE_TEXT else NULL
                    length = character.data.length if data != NULL else 0
                    # all-ASCII white space is decided on the bytes; anything else by str.isspace() below
                    all_space = True
                    any_visible = False
                    has_newline = False
                    for i in range(length):
                        byte = data[i]
                        if byte >= 128:
                            all_space = False
                        elif _ascii_space[byte]:
                            has_newline = has_newline or byte == 10
                        else:
                            all_space = False
                            any_visible = True
                            break
                    if all_space:
                        pending_space = True
                        if context & _in_pre and length > 0:  # white space between highlighted spans: an indent
                            last_newline = length - 1
                            while last_newline >= 0 and data[last_newline] != 10:
                                last_newline -= 1
                            if last_newline >= 0:
                                pending_break = True
                                pending_indent = PyUnicode_DecodeASCII(
                                    <const char *> data + last_newline + 1, length - last_newline - 1, NULL
                                )
                            else:
                                pending_indent = pending_indent + PyUnicode_DecodeASCII(<const char *> data, length, NULL)
                        node = node.next
                        continue
                    if ascii_only(data, length):  # cut on the bytes: what str.strip/split do to ASCII
                        _push(&block_elem, elem)
                        _push(&block_child, child_index - 1)
                        _push(&block_paragraph, paragraph)
                        first_space = _ascii_space[data[0]]
                        last = data[length - 1]
                        if context & _in_pre:
                            if pending_indent and data[0] != 13 and data[0] != 10:
                                pre_indents[len(texts)] = pending_indent
                            pending_indent = ""
                            leaf = _strip_newlines(data, length)
                            flags = context | (pending_space or first_space) | (
                                pending_break or data[0] == 13 or data[0] == 10
                            ) << 1
                            pending_break = last == 13 or last == 10
                        else:
                            leaf = _collapse(data, length, &buffer)
                            flags = context | (pending_space or first_space) | pending_break << 1
                            pending_break = False
                            pending_indent = ""
                        texts.append(leaf)
                        _push(&block_chars, len(leaf))  # read now, while the new string is in the cache
                        _push(&block_flags, flags)
                        pending_space = _ascii_space[last]
                        node = node.next
                        continue
                    raw = PyUnicode_DecodeUTF8(<const char *> data, length, "replace")
                    if not any_visible and raw.isspace():
                        pending_space = True
                        if context & _in_pre:
                            before, newline, after = raw.rpartition("\n")
                            pending_break = pending_break or bool(newline)
                            pending_indent = after if newline else pending_indent + before + after
                        node = node.next
                        continue
                    _push(&block_elem, elem)
                    _push(&block_child, child_index - 1)
                    _push(&block_paragraph, paragraph)
                    first = raw[0]
                    last_char = raw[len(raw) - 1]
                    if context & _in_pre:
                        if pending_indent and first != u"\r" and first != u"\n":
                            pre_indents[len(texts)] = pending_indent
                        pending_indent = ""
                        leaf = raw.strip("\r\n")
                        flags = context | (pending_space or first.isspace()) | (
                            pending_break or first == u"\r" or first == u"\n"
                        ) << 1
                        pending_break = last_char == u"\r" or last_char == u"\n"
                    else:
                        text = raw.strip()
                        leaf = " ".join(text.split()) if "  " in text or not text.isprintable() else text
                        flags = context | (pending_space or first.isspace()) | pending_break << 1
                        pending_break = False
                        pending_indent = ""
                    texts.append(leaf)
                    _push(&block_chars, len(leaf))
                    _push(&block_flags, flags)
                    pending_space = last_char.isspace()
                    node = node.next
                    continue
                if role & SKIP:
                    if role & KEPT_SKIPPED:
                        kept.append(LexborNode.new(node, parser))
                    if not role & NOT_ELEMENT:  # comments and doctypes are no :nth-child
                        elem_index += 1
                    node = node.next
                    continue
                elem_index += 1
                if role & BR:
                    pending_break = True
                    node = node.next
                    continue
                if stack_size == stack_capacity:
                    stack_capacity = stack_capacity * 2 if stack_capacity else 64
                    grown = <Frame *> realloc(stack, stack_capacity * sizeof(Frame))
                    if grown == NULL:
                        raise MemoryError()
                    stack = grown
                stack[stack_size] = Frame(node.next, elem, path, paragraph, context, child_index, elem_index)
                stack_size += 1
                effect = _effects[tag_id] if tag_id < TABLE_SIZE else 0
                if effect & _kept:
                    kept.append(LexborNode.new(node, parser))
                depth += 1
                if depth < _max_depth:
                    _push(&elem_parent, elem)
                    elem = <int32_t> elem_path.size
                    found = trie.get(path, tag_id)
                    if found < 0:
                        found = <int32_t> len(path_tag)
                        trie.put(path, tag_id, found)
                        path_parent.append(path)
                        tag = names.get(tag_id)
                        if tag is None:
                            tag = names[tag_id] = _tag_name(node, parser) or ""
                        path_tag.append(tag)
                    path = found
                    elem_tag.append(path_tag[path])
                    _push(&elem_nth, elem_index)
                    _push(&elem_path, path)
                    _push(&addresses, <int64_t> <uintptr_t> node)
                    _record_names(node, elem, recorded)
                    if effect & _block_level:
                        paragraph = elem
                else:
                    context |= _flattened
                if effect & _inherited:
                    context |= effect & _inherited
                child_index = elem_index = 0
                node = node.first_child
            if stack_size == 0:
                break
            stack_size -= 1
            node = stack[stack_size].next
            elem = stack[stack_size].elem
            path = stack[stack_size].path
            paragraph = stack[stack_size].paragraph
            context = stack[stack_size].context
            child_index = stack[stack_size].child_index
            elem_index = stack[stack_size].elem_index
            depth -= 1
        flags_array = _array(&block_flags, np.uint8)
        child_array = _array(&block_child)
        child_array[(flags_array & _flattened) != 0] = -1
        return (
            elem_tag,
            _array(&elem_parent),
            _array(&elem_nth),
            _array(&elem_path),
            _array(&addresses, np.int64),
            path_parent,
            path_tag,
            texts,
            _array(&block_chars, np.float64),
            _array(&block_elem),
            child_array,
            _array(&block_paragraph),
            flags_array,
            kept,
            recorded.by_name(),
            pre_indents,
        )
    finally:
        free(stack)
        free(buffer.data)
        free(addresses.data)
        free(elem_parent.data); free(elem_nth.data); free(elem_path.data)
        free(block_elem.data); free(block_child.data); free(block_paragraph.data); free(block_flags.data)
        free(block_chars.data)
