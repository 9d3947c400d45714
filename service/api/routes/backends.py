"""``GET /backends``: what this process can run, from the registry, so new backends appear on their own."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.deps import API_KEY, State
from service.api.schemas import BackendInfo, BackendsResponse

router = APIRouter(tags=["operations"], dependencies=API_KEY)


@router.get("/backends", response_model=BackendsResponse, summary="List the backends and their models")
async def list_backends(state: State) -> BackendsResponse:
    """Name, kind, model version, manifest figures, execution provider and status of every enabled backend."""
    return BackendsResponse(
        default_backend=state.extractor.default_backend,
        backends=[
            BackendInfo(
                name=name,
                kind=backend.kind,
                version=backend.version,
                execution_provider=backend.execution_provider,
                batched=name in state.extraction.batchers,
                status="ready" if state.ready(name) else "not_ready",
                manifest=state.manifest.get(name),
            )
            for name, backend in sorted(state.backends.items())
        ],
    )
