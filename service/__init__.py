"""Main-content extraction: one parse, pluggable block classifiers, one service."""

from service.pipeline import Extraction, extract

__all__ = ["Extraction", "extract"]
