"""Request and response bodies of the HTTP API (pydantic models, with examples for the docs)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

OutputFormat = Literal["text", "html", "markdown"]

_EXAMPLE_HTML = (
    "<html><head><title>Example</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Example</h1><p>The main text of the page, long enough to be kept.</p></article>"
    "<footer>© Example</footer></body></html>"
)


class ExtractOptions(BaseModel):
    """Options shared by the JSON body and the query string of a raw-HTML request."""

    url: str | None = Field(None, description="Where the page came from; resolves relative links.")
    backend: str | None = Field(None, description="Backend name; the configured default when absent.")
    format: OutputFormat = Field("text", description="Also render the content as html or markdown.")
    include_blocks: bool = Field(False, description="Return every block with its score, label and locator.")


class ExtractRequest(ExtractOptions):
    """``POST /extract`` with a JSON body."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"html": _EXAMPLE_HTML, "format": "text"}]})

    html: str = Field(..., description="The page's HTML.")


class LocatorModel(BaseModel):
    selector: str = Field(..., description="CSS selector of the element holding the text.")
    text_node: int | None = Field(..., description="Index of the text among the element's childNodes.")


class BlockModel(BaseModel):
    index: int
    text: str
    score: float
    is_content: bool
    locator: LocatorModel


class ExtractResponse(BaseModel):
    backend: str
    backend_version: str
    title: str
    text: str
    html: str | None = None
    markdown: str | None = None
    url: str | None = None
    blocks: list[BlockModel] | None = None
    timings_ms: dict[str, float] = Field(..., description="Milliseconds per stage: parse, classify, render, total.")


class ErrorBody(BaseModel):
    code: str = Field(..., description="Stable machine-readable code, e.g. unknown_backend.")
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody
