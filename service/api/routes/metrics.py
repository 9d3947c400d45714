"""``GET /metrics``: Prometheus text, every worker's when there are several. Open, like the probes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST

from service.api.deps import State
from service.metrics import exposition

router = APIRouter(tags=["operations"])


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def metrics(state: State) -> Response:
    return Response(exposition(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
