"""``GET /``: the reader page, one self-contained HTML file (its script and style inline)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter()


@cache
def reader_page() -> bytes:
    """Read once, on the first request, not at import."""
    return files("service.static").joinpath("reader.html").read_bytes()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def reader() -> HTMLResponse:
    return HTMLResponse(reader_page())
