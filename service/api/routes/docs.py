"""``/docs`` (Swagger UI) and ``/redoc`` with their scripts served by the service itself.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so on a machine or cluster without
internet they stay blank. The ``fastapi-offline`` package ships the same bundles (MIT; Swagger UI
and ReDoc are themselves Apache-2.0 and MIT); they are served from where it is installed.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse

router = APIRouter(include_in_schema=False)

ASSET_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS = {  # the only files served: a name from the URL never reaches the filesystem unchecked
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
ASSET_ROUTE = "/docs/assets"
# Swagger UI shows a badge fetched from validator.swagger.io for a schema not on localhost: off.
SWAGGER_UI_PARAMETERS = {"validatorUrl": None}
# What the bundles would still fetch from elsewhere (ReDoc's footer logo) is refused by the browser.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",  # the pages start the bundles with an inline script
        "style-src 'self' 'unsafe-inline'",  # both inject their styles
        "img-src 'self' data:",
        "worker-src 'self' blob:",  # ReDoc's search index
    )
)


def _asset(request: Request, name: str) -> str:
    return f"{request.scope.get('root_path', '')}{ASSET_ROUTE}/{name}"


def _schema_url(request: Request) -> str:
    return f"{request.scope.get('root_path', '')}{request.app.openapi_url}"


def _offline(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return page


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url=_schema_url(request),
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=_asset(request, "swagger-ui-bundle.js"),
        swagger_css_url=_asset(request, "swagger-ui.css"),
        swagger_favicon_url=_asset(request, "favicon.png"),
        swagger_ui_parameters=SWAGGER_UI_PARAMETERS,
    )
    return _offline(page)


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    page = get_redoc_html(
        openapi_url=_schema_url(request),
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=_asset(request, "redoc.standalone.js"),
        redoc_favicon_url=_asset(request, "favicon.png"),
        with_google_fonts=False,
    )
    return _offline(page)


@router.get(ASSET_ROUTE + "/{name}")
async def asset(name: str) -> FileResponse:
    media_type = ASSETS.get(name)
    if media_type is None:
        raise HTTPException(404, f"no docs asset {name!r}")
    return FileResponse(ASSET_DIR / name, media_type=media_type)
