"""``bilstm``: BoilerNet's sequence labeler, served by ONNX Runtime.

Every block's input is its bag of words and of path tags (plus a few
numeric signals, if the model was trained with them); the model labels the
whole block sequence at once. One document can be classified on its own
(:meth:`classify`, the in-process path), or many documents can share an
inference call through the micro-batcher (:meth:`encode` then
:meth:`infer`): results are the same either way, because the model is given
every sequence's length and padding never reaches a real step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from service.backends.base import Backend, BlockLabels, Route
from service.backends.spec import BackendSpec, BuildContext
from service.features.boilernet import COMPATIBLE_VERSIONS, SCHEMA_NAME, BlockEncoder, EncodedDocument, Vocabulary
from service.metadata.fields import ARTICLE
from service.models.store import ModelError, ModelStore
from service.parsing.document import Document
from service.runtime.sessions import CPU, active_provider, create_session
from service.runtime.windows import Window, stitch, windows, zero_batch
from service.settings import CPU_PADDED_BLOCKS, DEFAULT_BILSTM_OVERLAP_BLOCKS, DEFAULT_BILSTM_WINDOW_BLOCKS

MODEL_NAME = "bilstm"
# The BiLSTM models the store may hold: the shipped configuration, the paper's (`train bilstm --paper`),
# and the shipped one with int8 weights for CPUs (`train bilstm_int8`).
VARIANTS = (MODEL_NAME, "bilstm_paper", "bilstm_int8")
# The article model (`train bilstm --class-tokens 150 --name bilstm_article`): it also reads the id/class words of
# each block's ancestors, which on the validation part helped on articles (teasers, threads, sidebars are named
# so) and hurt on listings (whose items are named as teasers are); so ``bilstm`` reads it on the pages the
# page-type model may take for articles, and the general model elsewhere. Not a backend of its own.
ARTICLE_MODEL = "bilstm_article"
# The least probability of "article" (the page-type model's) a page is read by the article model at, chosen on
# the validation part (raw pages, no URL; a scratch sweep over the two models' per-page scores, issue 16's note):
# word F1 0.8670 at the most probable type, 0.8712-0.8714 from 0.07 to 0.4, 0.8761-0.8765 from 0.01 to 0.06 (one
# page apart: a shop's article the type model doubts; the best, 0.8765, at 0.02 and 0.03, the larger taken),
# 0.8575 at 0 (the article model everywhere).
ARTICLE_MIN_PROBABILITY = 0.03
INPUT_NAME = "blocks"
LENGTHS_NAME = "lengths"
# Padded blocks per inference call (sequences × longest): bounds the input tensor at about
# 8,192 × 1,058 × 4 bytes = 35 MB whatever the pages (the settings' CPU default).
DEFAULT_MAX_PADDED_BLOCKS = CPU_PADDED_BLOCKS


class BilstmBackend(Backend):  # and a BatchedBackend by its shape: encode, infer, labels
    """A verified BoilerNet ONNX model with its vocabulary."""

    kind = "onnx"
    batched = True  # the HTTP layer may send its documents through a MicroBatcher (Settings.micro_batching)

    def __init__(
        self,
        store: ModelStore,
        *,
        model_name: str = MODEL_NAME,
        providers: Sequence[str] = (CPU,),
        intra_op_threads: int = 1,
        window_blocks: int = DEFAULT_BILSTM_WINDOW_BLOCKS,
        overlap_blocks: int = DEFAULT_BILSTM_OVERLAP_BLOCKS,
        max_padded_blocks: int = DEFAULT_MAX_PADDED_BLOCKS,
        routes: Mapping[str, Route] = MappingProxyType({}),
    ) -> None:
        self.name = model_name  # "bilstm", or a variant stored under another name ("bilstm_paper", "bilstm_int8")
        entry, paths = store.verified(model_name)
        entry.require_schema(SCHEMA_NAME, *COMPATIBLE_VERSIONS)
        vocabulary = Vocabulary.from_json(paths["vocabulary"].read_text())
        if (vocabulary.classes is not None) != bool(entry.config.get("class_tokens", 0)):
            raise ModelError(f"model {model_name!r}: its vocabulary and its manifest disagree on class tokens")
        self.encoder = BlockEncoder.for_model(vocabulary, entry.config)
        if self.encoder.width != entry.config["width"]:
            raise ModelError(
                f"model {model_name!r} expects {entry.config['width']} inputs, the encoder gives {self.encoder.width}"
            )
        self.entry = entry
        self.version = entry.version
        if routes:  # its extractions are the routes' too; an ensemble reads its own model's scores, as fitted
            self.routes = routes
            self.version += "".join(
                f"+{page_type}.{route.backend.version}" for page_type, route in sorted(routes.items())
            )
            self.compatible_versions = (entry.version,)
        self.threshold = float(entry.config["threshold"])
        self.window_blocks = window_blocks
        self.overlap_blocks = overlap_blocks
        self.max_padded_blocks = max(max_padded_blocks, window_blocks)
        # A quantized model scales its inputs over each whole call: a document's scores must not depend
        # on the documents beside it, so it runs alone and stays out of the micro-batcher.
        self.per_document = bool(entry.config.get("per_document", False))
        self.batched = not self.per_document
        self.session = create_session(paths["model"], providers=providers, intra_op_threads=intra_op_threads)
        self.execution_provider = active_provider(self.session)

    def encode(self, document: Document) -> EncodedDocument:
        return self.encoder.encode(document)

    def infer(self, documents: Sequence[EncodedDocument]) -> list[np.ndarray]:
        """Content probability per block of each document, in as few inference calls as the budget allows."""
        jobs = [
            (i, window)
            for i, document in enumerate(documents)
            if len(document)
            for window in windows(len(document), self.window_blocks, self.overlap_blocks)
        ]
        jobs.sort(key=lambda job: job[1].stop - job[1].start)  # similar lengths share a call
        parts: list[list[tuple[Window, np.ndarray]]] = [[] for _ in documents]
        for chunk in self._chunks(jobs):
            inputs, lengths = zero_batch([w.stop - w.start for _, w in chunk], self.encoder.width)
            for row, (i, window) in enumerate(chunk):  # each window's rows written straight into the batch
                documents[i].dense(window.start, window.stop, out=inputs[row, : lengths[row]])
            probabilities = self.session.run(None, {INPUT_NAME: inputs, LENGTHS_NAME: lengths})[0]
            for row, (i, window) in enumerate(chunk):
                parts[i].append((window, probabilities[row, : lengths[row]]))
        return [stitch(len(document), parts[i]) for i, document in enumerate(documents)]

    def _chunks(self, jobs: list[tuple[int, Window]]) -> list[list[tuple[int, Window]]]:
        """Consecutive jobs grouped so that sequences × longest stays within the padded budget.

        For a per-document model, each document's windows are grouped apart from every other's.
        """
        if not self.per_document:
            return self._budgeted(jobs)
        by_document: dict[int, list[tuple[int, Window]]] = {}
        for job in jobs:
            by_document.setdefault(job[0], []).append(job)
        return [chunk for own in by_document.values() for chunk in self._budgeted(own)]

    def _budgeted(self, jobs: list[tuple[int, Window]]) -> list[list[tuple[int, Window]]]:
        chunks: list[list[tuple[int, Window]]] = []
        current: list[tuple[int, Window]] = []
        for job in jobs:  # sorted by length, so the newest job is the longest
            if current and (len(current) + 1) * (job[1].stop - job[1].start) > self.max_padded_blocks:
                chunks.append(current)
                current = []
            current.append(job)
        if current:
            chunks.append(current)
        return chunks

    def labels(self, scores: np.ndarray) -> BlockLabels:
        return BlockLabels.from_scores(scores, self.threshold)

    def classify(self, document: Document) -> BlockLabels:
        return self.labels(self.infer([self.encode(document)])[0])


def _build(name: str, context: BuildContext) -> BilstmBackend:
    """The model stored as ``name``; ``bilstm`` with the article model on the pages typed article, where stored."""
    routes = (
        {ARTICLE: Route(_build(ARTICLE_MODEL, context), ARTICLE_MIN_PROBABILITY)}
        if name == MODEL_NAME and ARTICLE_MODEL in context.store.names()
        else {}
    )
    settings = context.settings
    return BilstmBackend(
        context.store,
        model_name=name,
        routes=routes,
        providers=settings.execution_providers,
        intra_op_threads=settings.onnx_intra_op_threads,
        window_blocks=settings.bilstm_window_blocks,
        overlap_blocks=settings.bilstm_overlap_blocks,
        max_padded_blocks=settings.padded_blocks,
    )


SPEC = BackendSpec(_build, names=VARIANTS, requires_model=True)
