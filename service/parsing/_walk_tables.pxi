# The walk's growable columns and its tag-path trie: C structures with no Lexbor in them, included
# into _walk.pyx (one extension; `include` is textual, so the cimports there serve here too).


cdef struct Column:
    int64_t *data  # wide enough for a node's address; the int32 columns are narrowed once, at the end
    Py_ssize_t size
    Py_ssize_t capacity


cdef int _push(Column *column, int64_t value) except -1:
    cdef int64_t *grown
    if column.size == column.capacity:
        column.capacity = column.capacity * 2 if column.capacity else 256
        grown = <int64_t *> realloc(column.data, column.capacity * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        column.data = grown
    column.data[column.size] = value
    column.size += 1
    return 0


cdef object _array(Column *column, dtype=np.int32):
    """The column as a new numpy array of ``dtype`` (its values fit: int32 and uint8 columns, int64 addresses)."""
    out = np.empty(column.size, dtype=np.int64)
    cdef int64_t[::1] view = out
    if column.size:
        memcpy(&view[0], column.data, column.size * sizeof(int64_t))
    return out if dtype is np.int64 else out.astype(dtype)


# The tag-path trie as an open-addressing hash: (parent path, tag id) -> path id.
cdef struct Slot:
    uintptr_t tag_id
    int32_t parent  # -1: empty
    int32_t path


cdef class _Trie:
    cdef Slot *slots
    cdef Py_ssize_t mask, used

    def __cinit__(self):
        self.mask = 255
        self.used = 0
        self.slots = <Slot *> malloc((self.mask + 1) * sizeof(Slot))
        if self.slots == NULL:
            raise MemoryError()
        memset(self.slots, 0xFF, (self.mask + 1) * sizeof(Slot))

    def __dealloc__(self):
        free(self.slots)

    cdef inline Py_ssize_t _find(self, int32_t parent, uintptr_t tag_id) noexcept:
        cdef Py_ssize_t at = (<Py_ssize_t> ((tag_id * 0x9E3779B1u) ^ (<uintptr_t> parent * 0x85EBCA77u))) & self.mask
        while self.slots[at].parent != -1 and (self.slots[at].parent != parent or self.slots[at].tag_id != tag_id):
            at = (at + 1) & self.mask
        return at

    cdef int32_t get(self, int32_t parent, uintptr_t tag_id) noexcept:
        return self.slots[self._find(parent, tag_id)].path

    cdef int put(self, int32_t parent, uintptr_t tag_id, int32_t path) except -1:
        cdef Slot *old = self.slots
        cdef Py_ssize_t old_size = self.mask + 1, i, at
        if (self.used + 1) * 2 > old_size:
            self.slots = <Slot *> malloc(old_size * 2 * sizeof(Slot))
            if self.slots == NULL:
                self.slots = old
                raise MemoryError()
            memset(self.slots, 0xFF, old_size * 2 * sizeof(Slot))
            self.mask = old_size * 2 - 1
            for i in range(old_size):
                if old[i].parent != -1:
                    self.slots[self._find(old[i].parent, old[i].tag_id)] = old[i]
            free(old)
        at = self._find(parent, tag_id)
        self.slots[at].parent = parent
        self.slots[at].tag_id = tag_id
        self.slots[at].path = path
        self.used += 1
        return 0
