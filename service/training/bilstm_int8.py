"""``python -m service train bilstm_int8``: the shipped BiLSTM with int8 weights, for serving on a CPU.

ONNX Runtime's dynamic quantization stores the weights of the projection
(``MatMul``) and of both LSTMs as int8 and quantizes their inputs on the fly
(``MatMulInteger``, ``DynamicQuantizeLSTM``: CPU kernels). Nothing is refitted:
the source model's vocabulary, inputs and threshold are kept, and the same
bytes come out of every run. Before writing, the command scores both models
on the validation part (word F1 at the source's threshold, the largest
difference of a block's probability, the share of blocks whose label flips)
and records it in the manifest.

An input's quantization scale is taken over the whole tensor of a call, so a
document's scores would depend on the documents batched with it (validation
word F1 0.836 in batches of eight against 0.841 for the float model, 1.3 % of
the blocks flipped): the model runs one document a call (``per_document`` in
its config, which keeps the backend out of the micro-batcher), and is scored so.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic

from service.features.boilernet import BlockEncoder, Vocabulary
from service.models.store import ModelStore
from service.runtime.sessions import create_session
from service.runtime.windows import pad_batch
from service.training.bilstm import EncodedPart, encode_part, word_f1
from service.training.bilstm_model import INPUT_NAME, LENGTHS_NAME
from service.training.data import load_training_data

SOURCE = "bilstm"
NAME = "bilstm_int8"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", default=SOURCE, help="the float model in the store to quantize")
    parser.add_argument("--name", default=NAME, help="store entry (and backend) name of the int8 model")


def train(args: argparse.Namespace) -> int:
    store = ModelStore(args.out)
    source, paths = store.verified(args.source)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        quantized = Path(folder) / "model.onnx"
        quantize_dynamic(paths["model"], quantized, weight_type=QuantType.QInt8)
        model_bytes = quantized.read_bytes()
        int8_session = create_session(quantized)
    float_session = create_session(paths["model"])
    vocabulary_bytes = paths["vocabulary"].read_bytes()
    encoder = BlockEncoder.for_model(Vocabulary.from_json(vocabulary_bytes.decode()), source.config)
    data = load_training_data(args.data)
    validation = encode_part(data.parts["validation"], encoder)
    threshold = float(source.config["threshold"])
    float_scores, int8_scores = run(float_session, validation), run(int8_session, validation)
    figures = {
        "word_f1": word_f1(validation, int8_scores, threshold),
        "source_word_f1": word_f1(validation, float_scores, threshold),
        "parity_max_abs_diff": max_difference(float_scores, int8_scores),
        "flipped_blocks": flipped_share(float_scores, int8_scores, threshold),
    }
    print(", ".join(f"{name} {value:.4f}" for name, value in figures.items()), file=sys.stderr)
    entry = store.write(
        {
            "name": args.name,
            "version": f"{source.version}-int8",
            "opset": source.opset,
            "inputs": [INPUT_NAME, LENGTHS_NAME],
            "outputs": source.outputs,
            "feature_schema": source.feature_schema,
            "feature_schema_version": source.feature_schema_version,
            "training": {
                "command": "python -m service " + " ".join(sys.argv[1:]),
                "source": {"name": args.source, "sha256": source.files["model"]["sha256"]},
                "quantization": f"onnxruntime {ort.__version__} quantize_dynamic, int8 weights (MatMul, LSTM)",
                "seconds": round(time.perf_counter() - started, 1),
                **data.provenance(),
            },
            "config": {**source.config, "per_document": True},
            "validation": figures,
        },
        {
            "model": (f"{args.name}/model.onnx", model_bytes),
            "vocabulary": (f"{args.name}/vocabulary.json", vocabulary_bytes),
        },
    )
    print(f"wrote {args.out / entry.files['model']['path']} ({entry.files['model']['sha256'][:12]})", file=sys.stderr)
    return 0


def run(session: ort.InferenceSession, part: EncodedPart) -> list[np.ndarray]:
    """Content probabilities per document from an ONNX session, one document a call (as served)."""
    out = []
    for inputs in part.inputs:
        blocks, lengths = pad_batch([inputs], inputs.shape[1])
        out.append(session.run(None, {INPUT_NAME: blocks, LENGTHS_NAME: lengths})[0][0, : lengths[0]])
    return out


def max_difference(before: list[np.ndarray], after: list[np.ndarray]) -> float:
    """The largest difference of one block's probability between the two models."""
    return max(float(np.abs(a - b).max(initial=0)) for a, b in zip(before, after, strict=True))


def flipped_share(before: list[np.ndarray], after: list[np.ndarray], threshold: float) -> float:
    """The share of blocks labelled differently by the two models at ``threshold``."""
    flips = sum(int(np.count_nonzero((a >= threshold) != (b >= threshold))) for a, b in zip(before, after, strict=True))
    return flips / max(sum(len(a) for a in before), 1)
