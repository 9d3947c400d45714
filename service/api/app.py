"""The app factory: nothing happens at import; the lifespan opens what requests share and closes it in reverse."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute
from threadpoolctl import threadpool_limits

from service.api.deps import STATE_KEY, AppState
from service.api.errors import ERROR_CODES, install_error_handlers
from service.api.gate import AdmissionGate
from service.api.head import HeadAsGet
from service.api.middleware import MetricsMiddleware, endpoints_of, methods_and_path
from service.api.request_ids import with_request_ids
from service.api.routes import backends, batch, compare, docs, extract, health, metrics, reader
from service.api.schemas import ALL_BACKENDS
from service.api.shutdown import answer_when_cancelled
from service.backends.enabled import load_enabled, manifest_figures
from service.backends.registry import BackendRegistry, default_registry
from service.fetching.errors import BlockReason
from service.fetching.fetcher import Fetcher, FetchPolicy, Resolver, system_resolver
from service.metadata.reader import load_metadata_reader
from service.metrics import Metrics, mark_process_dead, new_registry
from service.models.store import ModelStore
from service.pipeline import Extractor, warm_up
from service.runtime.admission import AdmissionLimit
from service.runtime.heap import return_large_blocks, settle_heap
from service.runtime.scheduling import share_interpreter
from service.runtime.workers import forget_dead_workers, note_startup_failure
from service.serving.fetch import FetchService
from service.serving.start import open_extraction
from service.settings import Settings, get_settings

ROUTERS = (
    extract.router,
    batch.router,
    compare.router,
    backends.router,
    health.router,
    metrics.router,
    reader.router,
    docs.router,
)
BACKEND_ROUTERS = (extract.router, batch.router, compare.router)  # their requests are labelled by backend
# The routes that extract what the request carries: refused at the door while admission is full (see api/gate.py).
GATED_ENDPOINTS = frozenset({"POST /extract", "POST /extract/batch", "POST /compare"})

DESCRIPTION = """\
Send a web page, get its main content without navigation, ads and footers.

Every error has the shape `{"error": {"code": "...", "message": "..."}}` with a stable code.
When the service has API keys, send `Authorization: Bearer <key>` (probes, metrics and docs stay open).
The reader page at `/` shows the extraction on the page itself.
"""


async def _open(
    settings: Settings, metrics: Metrics, registry: BackendRegistry | None, resolver: Resolver, stack: AsyncExitStack
) -> AppState:
    """Open every shared resource; ``stack`` closes them in reverse when the app stops."""
    share_interpreter(settings.switch_interval_ms)
    threadpool_limits(settings.blas_threads, user_api="blas")  # OpenBLAS would start a thread per core per request
    return_large_blocks()  # a big page's buffers go back to the system once it is answered
    shipped = registry if registry is not None else default_registry(settings)
    enabled, loaded = load_enabled(shipped, settings.enabled_backends or shipped.names())
    # The page-type model is checked against its sha256 here, at start, like the backends' models.
    metadata = load_metadata_reader(ModelStore(settings.model_store_dir))
    extractor = Extractor(enabled, settings.default_backend, settings.page_budget, metadata)
    extractor.registry.get(settings.default_backend)  # an unknown default fails the start, not the first request
    if registry is None:  # the shipped backends; a test's registry holds doubles that count or hold their calls
        warm_up(extractor, loaded)
    extraction = await stack.enter_async_context(open_extraction(settings, extractor, loaded, metrics))
    fetcher = Fetcher(FetchPolicy.from_settings(settings), resolver=resolver)
    stack.push_async_callback(fetcher.aclose)
    for name, backend in loaded.items():
        metrics.backend_info.labels(name, backend.kind, backend.version, backend.execution_provider).set(1)
    settle_heap()
    return AppState(
        settings=settings,
        extraction=extraction,
        fetching=FetchService(
            fetcher,
            admission=AdmissionLimit(settings.fetch_max_in_flight, settings.overload_retry_after_s),
            metrics=metrics,
        ),
        backends=loaded,
        manifest=manifest_figures(settings.model_store_dir, loaded),
        metrics=metrics,
        api_keys=tuple(key.get_secret_value().encode() for key in settings.api_keys),
    )


def _all_routes(app: FastAPI) -> list[BaseRoute]:
    """The app's own routes (the schema) and every router's, whatever wrapper FastAPI keeps included routers in."""
    own = [route for route in app.routes if getattr(route, "methods", None)]
    return [*own, *(route for router in ROUTERS for route in router.routes)]


def _gated_routes(app: FastAPI) -> dict[tuple[str, str], BaseRoute]:
    """(method, path) -> route for :data:`GATED_ENDPOINTS`; every one must exist."""
    gated = {
        (method, path): route
        for route in _all_routes(app)
        for method, path in methods_and_path(route)
        if f"{method} {path}" in GATED_ENDPOINTS
    }
    missing = GATED_ENDPOINTS - {f"{method} {path}" for method, path in gated}
    if missing:
        raise RuntimeError(f"gated endpoints without a route: {sorted(missing)}")
    return gated


def create_app(
    settings: Settings | None = None,
    *,
    registry: BackendRegistry | None = None,
    resolver: Resolver = system_resolver,
) -> FastAPI:
    """Build the app; ``settings`` default to the ``EXTRACT_*`` environment.

    ``registry`` replaces the shipped backends and ``resolver`` the system's DNS: seams for tests.
    """
    chosen = settings or get_settings()
    metrics = Metrics(new_registry())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, AppState]]:
        forget_dead_workers()
        async with AsyncExitStack() as stack:
            try:
                state = await _open(chosen, metrics, registry, resolver, stack)
            except Exception:
                note_startup_failure()
                raise
            metrics.initialise(
                endpoints=endpoints_of(_all_routes(app)),
                backend_endpoints=endpoints_of(route for router in BACKEND_ROUTERS for route in router.routes),
                backends=state.backends,
                batched_backends=list(state.extraction.batchers),
                error_codes=ERROR_CODES,
                block_reasons=[reason.value for reason in BlockReason],
                request_backends=[ALL_BACKENDS],
            )
            yield {STATE_KEY: state}
        mark_process_dead(os.getpid())

    app = FastAPI(
        title="Main-content extraction service",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's docs pages load their scripts from a CDN; routes/docs.py serves them itself
        redoc_url=None,
        # "/extract/" is 404 like any unknown path: Starlette redirected it to the Host header's host, so a
        # client that follows redirects sent its page wherever that header said
        redirect_slashes=False,
    )
    install_error_handlers(app, metrics)
    for router in ROUTERS:
        app.include_router(router)
    app.add_middleware(AdmissionGate, metrics=metrics, routes=_gated_routes(app))  # inside the metrics: counted
    app.add_middleware(answer_when_cancelled, metrics=metrics)  # its 503 counted too
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    if chosen.cors_allow_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=chosen.cors_allow_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            expose_headers=["X-Request-ID", "Retry-After"],  # what a browser's script may read of an answer
        )
    app.add_middleware(with_request_ids)
    app.add_middleware(HeadAsGet)  # outermost: every layer inside sees the GET it answers
    return app
