"""The HTTP API against a real uvicorn on 127.0.0.1: extraction, batch, compare, backends, probes, auth, docs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from service.backends.onnx_features import OnnxFeatureBackend
from service.backends.registry import BackendRegistry, default_registry
from service.features.text_stats import _tables
from service.metadata.fields import PAGE_TYPES
from service.models.store import ModelStore
from service.output.formats import FORMATS
from service.parsing.document import Document
from service.settings import Settings

from support.backends import KeepAllBackend
from support.live_server import RULES_DEFAULT, LiveServer
from support.pages import ARTICLE

pytestmark = pytest.mark.timeout(60)


def error_code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


def test_healthz(client: httpx.Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_raw_html_body(client: httpx.Client) -> None:
    response = client.post("/extract", content=ARTICLE, headers={"Content-Type": "text/html"})
    assert response.status_code == 200
    body = response.json()
    assert "real content that a reader came for" in body["text"]
    assert body["backend"] == "boilerpipe"
    assert body["title"] == "A page"
    assert set(body["timings_ms"]) == {"parse", "classify", "render", "metadata", "total"}
    assert "blocks" not in body
    assert body["metadata"]["title"] == body["title"]
    assert body["metadata"]["page_type"] in PAGE_TYPES  # the shipped page-type model, loaded at start
    assert 0 < body["metadata"]["page_type_confidence"] <= 1


def test_json_body_with_options(client: httpx.Client) -> None:
    response = client.post("/extract", json={"html": ARTICLE, "include_blocks": True, "backend": "boilerpipe"})
    assert response.status_code == 200
    blocks = response.json()["blocks"]
    assert blocks[0]["locator"]["selector"].startswith("html > body")
    assert {type(b["score"]) for b in blocks} == {float}


def test_query_options_apply_to_raw_bodies(client: httpx.Client) -> None:
    response = client.post(
        "/extract", params={"include_blocks": "true"}, content=ARTICLE, headers={"Content-Type": "text/html"}
    )
    assert response.status_code == 200
    assert len(response.json()["blocks"]) > 5


def test_charset_from_the_content_type(client: httpx.Client) -> None:
    page = "<p>Ελληνικά κείμενα εδώ</p>".encode("iso-8859-7")
    response = client.post("/extract", content=page, headers={"Content-Type": "text/html; charset=iso-8859-7"})
    assert response.status_code == 200
    blocks = client.post(
        "/extract?include_blocks=true", content=page, headers={"Content-Type": "text/html; charset=iso-8859-7"}
    ).json()["blocks"]
    assert blocks[0]["text"] == "Ελληνικά κείμενα εδώ"


def test_unknown_backend_lists_the_known_ones(client: httpx.Client) -> None:
    response = client.post("/extract", json={"html": ARTICLE, "backend": "nope"})
    assert response.status_code == 400
    assert error_code(response) == "unknown_backend"
    assert "boilerpipe" in response.json()["error"]["message"]


def test_empty_body(client: httpx.Client) -> None:
    response = client.post("/extract", content=b"", headers={"Content-Type": "text/html"})
    assert response.status_code == 400
    assert error_code(response) == "empty_body"


def test_invalid_json(client: httpx.Client) -> None:
    response = client.post("/extract", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert error_code(response) == "invalid_json"


def test_json_without_html_is_a_validation_error(client: httpx.Client) -> None:
    response = client.post("/extract", json={"format": "text"})
    assert response.status_code == 422
    assert error_code(response) == "validation_error"
    assert "html" in response.json()["error"]["message"]


def test_bad_format_is_a_validation_error(client: httpx.Client) -> None:
    response = client.post("/extract", json={"html": ARTICLE, "format": "pdf"})
    assert response.status_code == 422
    assert error_code(response) == "validation_error"


def test_unsupported_media_type(client: httpx.Client) -> None:
    response = client.post("/extract", content=b"%PDF-1.4", headers={"Content-Type": "application/pdf"})
    assert response.status_code == 415
    assert error_code(response) == "unsupported_media_type"


def test_body_over_the_limit_is_refused(client: httpx.Client) -> None:
    response = client.post("/extract", content=b"<p>x</p>" * 200_000, headers={"Content-Type": "text/html"})
    assert response.status_code == 413
    assert error_code(response) == "body_too_large"


def test_chunked_body_over_the_limit_is_refused_while_streaming(client: httpx.Client) -> None:
    def chunks() -> object:
        for _ in range(300):
            yield b"<p>" + b"x" * 8192 + b"</p>"

    response = client.post("/extract", content=chunks(), headers={"Content-Type": "text/html"})
    assert response.status_code == 413


def test_binary_garbage_is_not_a_server_error(client: httpx.Client) -> None:
    response = client.post("/extract", content=bytes(range(256)) * 50, headers={"Content-Type": "text/html"})
    assert response.status_code < 500


def test_unknown_route_has_the_error_shape(client: httpx.Client) -> None:
    response = client.get("/nope")
    assert response.status_code == 404
    assert error_code(response) == "not_found"


# Batch, compare, backends, probes, auth and docs.


@pytest.fixture(scope="module")
def two_backends(registry_with: Callable[..., BackendRegistry]) -> Iterator[httpx.Client]:
    with (
        LiveServer(Settings(default_backend=RULES_DEFAULT), registry=registry_with(KeepAllBackend())) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        yield http


def test_batch_results_come_back_in_order(client: httpx.Client) -> None:
    pages = [{"html": f"<html><head><title>Page {i}</title></head><body>{ARTICLE}</body></html>"} for i in range(5)]
    response = client.post("/extract/batch", json={"documents": pages, "format": "html"})
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["title"] for r in results] == [f"Page {i}" for i in range(5)]
    assert all("real content" in r["html"] for r in results)


def test_batch_over_the_document_limit_is_413(client: httpx.Client) -> None:
    response = client.post("/extract/batch", json={"documents": [{"html": "<p>x</p>"}] * 33})
    assert response.status_code == 413
    assert error_code(response) == "too_many_documents"


def test_batch_needs_json_and_at_least_one_document(client: httpx.Client) -> None:
    assert client.post("/extract/batch", content=ARTICLE, headers={"Content-Type": "text/html"}).status_code == 415
    response = client.post("/extract/batch", json={"documents": []})
    assert (response.status_code, error_code(response)) == (422, "validation_error")


def test_one_bad_document_fails_only_itself(client: httpx.Client) -> None:
    documents = [
        {"html": ARTICLE},
        {"html": "\x00\x01\x02\x03" * 100},  # binary
        {"url": "https://example.com/"},  # no html
        {"html": ARTICLE, "colour": "red"},  # an unknown field
        {"html": 42},
        "not an object",
        {"html": ARTICLE},
    ]
    response = client.post("/extract/batch", json={"documents": documents})
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == len(documents)
    assert "real content" in results[0]["text"] and "real content" in results[-1]["text"]
    codes = [r["error"]["code"] for r in results[1:-1]]
    assert codes == ["not_html", "validation_error", "validation_error", "validation_error", "validation_error"]
    assert "colour" in results[3]["error"]["message"]


def test_what_concerns_the_whole_batch_still_fails_it(client: httpx.Client) -> None:
    response = client.post("/extract/batch", json={"documents": [{"html": ARTICLE}], "backend": "nope"})
    assert (response.status_code, error_code(response)) == (400, "unknown_backend")
    response = client.post("/extract/batch", json={"documents": [{"html": ARTICLE}], "fromat": "html"})
    assert (response.status_code, error_code(response)) == (422, "validation_error")
    assert "fromat" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        (
            "POST",
            "/extract",
            {"params": {"formt": "html"}, "content": ARTICLE, "headers": {"Content-Type": "text/html"}},
        ),
        ("POST", "/extract", {"json": {"html": ARTICLE, "include_block": True}}),
        ("POST", "/compare", {"json": {"html": ARTICLE, "backend": "boilerpipe"}}),
        (
            "POST",
            "/compare",
            {"params": {"backend": "x"}, "content": ARTICLE, "headers": {"Content-Type": "text/html"}},
        ),
        ("GET", "/extract", {"params": {"url": "https://example.com/", "timeout": "3"}}),
    ],
)
def test_unknown_options_are_refused_by_name(
    client: httpx.Client, method: str, path: str, kwargs: dict[str, object]
) -> None:
    response = client.request(method, path, **kwargs)
    assert (response.status_code, error_code(response)) == (422, "validation_error")
    unknown = next(iter({**kwargs.get("params", {}), **kwargs.get("json", {})}.keys() - {"url", "html"}))
    assert unknown in response.json()["error"]["message"]


def test_compare_puts_every_backend_side_by_side(two_backends: httpx.Client) -> None:
    response = two_backends.post("/compare", json={"html": ARTICLE})
    assert response.status_code == 200
    body = response.json()
    assert [r["backend"] for r in body["results"]] == ["boilerpipe", "keep_all"]
    assert all(set(r["timings_ms"]) >= {"parse", "classify", "render", "total"} for r in body["results"])
    block = body["blocks"][0]
    assert set(block["scores"]) == set(block["is_content"]) == {"boilerpipe", "keep_all"}
    (pair,) = body["agreement"]
    assert pair["backends"] == ["boilerpipe", "keep_all"]
    labels = [(b["is_content"]["boilerpipe"], b["is_content"]["keep_all"]) for b in body["blocks"]]
    assert pair["agreement"] == pytest.approx(sum(a == b for a, b in labels) / len(labels))
    assert pair["jaccard"] == pytest.approx(sum(a and b for a, b in labels) / sum(a or b for a, b in labels))


def test_backend_all_on_extract_is_a_compare(two_backends: httpx.Client) -> None:
    response = two_backends.post("/extract?backend=all", content=ARTICLE, headers={"Content-Type": "text/html"})
    assert response.status_code == 200
    assert len(response.json()["results"]) == 2


def test_compare_a_chosen_subset_and_refuse_unknown_names(two_backends: httpx.Client) -> None:
    response = two_backends.post("/compare", json={"html": ARTICLE, "backends": ["keep_all"], "include_blocks": False})
    assert [r["backend"] for r in response.json()["results"]] == ["keep_all"]
    assert "blocks" not in response.json()
    response = two_backends.post("/compare", json={"html": ARTICLE, "backends": ["keep_all", "nope"]})
    assert (response.status_code, error_code(response)) == (400, "unknown_backend")


def test_backends_lists_what_the_registry_has(two_backends: httpx.Client) -> None:
    body = two_backends.get("/backends").json()
    assert body["default_backend"] == "boilerpipe"
    by_name = {b["name"]: b for b in body["backends"]}
    assert set(by_name) == {"boilerpipe", "keep_all"}
    assert by_name["keep_all"] == {
        "name": "keep_all",
        "kind": "rules",
        "version": "test-1",
        "execution_provider": "CPU",
        "batched": False,
        "status": "ready",
        "manifest": None,
    }


def test_backends_show_the_model_store_figures(registry_with: Callable[..., BackendRegistry], tmp_path: Path) -> None:
    ModelStore(tmp_path).write(
        {
            "name": "keep_all",
            "version": "2026-11-21",
            "opset": 17,
            "inputs": ["features"],
            "outputs": ["probabilities"],
            "feature_schema": "shallow",
            "feature_schema_version": 1,
            "validation": {"f1": 0.91},
        },
        {"model": ("keep_all.onnx", b"not really a model")},
    )
    settings = Settings(model_store_dir=tmp_path, default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(KeepAllBackend())) as server:
        by_name = {b["name"]: b for b in httpx.get(server.url + "/backends").json()["backends"]}
    figures = by_name["keep_all"]["manifest"]
    assert figures["validation"] == {"f1": 0.91}
    assert figures["opset"] == 17
    assert len(figures["model_sha256"]) == 64
    assert by_name["boilerpipe"]["manifest"] is None


def test_enabled_backends_limit_what_is_offered(registry_with: Callable[..., BackendRegistry]) -> None:
    settings = Settings(enabled_backends=["boilerpipe"], default_backend=RULES_DEFAULT)
    with LiveServer(settings, registry=registry_with(KeepAllBackend())) as server:
        assert [b["name"] for b in httpx.get(server.url + "/backends").json()["backends"]] == ["boilerpipe"]
        response = httpx.post(server.url + "/extract", json={"html": ARTICLE, "backend": "keep_all"})
        assert (response.status_code, error_code(response)) == (400, "unknown_backend")


def test_readyz(client: httpx.Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "backends": default_registry(Settings()).names()}


def test_readyz_is_503_while_a_backend_is_not_ready(registry_with: Callable[..., BackendRegistry]) -> None:
    class Warming(KeepAllBackend):
        name = "warming"

        def is_ready(self) -> bool:
            return False

    with LiveServer(Settings(default_backend=RULES_DEFAULT), registry=registry_with(Warming())) as server:
        response = httpx.get(server.url + "/readyz")
        assert (response.status_code, error_code(response)) == (503, "not_ready")
        assert "warming" in response.json()["error"]["message"]


def test_api_keys_guard_the_api_but_not_probes_metrics_or_docs() -> None:
    settings = Settings(api_keys=["s3cret", "other"])
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        anonymous = http.post("/extract", json={"html": ARTICLE})
        assert (anonymous.status_code, error_code(anonymous)) == (401, "unauthorized")
        assert anonymous.headers["www-authenticate"] == "Bearer"
        wrong = http.get("/backends", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = http.post("/extract", json={"html": ARTICLE}, headers={"Authorization": "Bearer other"})
        assert ok.status_code == 200
        for path in ("/healthz", "/readyz", "/metrics", "/openapi.json", "/"):
            assert http.get(path).status_code == 200, path


def test_cors_is_off_unless_origins_are_configured(client: httpx.Client) -> None:
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/extract", headers=preflight).headers
    with LiveServer(Settings(cors_allow_origins=["https://app.example"])) as server:
        response = httpx.options(server.url + "/extract", headers=preflight)
        assert response.headers["access-control-allow-origin"] == "https://app.example"


def test_openapi_documents_every_endpoint_with_examples(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    assert set(schema["paths"]) >= {
        "/extract",
        "/extract/batch",
        "/compare",
        "/backends",
        "/healthz",
        "/readyz",
        "/metrics",
    }
    post = schema["paths"]["/extract"]["post"]["requestBody"]["content"]
    assert "example" in post["application/json"] and "example" in post["text/html"]
    assert "url" in {p["name"] for p in schema["paths"]["/extract"]["get"]["parameters"]}
    assert client.get("/docs").status_code == 200


def test_the_reader_page_is_served_at_the_root(client: httpx.Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert 'sandbox="allow-same-origin"' in response.text


def test_the_start_warms_every_stage_so_no_request_pays_a_one_time_cost() -> None:
    _tables.cache_clear()  # the character table the shallow and texrex features build on first use
    with LiveServer(Settings(default_backend=RULES_DEFAULT, enabled_backends=[RULES_DEFAULT])):
        assert _tables.cache_info().currsize == 1


def test_the_start_runs_each_model_so_the_first_request_runs_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: Counter[str] = Counter()
    scores = OnnxFeatureBackend.scores

    def counted(backend: OnnxFeatureBackend, document: Document) -> np.ndarray:
        runs[backend.name] += 1
        return scores(backend, document)

    monkeypatch.setattr(OnnxFeatureBackend, "scores", counted)
    with LiveServer(Settings(default_backend="mlp", enabled_backends=["mlp"])) as server:
        assert runs == {"mlp": len(FORMATS)}  # the start's warm-up: one extraction per format, none while loading
        assert httpx.post(server.url + "/extract", json={"html": ARTICLE}).status_code == 200
    assert runs == {"mlp": len(FORMATS) + 1}  # the request ran the model once, and nothing else did


def test_the_start_caps_blas_threads_per_process() -> None:
    settings = Settings(default_backend=RULES_DEFAULT, enabled_backends=[RULES_DEFAULT], blas_threads=1)
    with LiveServer(settings):
        blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
        assert blas, "numpy links a BLAS"
        assert {pool["num_threads"] for pool in blas} == {1}
