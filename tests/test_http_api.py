"""The first HTTP surface, against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import httpx

ARTICLE = (
    "<html><head><title>A page</title></head><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
    "<article><h1>A headline</h1>"
    + "<p>This is a long paragraph of real content that a reader came for, with enough words in it.</p>" * 4
    + "</article><footer><a href='/c'>Contact</a></footer></body></html>"
)


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
    assert set(body["timings_ms"]) == {"parse", "classify", "render", "total"}
    assert "blocks" not in body


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
