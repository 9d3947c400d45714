"""One page's whole metadata: the fields from its markup, then the page type from the classifier."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from service.metadata.extract import declared_only, extract_metadata, without_impossible_dates
from service.metadata.fields import ARTICLE, COLLECTION, LISTING, PRODUCT, SERVICE, Metadata
from service.metadata.jsonld import parse_json_ld
from service.metadata.page_type import PageTypeModel, load_page_type_model, page_type_features, page_words
from service.models.store import ModelStore
from service.parsing.document import Document
from service.parsing.urls import readable_url

# Pages that are not published items: the dates and names they show are their entries', reviews' or
# footer's, so their publication day and author are taken only where their structured data declares
# them (:func:`declared_only`), and only where the page is not likely an article either (below
# MAY_BE_ARTICLE): 2012 news and blog posts the model takes for listings keep their bylines and dates.
UNDATED_TYPES = frozenset({PRODUCT, SERVICE, COLLECTION, LISTING})
# bilstm's line for "the page may be an article" (chosen there on validation). Here it spares 107 of the
# 115 Dragnet pages the rule would change without it (error analysis: mostly posts by their authors), and
# costs on WCXB train and validation only spurious values (the 20 pages it spares have no gold for them).
MAY_BE_ARTICLE = 0.03


class MetadataReader:
    """Reads a Document's metadata; classifies its page type where a page-type model is loaded."""

    def __init__(self, page_type: PageTypeModel | None = None) -> None:
        self.page_type = page_type

    def read(self, document: Document, url: str | None = None) -> Metadata:
        return self.read_typed(document, url)[0]

    def read_typed(self, document: Document, url: str | None = None) -> tuple[Metadata, dict[str, float]]:
        """The metadata, and the page-type model's probability of each page type (empty without a model).

        A ``url`` urllib cannot read ("http://[") is taken for none.
        """
        url = readable_url(url)
        ld = parse_json_ld(document.markup.json_ld)
        metadata = extract_metadata(document, url, ld)
        if self.page_type is None:
            return without_impossible_dates(metadata), {}
        ld_types = ld.types()
        features = page_type_features(document, metadata, ld_types, url)
        words = page_words(document, metadata, ld_types, url)
        probabilities = self.page_type.probabilities(features, words)
        best = int(np.argmax(probabilities))
        page_type = self.page_type.classes[best]
        typed = replace(metadata, page_type=page_type, page_type_confidence=round(float(probabilities[best]), 4))
        unlike_article = probabilities[self.page_type.classes.index(ARTICLE)] < MAY_BE_ARTICLE
        if page_type in UNDATED_TYPES and unlike_article and (typed.date_published or typed.author):
            typed = declared_only(typed, document, ld)
        return without_impossible_dates(typed), dict(zip(self.page_type.classes, probabilities.tolist(), strict=True))


def load_metadata_reader(store: ModelStore) -> MetadataReader:
    """A reader with the store's page-type model (checked against its sha256), or without one where it has none."""
    return MetadataReader(load_page_type_model(store))
