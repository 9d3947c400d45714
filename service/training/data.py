"""Labeled documents for training: the committed split, parsed once, with alignment labels.

Every trainer reads its pages through here, so all of them see the same
parts of the same corpus, parsed by the same code that serves requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from service.evaluation.datasets import Corpus, Page, load_corpus
from service.evaluation.labels import labels_for
from service.evaluation.split import Split, committed_split_path, select
from service.parsing.document import Document
from service.parsing.lexbor import parse_html


@dataclass(frozen=True)
class LabeledDocument:
    """One training page: its gold record, its parse and a content label per block."""

    page: Page
    document: Document
    labels: np.ndarray  # bool per block


@dataclass(frozen=True)
class TrainingData:
    """The corpus, its split and the labeled documents of the parts a trainer asked for."""

    corpus: Corpus
    split: Split
    parts: dict[str, list[LabeledDocument]]

    def provenance(self) -> dict[str, object]:
        """What a manifest records about the data a model was fitted on."""
        return {
            "data": self.corpus.name,
            "data_digest": self.split.corpus_digest,
            "credit": self.corpus.credit,
            "split": f"service/evaluation/splits/{self.corpus.name}.json (seed {self.split.seed})",
            "pages": {part: len(docs) for part, docs in self.parts.items()},
        }


def load_training_data(data_dir: Path, parts: tuple[str, ...] = ("train", "validation")) -> TrainingData:
    """Parse and label the pages of ``parts`` of the corpus at ``data_dir`` under its committed split."""
    corpus = load_corpus(data_dir)
    split = Split.read(committed_split_path(corpus.name))
    labeled: dict[str, list[LabeledDocument]] = {}
    for part in parts:
        docs = []
        for page in select(corpus, part, split):
            document = parse_html(page.html())
            docs.append(LabeledDocument(page, document, labels_for(page, document)))
        labeled[part] = docs
    return TrainingData(corpus=corpus, split=split, parts=labeled)
