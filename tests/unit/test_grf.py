"""The grf backend: seeds kept, labels spread, options, the registry, and a 20,000-block page."""

import numpy as np
import pytest

from service import extract
from service.backends.base import Backend, BlockLabels
from service.backends.grf import GrfBackend, GrfOptions, backend_seeds
from service.backends.registry import BackendRegistry, default_registry
from service.graph.build import GraphOptions, block_graph
from service.graph.harmonic import BOILERPLATE, CONTENT, UNLABELLED
from service.graph.seeds import heuristic_seeds
from service.graph.vectors import block_vectors
from service.parsing.document import Document
from service.parsing.lexbor import parse_html

SENTENCE = "This paragraph is running text that a reader came for, long enough to read."
PAGE = (
    "<html><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
    f"<div class='post'><h2>Heading</h2><p>{SENTENCE}</p><p>{SENTENCE}</p>"
    "<p>Short line</p>"
    f"<p>{SENTENCE}</p></div>"
    "<div class='site-footer'><span>Imprint</span> <span>Privacy</span></div></body></html>"
)


def test_backend_protocol():
    backend = GrfBackend()
    assert isinstance(backend, Backend)
    assert (backend.name, backend.kind) == ("grf", "graph")


def test_seeds_keep_their_label_and_the_rest_follow_their_neighbours():
    doc = parse_html(PAGE)
    seeds = heuristic_seeds(doc)
    labels = GrfBackend().classify(doc)
    seeded = seeds != UNLABELLED
    assert (labels.scores[seeded] == seeds[seeded]).all()
    texts = doc.texts
    assert seeds[texts.index("Short line")] == UNLABELLED
    assert labels.labels[texts.index("Short line")]  # between content paragraphs
    assert labels.labels[texts.index("Heading")]
    assert not labels.labels[texts.index("Home")]
    assert not labels.labels[texts.index("Imprint")]
    assert labels.scores.dtype == np.float32
    assert ((labels.scores >= 0) & (labels.scores <= 1)).all()
    assert (labels.labels == (labels.scores >= 0.5)).all()


def test_extraction_through_the_pipeline():
    text = extract(PAGE, backend="grf").text
    assert SENTENCE in text and "Short line" in text
    assert "Home" not in text and "Imprint" not in text


def test_class_mass_normalisation_option():
    doc = parse_html(PAGE)
    plain = GrfBackend().classify(doc)
    normalised = GrfBackend(GrfOptions(class_mass_normalisation=True)).classify(doc)
    seeded = heuristic_seeds(doc) != UNLABELLED
    assert (normalised.scores[seeded] == plain.scores[seeded]).all()
    assert ((normalised.scores >= 0) & (normalised.scores <= 1)).all()


def test_degenerate_pages():
    empty = GrfBackend().classify(parse_html(""))
    assert len(empty.scores) == 0 and len(empty.labels) == 0
    # no seed at all: every block undecided at 0.5, kept
    unmarked = GrfBackend().classify(parse_html("<html><body><div>one</div><div>two</div></body></html>"))
    assert unmarked.scores.tolist() == [0.5, 0.5] and unmarked.labels.all()
    # only boilerplate seeds: it spreads everywhere
    only_nav = GrfBackend().classify(parse_html("<html><body><nav>Menu</nav><div>two</div></body></html>"))
    assert not only_nav.labels.any()


def test_results_do_not_depend_on_the_run():
    first, second = GrfBackend().classify(parse_html(PAGE)), GrfBackend().classify(parse_html(PAGE))
    assert np.array_equal(first.scores, second.scores)


# -- seeds from another backend ------------------------------------------------------
class FixedScores:
    """A backend scoring blocks from a list, counting its calls."""

    name = "fixed"
    kind = "rules"
    version = "0"

    def __init__(self, scores: list[float]) -> None:
        self.scores = np.array(scores, dtype=np.float32)
        self.calls = 0

    def classify(self, document: Document) -> BlockLabels:
        self.calls += 1
        return BlockLabels.from_scores(self.scores[: len(document)])


def test_backend_seeds_are_its_confident_blocks():
    labels = BlockLabels.from_scores(np.array([0.95, 0.9, 0.5, 0.1, 0.0]))
    assert backend_seeds(labels, 0.1).tolist() == [CONTENT, CONTENT, UNLABELLED, BOILERPLATE, BOILERPLATE]
    assert backend_seeds(labels, 0.05).tolist() == [CONTENT, UNLABELLED, UNLABELLED, UNLABELLED, BOILERPLATE]


def test_seed_backend_is_found_through_the_registry_and_called_once_per_page():
    fixed = FixedScores([1.0, 0.5, 0.5, 0.0])
    registry = BackendRegistry()
    registry.register("fixed", lambda: fixed)
    registry.register("grf", lambda: GrfBackend(GrfOptions(seed_backend="fixed"), resolve=registry.get))
    doc = parse_html("<html><body><p>a</p><p>b</p><p>c</p><p>d</p></body></html>")
    labels = registry.get("grf").classify(doc)
    assert fixed.calls == 1
    assert labels.scores[0] == 1.0 and labels.scores[3] == 0.0
    assert labels.scores[1] > 0.5 > labels.scores[2]  # the nearer seed wins along the chain


def test_seed_backend_needs_a_resolver_and_another_backend():
    with pytest.raises(ValueError, match="resolver"):
        GrfBackend(GrfOptions(seed_backend="boilerpipe"))
    with pytest.raises(ValueError, match="itself"):
        GrfBackend(GrfOptions(seed_backend="grf"), resolve=default_registry().get)


def test_seeded_by_boilerpipe_from_the_default_registry():
    registry = default_registry()
    backend = GrfBackend(GrfOptions(seed_backend="boilerpipe"), resolve=registry.get)
    assert backend.seed_backend is registry.get("boilerpipe")
    labels = backend.classify(parse_html(PAGE))
    assert len(labels.scores) == len(parse_html(PAGE))


def test_registered_by_default():
    registry = default_registry()
    assert "grf" in registry
    assert isinstance(registry.get("grf"), GrfBackend)
    assert registry.get("grf").seed_backend is None  # heuristic seeds


# -- a very long page ----------------------------------------------------------------
def long_page(sections: int) -> str:
    parts = ["<html><body>"]
    for s in range(sections):
        links = "".join(f"<li><a href='/{s}/{i}'>Link {i}</a></li>" for i in range(20))
        parts.append(f"<nav><ul>{links}</ul></nav>")
        parts.append("<div class='post'>" + f"<p>{SENTENCE}</p>" * 10 + "</div>")
        parts.append("<table>" + "".join(f"<tr><td>cell {i}</td><td>{i * s}</td></tr>" for i in range(15)) + "</table>")
    return "".join(parts) + "</body></html>"


@pytest.mark.slow
def test_a_page_of_twenty_thousand_blocks_stays_sparse_and_is_labelled():
    doc = parse_html(long_page(334))
    assert len(doc) >= 20_000
    options = GrfOptions()
    labels = GrfBackend(options).classify(doc)
    texts = np.array(doc.texts)
    assert labels.labels[texts == SENTENCE].all()
    assert not labels.labels[np.char.startswith(texts, "Link ")].any()
    # the bound of service.graph.build: at most 2k + 2 edges per block
    weights = block_graph(doc, block_vectors(doc), options.graph)
    assert weights.nnz <= len(doc) * (2 * GraphOptions().k + 2)
