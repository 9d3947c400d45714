"""Probes: liveness (the process answers) and readiness (it can serve extractions now)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from service.api.deps import State
from service.api.errors import NotReady
from service.api.schemas import error_responses

router = APIRouter(tags=["operations"])


class Ready(BaseModel):
    status: str
    backends: list[str]


@router.get("/healthz", summary="Liveness probe")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="Readiness probe", responses=error_responses(503))
async def readyz(state: State) -> Ready:
    """200 when every enabled backend is loaded and reports ready; 503 ``not_ready`` otherwise.

    The server answers only once the lifespan has loaded the backends; a batched
    backend reports ready while its batcher is alive.
    """
    failing = sorted(name for name in state.backends if not state.ready(name))
    if failing:
        raise NotReady(f"backends not ready: {', '.join(failing)}")
    return Ready(status="ready", backends=sorted(state.backends))
