"""A backend's routes: the model that classifies the pages of a page type in its stead (bilstm's article model)."""

from __future__ import annotations

import numpy as np
import pytest

from service.backends.base import Backend, BlockLabels, Route
from service.backends.bilstm import ARTICLE_MIN_PROBABILITY, ARTICLE_MODEL, MODEL_NAME
from service.backends.registry import BackendRegistry, default_registry
from service.metadata.fields import ARTICLE, PAGE_TYPES
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelStore
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE
from service.pipeline import Extractor, warm_up

from support.paths import FIXTURES_DIR

PAGE = "<html><body><p>A paragraph long enough to be read as the page's text by anyone.</p></body></html>"


class Constant(Backend):
    """Scores every block ``score``; counts its calls."""

    kind = "rules"

    def __init__(self, name: str, version: str, score: float) -> None:
        self.name, self.version, self.score, self.calls = name, version, score, 0

    def classify(self, document: Document) -> BlockLabels:
        self.calls += 1
        return BlockLabels.from_scores(np.full(len(document), self.score, dtype=np.float32))


class Routed(Constant):
    def __init__(self, routes: dict[str, Route]) -> None:
        super().__init__("routed", "1", 0.0)
        self.routes = routes


def test_a_page_goes_to_a_route_where_its_types_probability_reaches_the_routes_least() -> None:
    article = Constant("article-model", "2", 1.0)
    backend = Routed({ARTICLE: Route(article, 0.2)})
    assert backend.for_page({ARTICLE: 0.9, "listing": 0.1}) is article
    assert backend.for_page({ARTICLE: 0.2, "listing": 0.8}) is article  # not the most probable type: enough
    assert backend.for_page({ARTICLE: 0.19, "listing": 0.81}) is backend
    assert backend.route_of({ARTICLE: 0.2}) == ARTICLE and backend.route_of({ARTICLE: 0.1}) is None
    assert backend.for_page({}) is backend  # no page-type model: no route, even one open to every page
    assert Routed({ARTICLE: Route(article, 0.0)}).for_page({}).name == "routed"
    plain = Constant("plain", "1", 1.0)
    assert plain.for_page(dict.fromkeys(PAGE_TYPES, 1.0)) is plain


def extractor_with(backend: Backend, metadata: MetadataReader) -> Extractor:
    registry = BackendRegistry()
    registry.register(backend.name, lambda: backend)
    return Extractor(registry, default_backend=backend.name, metadata=metadata)


def test_the_pipeline_classifies_with_the_route_of_the_page_type_the_metadata_gives() -> None:
    everywhere = Constant("keep-all", "2", 1.0)
    backend = Routed({ARTICLE: Route(everywhere, 0.0)})  # whatever type the page gets
    typed = extractor_with(backend, load_metadata_reader(ModelStore(MODEL_STORE))).extract(PAGE)
    assert typed.metadata.page_type in PAGE_TYPES
    assert typed.labels.scores.min() == 1.0  # the route's scores; the backend itself scores every block 0
    assert (typed.backend, typed.backend_version) == ("routed", "1")  # the backend answers for its routes
    assert (everywhere.calls, backend.calls) == (1, 0)
    untyped = extractor_with(backend, MetadataReader()).extract(PAGE)  # no page-type model: no type, no route
    assert untyped.metadata.page_type is None and untyped.labels.scores.max() == 0.0
    assert backend.calls == 1


def test_the_warm_up_runs_the_backend_and_each_route() -> None:
    article = Constant("article-model", "2", 1.0)
    backend = Routed({ARTICLE: Route(article, 0.5)})
    warm_up(extractor_with(backend, MetadataReader()), [backend.name])
    assert backend.calls > 0 and article.calls > 0


@pytest.fixture(scope="module")
def bilstm() -> Backend:
    if ARTICLE_MODEL not in ModelStore(MODEL_STORE).names():
        pytest.skip("this model store has no article model")
    return default_registry().get(MODEL_NAME)


def test_bilstm_reads_its_article_model_on_articles_and_answers_for_both(bilstm: Backend) -> None:
    (route,) = bilstm.routes.values()
    assert list(bilstm.routes) == [ARTICLE] and route.backend.name == ARTICLE_MODEL
    assert route.min_probability == ARTICLE_MIN_PROBABILITY
    general_version = ModelStore(MODEL_STORE).entry(MODEL_NAME).version
    assert bilstm.version == f"{general_version}+{ARTICLE}.{route.backend.version}"
    assert bilstm.compatible_versions == (general_version,)  # an ensemble reads the general model, as fitted
    assert ARTICLE_MODEL not in default_registry()  # not a backend of its own


def test_bilstm_on_an_article_page_scores_with_the_article_model(bilstm: Backend) -> None:
    page = (FIXTURES_DIR / "article.html").read_bytes()
    registry = BackendRegistry()
    registry.register(MODEL_NAME, lambda: bilstm)
    metadata = load_metadata_reader(ModelStore(MODEL_STORE))
    result = Extractor(registry, default_backend=MODEL_NAME, metadata=metadata).extract(page)
    assert result.metadata.page_type == ARTICLE
    article_model = bilstm.routes[ARTICLE].backend
    document = parse_html(page)
    assert np.array_equal(result.labels.scores, article_model.classify(document).scores)
    assert not np.array_equal(result.labels.scores, bilstm.classify(document).scores)
