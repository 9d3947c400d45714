"""Canned pages: an article with boilerplate around it, and pages that name a charset."""

from __future__ import annotations

ARTICLE = (
    "<html><head><title>A page</title></head><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
    "<article><h1>A headline</h1>"
    + "<p>This is a long paragraph of real content that a reader came for, with enough words in it.</p>" * 4
    + "</article><footer><a href='/c'>Contact</a></footer></body></html>"
)

# Python codecs that are no text encodings, or cannot decode: none is a WHATWG encoding label, so a page
# naming one as its charset (Content-Type, <meta>, --charset) is read as if it named none.
EXOTIC_CODECS = ("rot13", "zlib_codec", "bz2_codec", "base64", "hex", "uu_codec", "quopri_codec", "idna", "undefined")
DECLARED_TEXT = "Crème brûlée, ①, is a dessert of rich custard under a layer of hard caramel, served cool."


def page_declaring(label: str) -> str:
    """A page whose <meta> names ``label`` as its charset; sent as UTF-8, its text reads :data:`DECLARED_TEXT`."""
    return f'<html><head><meta charset="{label}"></head><body><p>{DECLARED_TEXT}</p></body></html>'
