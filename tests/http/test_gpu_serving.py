"""The GPU deployment as it runs: uvicorn, the BiLSTM on CUDA behind the micro-batcher, both of its models.

Skipped where ONNX Runtime has no CUDA (CI, a laptop); run on a machine with a GPU and onnxruntime-gpu:
``pytest -m gpu``. The in-process extraction on the CPU is the reference: CUDA's kernels round
otherwise (scores within 5e-4 of the CPU's over the 89,102 blocks of the test part, README), so a
score near the threshold may land on the other side.
"""

from __future__ import annotations

import gzip
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import onnxruntime as ort
import pytest

from service import extract
from service.runtime.sessions import CPU, CUDA
from service.settings import Settings

from support.live_server import LiveServer
from support.paths import FIXTURES_DIR
from support.scrapes import label_values, scrape, value

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.timeout(300),
    pytest.mark.skipif(CUDA not in ort.get_available_providers(), reason="no CUDA here (a GPU and onnxruntime-gpu)"),
]

SCORE_TOLERANCE = 2e-3
BATCHED = "extract_batch_documents"  # the histogram of documents per model batch, by batcher
# A shop's cart: the page-type model gives it almost no chance of being an article, so the general model reads it.
CART = (
    "<html><head><title>Shop - Cart</title></head><body><nav><a href=/>Home</a></nav><h1>Cart</h1><ul>"
    + "".join(f"<li><a href=/p{i}>Product {i}</a> ${i}.99 <button>Add to cart</button></li>" for i in range(30))
    + "</ul></body></html>"
).encode()


def pages() -> list[bytes]:
    """The fixture article, the WCXB fixture pages (the article model reads them too) and the cart."""
    wcxb = sorted((FIXTURES_DIR / "eval" / "wcxb" / "html").iterdir())
    raw = [gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in wcxb]
    return [(FIXTURES_DIR / "article.html").read_bytes(), *raw, CART]


def test_the_gpu_image_serves_bilstm_on_cuda_in_shared_batches_as_the_cpu_scores_it() -> None:
    settings = Settings(execution_providers=[CUDA, CPU], default_backend="bilstm")  # as the gpu image sets them
    requests = pages() * 8
    with LiveServer(settings) as server, ThreadPoolExecutor(16) as pool:
        listed = {b["name"]: b for b in httpx.get(f"{server.url}/backends").json()["backends"]}
        responses = list(
            pool.map(
                lambda page: httpx.post(
                    f"{server.url}/extract?include_blocks=true",
                    content=page,
                    headers={"Content-Type": "text/html"},
                    timeout=120,
                ),
                requests,
            )
        )
        metrics = httpx.get(f"{server.url}/metrics").text
    assert listed["bilstm"]["execution_provider"] == "CUDA" and listed["bilstm"]["batched"]
    assert [r.status_code for r in responses] == [200] * len(requests)

    on_cpu = {page: extract(page, backend="bilstm") for page in set(requests)}
    flipped = blocks = 0
    for page, response in zip(requests, responses, strict=True):
        body, expected = response.json(), on_cpu[page]
        assert body["backend"] == "bilstm" and body["backend_version"] == expected.backend_version
        np.testing.assert_allclose([b["score"] for b in body["blocks"]], expected.labels.scores, atol=SCORE_TOLERANCE)
        kept = np.array([b["is_content"] for b in body["blocks"]])
        flipped += int((kept != expected.labels.labels).sum())
        blocks += len(kept)
    assert flipped <= blocks // 100  # labels as the CPU's, but for a score that rounds across the threshold

    samples = scrape(metrics)
    batches = {  # (batches, documents) of each batcher that ran
        name: (value(samples, f"{BATCHED}_count", backend=name), value(samples, f"{BATCHED}_sum", backend=name))
        for name in label_values(samples, f"{BATCHED}_count", "backend")
        if value(samples, f"{BATCHED}_count", backend=name)
    }
    assert set(batches) == {"bilstm", "bilstm/article"}  # each model its own batcher: the cart, the rest
    assert sum(total for _, total in batches.values()) == len(requests)  # every document went through a batch
    assert any(total > count for count, total in batches.values())  # and concurrent documents shared one
