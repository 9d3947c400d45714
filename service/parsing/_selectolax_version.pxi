# The selectolax version an extension that reads Lexbor's structs was built against (setup.py defines it from the
# installed one): the walk and the markup reader are used only beside that same version.
cdef extern from *:
    """
    #ifndef SELECTOLAX_VERSION
    #define SELECTOLAX_VERSION "unknown"
    #endif
    """
    const char *_SELECTOLAX_VERSION "SELECTOLAX_VERSION"

SELECTOLAX_VERSION = _SELECTOLAX_VERSION.decode("ascii")
