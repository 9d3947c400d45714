"""``python -m service train bilstm``: fit BoilerNet on the train part, pick the epoch and threshold on validation.

Fixed seed, class-weighted binary cross-entropy over real (unpadded) steps,
batches of documents of similar length, the best epoch by validation
word-F1, then export with tf2onnx, a parity check against ONNX Runtime on
validation documents, and only then the artifact and its manifest entry.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnx

from service.evaluation.metrics import PRF, Confusion, word_prf, word_tokens
from service.features.boilernet import SCHEMA_NAME, SCHEMA_VERSION, BlockEncoder, build_vocabulary
from service.models.store import ModelStore
from service.output.formats import render_text
from service.runtime.sessions import create_session
from service.runtime.windows import pad_batch
from service.training.bilstm_model import (
    INPUT_NAME,
    LENGTHS_NAME,
    OPSET,
    OUTPUT_NAME,
    NetworkConfig,
    build_network,
    export_onnx,
)
from service.training.data import LabeledDocument, load_training_data

if TYPE_CHECKING:
    import keras
    import tensorflow as tf

MODEL_NAME = "bilstm"
# Training sequences longer than this are cut into windows (memory and step time stay bounded).
MAX_TRAIN_BLOCKS = 1024
# Export parity: Keras (masked) vs ONNX Runtime (sequence_lens) on validation documents.
PARITY_TOLERANCE = 1e-4
PARITY_DOCUMENTS = 48
THRESHOLDS = np.round(np.arange(0.1, 0.91, 0.05), 2)
# The shipped default: the paper's projection, half its LSTM units (4x cheaper recurrent step), numeric inputs.
DEFAULT_CONFIG = NetworkConfig(projection=256, units=128, layers=2, dropout=0.5, numeric=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--paper", action="store_true", help="BoilerNet's published configuration (256/256, bags only)")
    parser.add_argument("--units", type=int, default=None, help="LSTM units per direction")
    parser.add_argument("--projection", type=int, default=None, help="units of the dense projection")
    parser.add_argument("--numeric", action=argparse.BooleanOptionalAction, default=None, help="numeric inputs")
    parser.add_argument(
        "--class-tokens",
        type=int,
        default=None,
        metavar="N",
        help="also read the block's ancestors' id/class words: the N most frequent on the train part (default: none)",
    )
    parser.add_argument(
        "--candidates",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also read where Readability would take the article from (service.features.candidates)",
    )
    parser.add_argument("--epochs", type=int, default=12, help="most training epochs (the best one is kept)")
    parser.add_argument(
        "--patience",
        type=int,
        default=None,
        help="stop after this many epochs without a better validation F1 (default: run every epoch; the"
        " validation curve is noisy: the shipped model's best epoch, 8, came five epochs after the runner-up)",
    )
    parser.add_argument("--batch-docs", type=int, default=16, help="documents per batch (the paper: 16)")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--name", default=MODEL_NAME, help="model store name (default: bilstm)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="TensorFlow threads")


def network_config(args: argparse.Namespace) -> NetworkConfig:
    base = NetworkConfig.paper() if args.paper else DEFAULT_CONFIG
    overrides = {
        "units": args.units,
        "projection": args.projection,
        "numeric": args.numeric,
        "class_tokens": args.class_tokens,
        "candidates": args.candidates,
    }
    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


@dataclass(frozen=True)
class Best:
    """The best epoch so far, by validation word-F1, with its weights."""

    f1: float
    epoch: int
    weights: list[np.ndarray]


@dataclass
class EncodedPart:
    """One part of the corpus as model inputs: a matrix and labels per document."""

    documents: list[LabeledDocument]
    inputs: list[np.ndarray]
    labels: list[np.ndarray]


def encode_part(documents: list[LabeledDocument], encoder: BlockEncoder) -> EncodedPart:
    kept = [d for d in documents if len(d.document)]
    return EncodedPart(
        kept, [encoder.encode(d.document).dense() for d in kept], [d.labels.astype(np.float32) for d in kept]
    )


def training_windows(part: EncodedPart) -> list[tuple[np.ndarray, np.ndarray]]:
    """(inputs, labels) windows of at most MAX_TRAIN_BLOCKS blocks."""
    windows = []
    for x, y in zip(part.inputs, part.labels, strict=True):
        for start in range(0, len(x), MAX_TRAIN_BLOCKS):
            windows.append((x[start : start + MAX_TRAIN_BLOCKS], y[start : start + MAX_TRAIN_BLOCKS]))
    return windows


def length_batches(windows: list[tuple[np.ndarray, np.ndarray]], size: int, rng: random.Random) -> list[list[int]]:
    """Batches of windows of similar length (little padding), in a shuffled order."""
    order = sorted(range(len(windows)), key=lambda i: (len(windows[i][0]), rng.random()))
    batches = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(batches)
    return batches


def class_weights(part: EncodedPart) -> tuple[float, float]:
    """BoilerNet's weighting: each class weighted by total / (2 × its count)."""
    positives = float(sum(y.sum() for y in part.labels))
    total = float(sum(len(y) for y in part.labels))
    return total / (2 * max(total - positives, 1.0)), total / (2 * max(positives, 1.0))


Forward = Callable[[np.ndarray, np.ndarray], "tf.Tensor"]


def compiled_forward(model: keras.Model) -> Forward:
    """The masked network's inference as one TensorFlow graph.

    Called eagerly, Keras runs the LSTMs' time loop step by step in Python:
    validating one epoch took longer than training it.
    """
    import tensorflow as tf  # noqa: PLC0415 - training dependency

    @tf.function(reduce_retracing=True)
    def forward(blocks: tf.Tensor, lengths: tf.Tensor) -> tf.Tensor:
        return model([blocks, lengths], training=False)

    return forward


def predict(forward: Forward, part: EncodedPart, width: int, batch_docs: int = 8) -> list[np.ndarray]:
    """Content probabilities per document (Keras, masked), in batches of similar length."""
    order = sorted(range(len(part.inputs)), key=lambda i: len(part.inputs[i]))
    out: list[np.ndarray] = [np.empty(0)] * len(part.inputs)
    for start in range(0, len(order), batch_docs):
        chunk = order[start : start + batch_docs]
        blocks, lengths = pad_batch([part.inputs[i] for i in chunk], width)
        probability = forward(blocks, lengths).numpy()
        for row, i in enumerate(chunk):
            out[i] = probability[row, : lengths[row]]
    return out


def word_f1(part: EncodedPart, probabilities: list[np.ndarray], threshold: float) -> float:
    """Mean per-page word-F1 of the rendered text at ``threshold`` (pages with gold text)."""
    scores = [
        word_prf(word_tokens(render_text(d.document, p >= threshold)), gold)
        for d, p in zip(part.documents, probabilities, strict=True)
        if (gold := word_tokens(d.page.main_content))
    ]
    return PRF.mean(scores).f1


def block_prf(part: EncodedPart, probabilities: list[np.ndarray], threshold: float) -> PRF:
    """Content-class block precision, recall and F1 pooled over all blocks."""
    return Confusion.of(np.concatenate(probabilities) >= threshold, np.concatenate(part.labels) >= 0.5).positive


def _progress(label: str, done: int, total: int, *, loss: float, started: float) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(
        f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
        f"loss {loss:.4f} {time.perf_counter() - started:5.0f}s"
    )
    sys.stderr.flush()


def train(args: argparse.Namespace) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras  # noqa: PLC0415 - training dependency
    import tensorflow as tf  # noqa: PLC0415

    config = network_config(args)
    random.seed(args.seed)
    np.random.seed(args.seed)
    keras.utils.set_random_seed(args.seed)
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    print(f"train {args.name}: {config}", file=sys.stderr)
    started = time.perf_counter()
    data = load_training_data(args.data)
    vocabulary = build_vocabulary((d.document for d in data.parts["train"]), class_words=config.class_tokens or None)
    encoder = BlockEncoder(vocabulary, numeric=config.numeric, candidates=config.candidates)
    train_part = encode_part(data.parts["train"], encoder)
    validation = encode_part(data.parts["validation"], encoder)
    width = encoder.width
    weights = class_weights(train_part)
    windows = training_windows(train_part)
    print(f"data ready in {time.perf_counter() - started:.0f}s: {len(windows)} training windows", file=sys.stderr)

    model = build_network(width, config, masked=True)
    optimizer = keras.optimizers.Adam(learning_rate=args.learning_rate)

    @tf.function(reduce_retracing=True)
    def step(blocks: tf.Tensor, lengths: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            probability = tf.clip_by_value(model([blocks, lengths], training=True), 1e-7, 1 - 1e-7)
            real = tf.sequence_mask(lengths, tf.shape(blocks)[1], dtype=tf.float32)
            weight = real * tf.where(labels > 0.5, weights[1], weights[0])
            bce = -(labels * tf.math.log(probability) + (1 - labels) * tf.math.log(1 - probability))
            loss = tf.reduce_sum(weight * bce) / tf.reduce_sum(real)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
        return loss

    forward = compiled_forward(model)
    rng = random.Random(args.seed)
    best = Best(f1=-1.0, epoch=0, weights=[])
    history = []
    for epoch in range(1, args.epochs + 1):
        started = time.perf_counter()
        batches = length_batches(windows, args.batch_docs, rng)
        losses = []
        for done, batch in enumerate(batches, 1):
            blocks, lengths = pad_batch([windows[i][0] for i in batch], width)
            labels, _ = pad_batch([windows[i][1][:, None] for i in batch], 1)
            losses.append(float(step(blocks, lengths, labels[:, :, 0])))
            _progress(f"epoch {epoch}/{args.epochs}", done, len(batches), loss=float(np.mean(losses)), started=started)
        probabilities = predict(forward, validation, width)
        f1 = word_f1(validation, probabilities, 0.5)
        seconds = time.perf_counter() - started
        history.append({"epoch": epoch, "loss": float(np.mean(losses)), "validation_word_f1": f1, "seconds": seconds})
        print(f"  validation word-F1 {f1:.4f}", file=sys.stderr)
        if f1 > best.f1:
            best = Best(f1=f1, epoch=epoch, weights=model.get_weights())
        elif args.patience is not None and epoch - best.epoch >= args.patience:
            print(f"no better validation F1 for {args.patience} epochs: stopping", file=sys.stderr)
            break
    model.set_weights(best.weights)
    probabilities = predict(forward, validation, width)
    by_threshold = {float(t): word_f1(validation, probabilities, float(t)) for t in THRESHOLDS}
    threshold = max(by_threshold, key=lambda t: (by_threshold[t], -abs(t - 0.5)))
    blocks_prf = block_prf(validation, probabilities, threshold)
    print(f"best epoch {best.epoch}, threshold {threshold}: word-F1 {by_threshold[threshold]:.4f}", file=sys.stderr)

    proto = export_onnx(model, width, config)
    parity = check_parity(forward, proto, validation, width)
    store = ModelStore(args.out)
    entry = store.write(
        {
            "name": args.name,
            # the candidate group in the version too: a model with it differs in input from one of the same day without
            "version": time.strftime("%Y%m%d") + f"-u{config.units}" + ("-cand" if config.candidates else ""),
            "opset": OPSET,
            "inputs": [INPUT_NAME, LENGTHS_NAME],
            "outputs": [OUTPUT_NAME],
            "feature_schema": SCHEMA_NAME,
            "feature_schema_version": SCHEMA_VERSION,
            "training": {
                "command": "python -m service " + " ".join(sys.argv[1:]),
                "seed": args.seed,
                "epochs": args.epochs,
                "patience": args.patience,
                "best_epoch": best.epoch,
                "batch_docs": args.batch_docs,
                "learning_rate": args.learning_rate,
                "max_train_blocks": MAX_TRAIN_BLOCKS,
                "history": history,
                **data.provenance(),
            },
            "config": {**config.to_json(), "threshold": threshold, "width": width},
            "validation": {
                "word_f1": by_threshold[threshold],
                "word_f1_at_0.5": by_threshold[0.5],
                "block_precision": blocks_prf.precision,
                "block_recall": blocks_prf.recall,
                "block_f1": blocks_prf.f1,
                "thresholds": by_threshold,
                "parity_max_abs_diff": parity,
            },
        },
        {
            "model": (f"{args.name}/model.onnx", proto.SerializeToString()),
            "vocabulary": (f"{args.name}/vocabulary.json", vocabulary.to_json().encode()),
        },
    )
    print(f"wrote {args.out / entry.files['model']['path']} ({entry.files['model']['sha256'][:12]})", file=sys.stderr)
    return 0


def check_parity(forward: Forward, proto: onnx.ModelProto, validation: EncodedPart, width: int) -> float:
    """Max |Keras − ONNX Runtime| over validation documents, batched with padding; raises above tolerance."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.onnx"
        path.write_bytes(proto.SerializeToString())
        session = create_session(path)
        sample = EncodedPart(
            validation.documents[:PARITY_DOCUMENTS],
            validation.inputs[:PARITY_DOCUMENTS],
            validation.labels[:PARITY_DOCUMENTS],
        )
        keras_out = predict(forward, sample, width)
        worst = 0.0
        for start in range(0, len(sample.inputs), 8):
            blocks, lengths = pad_batch(sample.inputs[start : start + 8], width)
            onnx_out = session.run(None, {INPUT_NAME: blocks, LENGTHS_NAME: lengths})[0]
            for row, n in enumerate(lengths.tolist()):
                worst = max(worst, float(np.abs(onnx_out[row, :n] - keras_out[start + row]).max(initial=0)))
    if worst > PARITY_TOLERANCE:
        raise RuntimeError(f"export parity failed: max |keras - onnx| = {worst:.2e} > {PARITY_TOLERANCE:.0e}")
    print(f"export parity: max |keras - onnx| = {worst:.2e}", file=sys.stderr)
    return worst
