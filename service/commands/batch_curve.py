"""The BiLSTM's batch curve (``bench --batch-curve``): inference docs/s against batch size, per provider.

On a GPU what one model call costs hardly grows with the pages it carries,
so throughput depends on how many pages the micro-batcher gathers
(``EXTRACT_BATCH_MAX_SIZE``). Pages are parsed and encoded once, outside the
timed loop (that part runs on the CPU whatever the provider); then the
backend, built as the service builds it, runs ``infer`` over them in batches
of each size. Each provider ONNX Runtime has here gets its own curve (the CPU
with one thread, as a worker runs it). Where a GPU provider ran, its scores
are compared with the CPU's: the largest difference and how many block
labels flip at the model's threshold.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import onnxruntime as ort

from service.backends.bilstm import ARTICLE_MODEL, MODEL_NAME, BilstmBackend
from service.backends.registry import default_registry
from service.features.boilernet import EncodedDocument
from service.metadata.fields import ARTICLE
from service.parsing.lexbor import parse_html
from service.runtime.sessions import CPU, CUDA
from service.settings import Settings

BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def curve_providers() -> list[str]:
    """The CPU, and CUDA first where this ONNX Runtime has it."""
    return [CUDA, CPU] if CUDA in ort.get_available_providers() else [CPU]


def _backend(provider: str, model_name: str) -> BilstmBackend:
    """The model as the service builds it; ``bilstm_article`` is ``bilstm``'s route on article pages."""
    providers = [provider] if provider == CPU else [provider, CPU]
    registry = default_registry(Settings(execution_providers=providers))
    if model_name == ARTICLE_MODEL:
        backend = registry.get(MODEL_NAME).routes[ARTICLE].backend
    else:
        backend = registry.get(model_name)
    assert isinstance(backend, BilstmBackend)
    return backend


def _timed(backend: BilstmBackend, encoded: list[EncodedDocument], size: int) -> dict[str, float | int]:
    batches = [encoded[i : i + size] for i in range(0, len(encoded), size)]
    backend.infer(batches[0])  # the first call of a shape may plan kernels: not timed
    seconds = np.empty(len(batches))
    for i, batch in enumerate(batches):
        started = time.perf_counter()
        backend.infer(batch)
        seconds[i] = time.perf_counter() - started
    return {
        "batch": size,
        "docs_per_s": len(encoded) / float(seconds.sum()),
        "ms_per_batch_p50": float(np.percentile(seconds, 50) * 1e3),
        "ms_per_batch_p99": float(np.percentile(seconds, 99) * 1e3),
    }


def measure_curve(
    pages: Sequence[bytes], sizes: Sequence[int] = BATCH_SIZES, model_name: str = "bilstm"
) -> dict[str, object]:
    """One curve per provider over the pages, and the GPU's parity with the CPU where one ran."""
    documents = [parse_html(page) for page in pages]
    curves: dict[str, list[dict[str, float | int]]] = {}
    scores: dict[str, list[np.ndarray]] = {}
    for provider in curve_providers():
        backend = _backend(provider, model_name)
        encoded = [backend.encode(d) for d in documents]
        curves[provider] = [_timed(backend, encoded, size) for size in sizes]
        scores[provider] = backend.infer(encoded)
        threshold, width = backend.threshold, backend.encoder.width
    result: dict[str, object] = {
        "model": model_name,
        "input_width": width,
        "pages": len(documents),
        "blocks": sum(map(len, documents)),
        "curves": curves,
    }
    if CUDA in scores:
        gpu, cpu = np.concatenate(scores[CUDA]), np.concatenate(scores[CPU])
        result["parity"] = {
            "max_abs_diff": float(np.abs(gpu - cpu).max()) if len(cpu) else 0.0,
            "label_flips": int(((gpu >= threshold) != (cpu >= threshold)).sum()),
            "blocks": len(cpu),
        }
    return result


def format_curve(result: dict[str, object]) -> str:
    """The curves as one table, batch sizes down, providers across."""
    curves: dict[str, list[dict[str, float | int]]] = result["curves"]  # type: ignore[assignment]
    names = [p.removesuffix("ExecutionProvider") + " docs/s" for p in curves]
    header = f"{'batch':>6}" + "".join(f"{name:>14}{'ms/batch p50':>14}" for name in names)
    lines = [header, "-" * len(header)]
    for i, row in enumerate(next(iter(curves.values()))):
        cells = "".join(f"{c[i]['docs_per_s']:>14.1f}{c[i]['ms_per_batch_p50']:>14.2f}" for c in curves.values())
        lines.append(f"{row['batch']:>6}{cells}")
    parity = result.get("parity")
    if isinstance(parity, dict):
        lines.append(
            f"# GPU against CPU over {parity['blocks']} blocks: largest score difference "
            f"{parity['max_abs_diff']:.2e}, {parity['label_flips']} labels flip"
        )
    return "\n".join(lines)
