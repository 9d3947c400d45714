"""The one ONNX Runtime session factory every model backend uses.

Providers come from settings, CUDA first when asked for; ONNX Runtime falls
back to the CPU silently when CUDA cannot start, so after creation we check
which provider really runs and refuse a silent fallback. Threads are set
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

    CUDA named first but unavailable, or silently replaced by the CPU, is an
    error rather than a quiet slowdown.
    """
    available = set(ort.get_available_providers())
    wanted = [p for p in providers if p in available]
    if not wanted:
        raise ModelError(f"none of the execution providers {list(providers)} is available (have {sorted(available)})")
    if providers[0] == CUDA and wanted[0] != CUDA:
        raise ModelError("CUDAExecutionProvider was asked for first but onnxruntime here has no CUDA support")
    options = ort.SessionOptions()
    options.intra_op_num_threads = intra_op_threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        session = ort.InferenceSession(str(model_path), sess_options=options, providers=wanted)
    except Exception as error:  # onnxruntime raises its own untyped errors on a bad file
        raise ModelError(f"ONNX Runtime cannot load {model_path}: {error}") from error
    if wanted[0] == CUDA and session.get_providers()[0] != CUDA:
        raise ModelError(f"{model_path}: CUDA was asked for but the session runs on {session.get_providers()[0]}")
    return session


def active_provider(session: ort.InferenceSession) -> str:
    """``"CUDA"`` or ``"CPU"``: what a session really runs on, for /backends and logs."""
    return "CUDA" if session.get_providers()[0] == CUDA else "CPU"
