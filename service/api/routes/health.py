"""Liveness: the process answers."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness probe")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
