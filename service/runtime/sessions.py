"""The one ONNX Runtime session factory every model backend uses.

Providers come from settings, in their order; ONNX Runtime falls back to the
next one silently when the first (TensorRT, CUDA) cannot start, so the first
must be there, and after creation we check it really runs: no silent fallback. Threads are set
explicitly (the service scales with worker processes, not intra-op threads).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import onnxruntime as ort

from service.models.store import ModelError

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"


def create_session(
    model_path: Path,
    *,
    providers: Sequence[str] = (CPU,),
    intra_op_threads: int = 1,
) -> ort.InferenceSession:
    """An inference session on the first provider of ``providers`` that this machine has.

    A provider named first but unavailable (TensorRT, CUDA), or silently replaced
    by the next, is an error rather than a quiet slowdown.
    """
    available = set(ort.get_available_providers())
    wanted = [p for p in providers if p in available]
    if not wanted:
        raise ModelError(f"none of the execution providers {list(providers)} is available (have {sorted(available)})")
    if wanted[0] != providers[0]:  # TensorRT or CUDA asked for first: not a quiet slowdown to the next one
        raise ModelError(f"{providers[0]} was asked for first but onnxruntime here does not have it")
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        session = ort.InferenceSession(str(model_path), sess_options=options, providers=wanted)
    except Exception as error:  # onnxruntime raises its own untyped errors on a bad file
        raise ModelError(f"ONNX Runtime cannot load {model_path}: {error}") from error
    running = session.get_providers()[0]
    if running != wanted[0]:
        raise ModelError(f"{model_path}: {wanted[0]} was asked for but the session runs on {running}")
    return session


def active_provider(session: ort.InferenceSession) -> str:
    """What a session really runs on, for /backends, the metrics and logs: "CPU", "CUDA", "Tensorrt"."""
    return str(session.get_providers()[0]).removesuffix("ExecutionProvider")
