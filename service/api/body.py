"""Reading a request body within a byte limit, before any of it is parsed."""

from __future__ import annotations

from fastapi import Request

from service.api.errors import BodyTooLarge, EmptyBody


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The whole body; 413 from the Content-Length header alone when it says too much."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge(f"body of {declared} bytes exceeds the limit of {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(f"body exceeds the limit of {max_bytes} bytes")
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise EmptyBody("the request has no page: send HTML as the body, or JSON with an 'html' field")
    return body
