"""The Content-Type header read once, for both the request body and the fetched upstream page."""

from __future__ import annotations


def media_type(content_type: str) -> tuple[str, str | None]:
    """(media type, charset parameter) of a Content-Type header value."""
    media, _, params = content_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    return media.strip().lower(), charset
