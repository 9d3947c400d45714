"""``GET /``: the reader page, one self-contained HTML file (its script and style inline).

Its Content-Security-Policy lets the page run its own inline script and style and call the
service, and load nothing else. The frame that shows a pasted page (an ``srcdoc`` iframe)
inherits the policy, so the page's stylesheets, fonts, images, scripts, frames and trackers are
never requested: the reader works offline and tells no third party what was looked at. No other
site may frame the page (clickjacking its buttons), and its type is never sniffed.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter()

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",  # frames (and a pasted page's navigations), fonts, media, objects, prefetches
        "script-src 'unsafe-inline'",  # the reader's own script; the framed page's are off by its sandbox
        "style-src 'unsafe-inline'",
        "img-src data:",  # a pasted page's inline images show; none from a server
        "connect-src 'self'",  # the reader's calls to the API
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "X-Content-Type-Options": "nosniff",
}


@cache
def reader_page() -> bytes:
    """Read once, on the first request, not at import."""
    return files("service.static").joinpath("reader.html").read_bytes()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def reader() -> HTMLResponse:
    return HTMLResponse(reader_page(), headers=HEADERS)
