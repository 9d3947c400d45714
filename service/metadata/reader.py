"""One page's whole metadata: the fields from its markup, then the page type from the classifier."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from service.metadata.extract import extract_metadata
from service.metadata.fields import Metadata
from service.metadata.jsonld import parse_json_ld
from service.metadata.page_type import PageTypeModel, load_page_type_model, page_type_features, page_words
from service.models.store import ModelStore
from service.parsing.document import Document


class MetadataReader:
    """Reads a Document's metadata; classifies its page type where a page-type model is loaded."""

    def __init__(self, page_type: PageTypeModel | None = None) -> None:
        self.page_type = page_type

    def read(self, document: Document, url: str | None = None) -> Metadata:
        return self.read_typed(document, url)[0]

    def read_typed(self, document: Document, url: str | None = None) -> tuple[Metadata, dict[str, float]]:
        """The metadata, and the page-type model's probability of each page type (empty without a model)."""
        ld = parse_json_ld(document.markup.json_ld)
        metadata = extract_metadata(document, url, ld)
        if self.page_type is None:
            return metadata, {}
        ld_types = ld.types()
        features = page_type_features(document, metadata, ld_types, url)
        words = page_words(document, metadata, ld_types, url)
        probabilities = self.page_type.probabilities(features, words)
        best = int(np.argmax(probabilities))
        typed = replace(
            metadata, page_type=self.page_type.classes[best], page_type_confidence=round(float(probabilities[best]), 4)
        )
        return typed, dict(zip(self.page_type.classes, probabilities.tolist(), strict=True))


def load_metadata_reader(store: ModelStore) -> MetadataReader:
    """A reader with the store's page-type model (checked against its sha256), or without one where it has none."""
    return MetadataReader(load_page_type_model(store))
