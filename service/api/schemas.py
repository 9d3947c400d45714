"""Request and response bodies of the HTTP API (pydantic models, with examples for the docs)."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from service.backends.favor import BALANCED, FAVORS
from service.options import Options
from service.output.formats import FORMATS, TEXT
from service.parsing.urls import readable_url

# The formats a request may name, built from the registry (a runtime Literal: the same schema and 422 as a
# written one); the type checker sees a str.
if TYPE_CHECKING:
    OutputFormat = str
    Favor = str
else:
    OutputFormat = Literal[tuple(FORMATS)]
    Favor = Literal[FAVORS]
ALL_BACKENDS = "all"  # backend=all: compare every enabled backend on the page (also its metric label)
# The request fields that are Options fields of the same name (format is the other one).
OPTION_FIELDS = tuple(field.name for field in fields(Options) if field.name != "format")

EXAMPLE_HTML = (
    "<html><head><title>Example</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Example</h1><p>The main text of the page, long enough to be kept.</p></article>"
    "<footer>© Example</footer></body></html>"
)

BackendName = Annotated[
    str | None,
    Field(
        description="Backend name (GET /backends lists them); the configured default when absent.",
        examples=["boilerpipe"],
    ),
]


def _readable(url: str | None) -> str | None:
    """``url``, refused where urllib cannot read it ("http://["): a base that resolves nothing is the caller's typo."""
    if url and readable_url(url) is None:
        raise ValueError("not a URL: urllib cannot read it")
    return url


SourceUrl = Annotated[
    str | None,
    Field(description="Where the page came from; resolves relative links. Never fetched."),
    AfterValidator(_readable),
]


class OutputOptions(BaseModel):
    """What every extraction request may ask for; a name it does not know is refused (422), not ignored."""

    model_config = ConfigDict(extra="forbid")

    format: OutputFormat = Field(
        TEXT,
        description="Also render the content in this format: "
        + "; ".join(f"{spec.name}: {spec.description}" for spec in FORMATS.values()),
    )
    include_blocks: bool = Field(False, description="Return every block with its score, label and locator.")
    favor: Favor = Field(
        BALANCED,
        description="precision keeps less and surer text, recall more; they move the backend's threshold by "
        "amounts chosen per backend on the WCXB validation pages.",
    )
    include_comments: bool | None = Field(
        None,
        description="Reader comments (blocks inside an element whose id/class word starts with comment, disqus, "
        "respond, reply or discussion, or role=comment). Unset: an article's thread is left out where the "
        "content beside it is at least 2,500 characters, or 300 where the page-type model does not take the "
        "page for a forum; on such a page, where the backend kept a thread and less than 300 characters beside it, "
        "the thread gives way to the post Readability finds above it; a page made of comments (a forum thread) "
        "keeps them. A product page's customer reviews (an element whose id/class has the word reviews, or a "
        "Yotpo, Okendo, Judge.me or Bazaarvoice widget) are its comments: unset, they are left out where at least "
        "500 characters of them and 300 beside them were kept. false: every comment block (and every review on a "
        "product page) is left out (and such a post is kept); true: none is.",
    )
    include_links: bool = Field(True, description="Keep links in html and markdown (false: their text only).")
    include_images: bool = Field(
        False,
        description="Keep the content's images in html and markdown, lazy-load attributes (data-src, "
        "data-original, srcset, <picture>) resolved to absolute URLs.",
    )
    include_tables: bool = Field(True, description="false leaves data tables out (a layout table stays).")
    include_title: bool = Field(
        False,
        description=(
            "Put the page's title (the response's title) first as a heading, unless a kept heading already says it."
        ),
    )
    front_matter: bool = Field(
        False,
        description=(
            "format=markdown: begin with YAML front matter: the title and every metadata field the page gives"
            " (author, date_published, site_name, language, tags, page_type ...), then url and backend."
        ),
    )
    target_selector: str | None = Field(
        None, description="CSS selector: only what the matching elements hold is classified (422 if none match)."
    )
    remove_selector: str | None = Field(
        None, description="CSS selector: the matching elements are removed before classification."
    )

    def extraction_options(self) -> Options:
        """The domain's :class:`~service.options.Options` of this request."""
        return Options(
            format=self.format,
            **{name: getattr(self, name) for name in OPTION_FIELDS},
        )


class PageOptions(OutputOptions):
    """Options of a request whose body is the page: the JSON body's fields, or the query string of raw HTML."""

    url: SourceUrl = None


class ExtractOptions(PageOptions):
    """Options of ``POST /extract``; ``backend=all`` compares every enabled backend, as ``POST /compare`` does."""

    backend: BackendName = None


class PageInput(BaseModel):
    """A page sent in a JSON body."""

    model_config = ConfigDict(extra="forbid")

    html: str = Field(..., description="The page's HTML.")
    url: SourceUrl = None


class ExtractRequest(ExtractOptions, PageInput):
    """``POST /extract`` with a JSON body."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"html": EXAMPLE_HTML, "format": "text", "include_blocks": False}]}
    )


class FetchOptions(OutputOptions):
    """``GET /extract``: the service fetches ``url`` itself; ``backend=all`` compares every backend."""

    url: str = Field(..., description="An http(s) URL on the public internet.", examples=["https://example.com/"])
    backend: BackendName = None
    include_source: bool = Field(False, description="Also return the fetched page, decoded (the reader page uses it).")
    allow_error_status: bool = Field(
        False, description="Extract the page even when the upstream answers outside 2xx; else 502 upstream_status."
    )
    respect_robots: bool = Field(
        False,
        description="Read the host's robots.txt first (cached per host) and answer 403 robots_disallowed where "
        "it refuses this URL to our user agent.",
    )


class BatchRequest(OutputOptions):
    """``POST /extract/batch``: many pages, one backend and format, results in the same order."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"documents": [{"html": EXAMPLE_HTML}, {"html": "<p>Second page</p>"}]}]}
    )

    documents: list[PageInput] = Field(..., min_length=1, description="The pages; at most max_batch_documents.")
    backend: BackendName = None


class BatchEnvelope(BatchRequest):
    """How a batch is read: its documents are checked one by one, so one bad document fails only itself."""

    documents: list[Any] = Field(..., min_length=1)


class CompareOptions(PageOptions):
    """Options of ``POST /compare``."""

    backends: list[str] | None = Field(None, description="Backends to compare; every enabled one when absent.")
    include_blocks: bool = Field(True, description="Return every block with each backend's score and label.")


class CompareRequest(CompareOptions, PageInput):
    """``POST /compare`` with a JSON body."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"html": EXAMPLE_HTML}]})


class LocatorModel(BaseModel):
    selector: str = Field(..., description="CSS selector of the element holding the text.")
    text_node: int | None = Field(None, description="Index of the text among the element's childNodes, when known.")


class BlockModel(BaseModel):
    index: int
    text: str
    score: float = Field(..., description="The backend's score in [0, 1]; higher means content.")
    is_content: bool
    locator: LocatorModel


class MetadataModel(BaseModel):
    """What the page says about itself; a field is left out where the page does not say."""

    title: str | None = Field(None, description="The headline, without the site's name.")
    author: list[str] = Field(
        default_factory=list,
        description=(
            "Author names, as the page shows them; on a page typed product, service, collection or listing"
            " (and unlikely an article), only names its structured data gives."
        ),
    )
    date_published: str | None = Field(
        None,
        description=(
            "ISO 8601 day the page shows as its date (its last update where it shows that instead); on a page"
            " typed product, service, collection or listing (and unlikely an article), only a declared one."
        ),
    )
    date_modified: str | None = Field(None, description="ISO 8601 day of the last change, from structured data.")
    site_name: str | None = None
    language: str | None = Field(None, description="BCP 47 tag, e.g. en-US.")
    description: str | None = None
    image: str | None = Field(None, description="The lead image, absolute URL.")
    canonical_url: str | None = None
    tags: list[str] = Field(default_factory=list)
    page_type: Literal["article", "collection", "documentation", "forum", "listing", "product", "service"] | None = (
        Field(None, description="What kind of page it is, by the page-type classifier.")
    )
    page_type_confidence: float | None = Field(None, description="The classifier's probability for page_type.")


class ExtractResponseFields(BaseModel):
    """What every extraction answers; :data:`ExtractResponse` adds a field per output format but text."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "backend": "boilerpipe",
                    "backend_version": "1.0",
                    "title": "Example",
                    "text": "Example\n\nThe main text of the page, long enough to be kept.",
                    "readable": 0.0,
                    "metadata": {"title": "Example", "author": [], "tags": [], "page_type": "article"},
                    "timings_ms": {"parse": 0.1, "classify": 0.05, "render": 0.02, "metadata": 0.05, "total": 0.22},
                }
            ]
        }
    )

    backend: str
    backend_version: str = Field(..., description="Model or rule-set version of the backend.")
    title: str
    text: str
    readable: float = Field(
        ...,
        description="Is there an article here at all: 1 where Readability.js's isProbablyReaderable would say "
        "yes, less the further the page is from it.",
    )
    metadata: MetadataModel
    url: str | None = Field(None, description="The base URL links were resolved against.")
    final_url: str | None = Field(None, description="GET /extract: the URL after redirects.")
    upstream_status: int | None = Field(None, description="GET /extract: the upstream server's HTTP status.")
    source_html: str | None = Field(None, description="GET /extract with include_source: the fetched page.")
    blocks: list[BlockModel] | None = Field(None, description="Every block, when include_blocks.")
    timings_ms: dict[str, float] = Field(
        ..., description="Milliseconds per stage: fetch (GET only), parse, classify, render, metadata, total."
    )


# The response with one optional field per registered format (the type checker sees the fields above).
if TYPE_CHECKING:
    ExtractResponse = ExtractResponseFields
else:
    ExtractResponse = create_model(
        "ExtractResponse",
        __base__=ExtractResponseFields,
        **{
            name: (str | None, Field(None, description=f"The content as {spec.description}, when format={name}."))
            for name, spec in FORMATS.items()
            if name != TEXT
        },
    )


class ErrorBody(BaseModel):
    code: str = Field(..., description="Stable machine-readable code, e.g. unknown_backend.")
    message: str
    upstream_status: int | None = Field(None, description="upstream_status errors only: the upstream's HTTP status.")


class ErrorResponse(BaseModel):
    error: ErrorBody


class BatchResponse(BaseModel):
    results: list[ExtractResponse | ErrorResponse] = Field(
        ..., description="One result per document, in the order sent: its extraction, or its own error."
    )


class ComparedBlock(BaseModel):
    index: int
    text: str
    locator: LocatorModel
    scores: dict[str, float] = Field(..., description="Each backend's score for this block.")
    is_content: dict[str, bool] = Field(..., description="Each backend's label for this block.")


class Agreement(BaseModel):
    backends: tuple[str, str]
    agreement: float = Field(..., description="Share of blocks both backends label the same.")
    jaccard: float = Field(..., description="Blocks both keep over blocks either keeps (1 when neither keeps any).")


class CompareResponse(BaseModel):
    title: str
    url: str | None = None
    final_url: str | None = None
    upstream_status: int | None = None
    source_html: str | None = None
    results: list[ExtractResponse] = Field(..., description="One result per backend, blocks left out.")
    blocks: list[ComparedBlock] | None = Field(None, description="Every block with every backend's verdict.")
    agreement: list[Agreement] = Field(..., description="Every pair of backends.")


class BackendInfo(BaseModel):
    name: str
    kind: str = Field(..., description="rules, onnx or graph.")
    version: str
    execution_provider: str = Field(..., description="Where it runs: CPU or CUDA.")
    batched: bool = Field(..., description="Whether requests go through the micro-batcher.")
    status: Literal["ready", "not_ready"]
    manifest: dict[str, object] | None = Field(None, description="The model store's manifest entry, when it has one.")


class BackendsResponse(BaseModel):
    default_backend: str
    backends: list[BackendInfo]


def error_responses(*statuses: int, described: dict[int, str] | None = None) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route: each error status it can answer, with the error body (and what it means)."""
    responses: dict[int | str, dict[str, Any]] = {status: {"model": ErrorResponse} for status in statuses}
    for status, description in (described or {}).items():
        responses[status] = {"model": ErrorResponse, "description": description}
    return responses


def request_body(model: type[BaseModel], example: dict[str, Any], *, raw_html: bool) -> dict[str, Any]:
    """``openapi_extra`` for a route that reads its own body (to cap it before parsing): JSON, and raw HTML too."""
    content: dict[str, Any] = {"application/json": {"schema": _inline_refs(model), "example": example}}
    if raw_html:
        content["text/html"] = {"schema": {"type": "string"}, "example": EXAMPLE_HTML}
    return {"requestBody": {"required": True, "content": content}}


def _inline_refs(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with each ``$ref`` replaced by its definition: ``#/$defs`` means nothing in OpenAPI."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    resolved: dict[str, Any] = resolve(schema)
    return resolved
