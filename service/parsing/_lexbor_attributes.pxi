# Lexbor's element attributes, which selectolax's pxd leaves opaque (for the walk and the markup reader): the
# element's attribute list and the two attributes it keeps a pointer to; an attribute's name, where a standard
# one's id is its number in Lexbor's table and any other's the address of its entry in the document's name table,
# which holds the name (lower case). Included after ``lxb_dom_attr_t`` and ``uintptr_t`` are cimported.
cdef extern from "lexbor/dom/interfaces/element.h":
    ctypedef struct _Element "lxb_dom_element_t":
        lxb_dom_attr_t *first_attr
        lxb_dom_attr_t *attr_id
        lxb_dom_attr_t *attr_class

cdef extern from "lexbor/dom/interfaces/attr.h":
    cdef uintptr_t LXB_DOM_ATTR_CONTENT
    cdef uintptr_t LXB_DOM_ATTR_HREF
    cdef uintptr_t LXB_DOM_ATTR_HTTP_EQUIV
    cdef uintptr_t LXB_DOM_ATTR_REL
    cdef uintptr_t LXB_DOM_ATTR_STYLE
    cdef uintptr_t LXB_DOM_ATTR_TYPE
    cdef uintptr_t LXB_DOM_ATTR__LAST_ENTRY
    ctypedef struct _HashEntry "lexbor_hash_entry_t":
        size_t length
    ctypedef struct _AttrData "lxb_dom_attr_data_t":
        _HashEntry entry
    const unsigned char *lexbor_hash_entry_str(const _HashEntry *entry)


cdef inline bint _named(const _AttrData *data, const char *name, size_t length) noexcept:
    """Whether a non-standard attribute's name (its entry in the name table) is ``name``."""
    return data.entry.length == length and memcmp(lexbor_hash_entry_str(&data.entry), name, length) == 0
