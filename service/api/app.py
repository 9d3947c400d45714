"""The app factory: nothing happens at import; the lifespan opens what requests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from service.api.deps import AppState
from service.api.errors import install_error_handlers
from service.api.routes import extract, health
from service.backends.registry import default_registry
from service.pipeline import Extractor
from service.settings import Settings, get_settings


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; ``settings`` default to the ``EXTRACT_*`` environment."""
    chosen = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        registry = default_registry(chosen)
        registry.get(chosen.default_backend)  # fail at start, not on the first request
        app.state.service = AppState(settings=chosen, extractor=Extractor(registry, chosen.default_backend))
        yield

    app = FastAPI(
        title="Main-content extraction service",
        version="0.1.0",
        description="Send a web page, get its main content without navigation, ads and footers.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.include_router(extract.router)
    app.include_router(health.router)
    return app
