"""The page-type model: the shipped artifact verifies against its manifest, refuses tampering, and classifies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from service.cli import main
from service.metadata.fields import PAGE_TYPES
from service.metadata.page_type import (
    FEATURES,
    MAX_LABELS,
    MODEL_NAME,
    N_FEATURES,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    load_page_type_model,
    page_type_features,
    page_words,
)
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelError, ModelStore
from service.parsing.lexbor import parse_html
from service.paths import MODEL_STORE


@pytest.fixture
def store_copy(tmp_path: Path) -> ModelStore:
    """The shipped manifest and page-type artifact, copied so a test may damage them."""
    shutil.copy(MODEL_STORE / "manifest.json", tmp_path / "manifest.json")
    shutil.copytree(MODEL_STORE / MODEL_NAME, tmp_path / MODEL_NAME)
    return ModelStore(tmp_path)


def test_the_shipped_model_verifies_and_records_how_it_was_made() -> None:
    entry, paths = ModelStore(MODEL_STORE).verified(MODEL_NAME)
    assert (entry.feature_schema, entry.feature_schema_version) == (SCHEMA_NAME, SCHEMA_VERSION)
    assert entry.training["command"] == "python -m service train page_type"
    assert entry.training["data"] == "wcxb-dev"
    assert 0.5 < entry.validation["accuracy"] <= 1.0
    model = load_page_type_model(ModelStore(MODEL_STORE))
    assert model is not None
    assert set(model.classes) == set(PAGE_TYPES)
    assert paths["model"].stat().st_size < 1_000_000


def test_a_changed_artifact_is_refused(store_copy: ModelStore) -> None:
    path = store_copy.root / MODEL_NAME / "model.json"
    path.write_text(path.read_text().replace("[", "[ ", 1))
    with pytest.raises(ModelError, match="corrupt"):
        load_metadata_reader(store_copy)


def test_a_model_for_other_features_is_refused(store_copy: ModelStore) -> None:
    path = store_copy.root / MODEL_NAME / "model.json"
    record = json.loads(path.read_text())
    record["features"] = record["features"][:-1]
    entry = store_copy.entry(MODEL_NAME).to_json()
    store_copy.write(
        {k: v for k, v in entry.items() if k != "files"},
        {"model": (f"{MODEL_NAME}/model.json", json.dumps(record).encode())},
    )
    with pytest.raises(ModelError, match="feature list"):
        load_metadata_reader(store_copy)


def test_a_store_without_the_model_gives_no_page_type(tmp_path: Path) -> None:
    assert load_metadata_reader(ModelStore(tmp_path)).page_type is None
    assert MetadataReader().read(parse_html("<p>x</p>")).page_type is None


# Like the corpus's product pages, it shows the product (91 of 92 have an image) and says something about it.
PRODUCT = (
    '<html><head><meta property="og:type" content="product"><title>Blue Mug | Shop</title>'
    '<script type="application/ld+json">{"@type": "Product", "name": "Blue Mug", "offers": {"price": "12"}}</script>'
    '</head><body><h1>Blue Mug</h1><img src="/img/blue-mug.jpg" alt="Blue Mug"><p>$12.00</p>'
    "<button>Add to cart</button><p>In stock. Free shipping.</p>"
    "<p>A stoneware mug glazed in deep blue, thrown by hand in our studio. It holds 350 ml, keeps coffee warm"
    " and is safe in the dishwasher and the microwave. Each mug differs a little in colour and shape.</p>"
    "</body></html>"
)
FORUM = (
    "<html><head><title>Printer will not connect - Help Forum</title>"
    '<script type="application/ld+json">{"@type": "DiscussionForumPosting", "headline": "Printer will not connect",'
    ' "author": {"@type": "Person", "name": "tomk"}}</script></head><body><h1>Printer will not connect</h1>'
    + "".join(
        f"<div class=post><a class=username>user{i}</a><p>Reply {i}: try the driver again.</p></div>" for i in range(8)
    )
    + "</body></html>"
)


@pytest.mark.parametrize(
    ("html", "url", "expected"),
    [
        (PRODUCT, "https://shop.example.com/products/blue-mug", "product"),
        (FORUM, "https://forum.example.com/t/printer-will-not-connect/1234", "forum"),
    ],
)
def test_clear_pages_get_their_type(html: str, url: str, expected: str) -> None:
    reader = load_metadata_reader(ModelStore(MODEL_STORE))
    found = reader.read(parse_html(html), url)
    assert found.page_type == expected
    assert found.page_type_confidence is not None
    assert 1 / len(PAGE_TYPES) < found.page_type_confidence <= 1


def test_features_have_the_schema_length_and_are_finite() -> None:
    document = parse_html(PRODUCT)
    reader = MetadataReader()
    features = page_type_features(document, reader.read(document), {"product"}, "https://shop.example/p/kettle")
    assert features.shape == (N_FEATURES,)
    assert np.isfinite(features).all()


def test_without_a_url_the_urls_features_are_unknown_and_read_as_the_training_mean() -> None:
    document = parse_html(PRODUCT)  # no canonical link either
    features = page_type_features(document, MetadataReader().read(document), {"product"}, None)
    unknown = [i for i, name in enumerate(FEATURES) if name.startswith("url_")]
    assert np.isnan(features[unknown]).all() and np.isfinite(np.delete(features, unknown)).all()
    root = page_type_features(document, MetadataReader().read(document), {"product"}, "https://shop.example/")
    assert root[FEATURES.index("url_root")] == 1.0  # a root page is known to be one
    model = load_page_type_model(ModelStore(MODEL_STORE))
    assert model is not None
    row = model.row(features, set())
    assert np.array_equal(row[unknown], model.mean[unknown]) and np.isfinite(row).all()


@pytest.mark.parametrize(
    ("url", "groups"),
    [
        ("https://example.com/blog/why-we-moved", {"url_article"}),
        ("https://example.com/2024/05/17/a-slug", {"url_article"}),  # a year, a piece of its own
        ("https://example.com/weblog/p2024x", set()),  # words and years count only as whole pieces
        ("https://forum.example/t/kettles/123", {"url_forum"}),
        ("https://shop.example/products-sale.html", {"url_product"}),
        ("https://example.com/Docs/API_Reference", {"url_docs"}),  # read lower-cased, cut at "_" too
        ("https://example.com/about-us/careers", {"url_service"}),
    ],
)
def test_a_urls_words_say_the_kind_of_page_as_whole_pieces_of_its_path(url: str, groups: set[str]) -> None:
    document = parse_html(PRODUCT)
    features = page_type_features(document, MetadataReader().read(document), set(), url)
    words = [name for name in FEATURES if name.startswith("url_") and name not in URL_SHAPE]
    assert {name for name in words if features[FEATURES.index(name)] == 1.0} == groups


URL_SHAPE = {"url_depth", "url_root", "url_query", "url_number"}  # the URL features that are not its words


def test_a_pages_probabilities_are_the_softmax_of_the_row_the_trainer_fits() -> None:
    model = load_page_type_model(ModelStore(MODEL_STORE))
    assert model is not None
    document = parse_html(PRODUCT)
    features = page_type_features(document, MetadataReader().read(document), {"product"}, None)  # some unknown
    known = set(model.vocabulary[:: max(len(model.vocabulary) // 40, 1)])
    for words in (set(), {"s_add to cart", "never a vocabulary word"}, known):
        standardised = (model.row(features, words) - model.mean) / model.scale
        logits = model.coef @ standardised + model.intercept
        expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        np.testing.assert_allclose(model.probabilities(features, words), expected, rtol=0, atol=1e-12)


@pytest.mark.data
@pytest.mark.slow
def test_the_train_command_refits_the_shipped_model(data_dir: Path, tmp_path: Path) -> None:
    """The same settings, words and weights; the weights up to rounding, not byte for byte.

    The solver's last bits move with the library versions installed: on 2026-11-27 a fresh install
    rebuilt weights 3e-14 away from the shipped ones (the same bytes on every run there).
    """
    pytest.importorskip("sklearn")
    assert main(["train", "page_type", "--data", str(data_dir), "--out", str(tmp_path)]) == 0
    rebuilt_entry, _ = ModelStore(tmp_path).verified(MODEL_NAME)
    shipped_entry = ModelStore(MODEL_STORE).entry(MODEL_NAME)
    assert rebuilt_entry.validation == shipped_entry.validation  # the grid, and the setting it chose
    rebuilt, shipped = load_page_type_model(ModelStore(tmp_path)), load_page_type_model(ModelStore(MODEL_STORE))
    assert rebuilt is not None and shipped is not None
    assert (rebuilt.classes, rebuilt.vocabulary) == (shipped.classes, shipped.vocabulary)
    for name in ("mean", "scale", "coef", "intercept"):
        np.testing.assert_allclose(getattr(rebuilt, name), getattr(shipped, name), rtol=1e-9, atol=1e-9, err_msg=name)


def test_prose_features_tell_an_article_from_a_list_of_links() -> None:
    prose = "<p>" + "A sentence of the story that goes on for a while. " * 8 + "</p>"
    article = parse_html(f"<body><h1>Story</h1>{prose * 5}</body>")
    links = parse_html(
        "<body><ul>" + "".join(f"<li><a href=/{i}>Item {i}</a></li>" for i in range(40)) + "</ul></body>"
    )
    reader = MetadataReader()
    columns = {name: i for i, name in enumerate(FEATURES)}
    a = page_type_features(article, reader.read(article), set(), None)
    b = page_type_features(links, reader.read(links), set(), None)
    assert a[columns["p_share"]] > 0.9 and b[columns["p_share"]] == 0.0
    assert a[columns["log_long_paragraphs"]] == pytest.approx(np.log1p(5))
    assert a[columns["log_longest_paragraph"]] > b[columns["log_longest_paragraph"]]


def test_prose_side_by_side_is_an_article_and_prose_in_cards_or_links_is_not() -> None:
    prose = "A sentence of the story that goes on for a while, and then some more. " * 4
    body = parse_html(f"<body><div class=body>{f'<p>{prose}</p>' * 5}</div></body>")
    cards = parse_html("<body>" + f"<div class=card><h2>Item</h2><p>{prose}</p></div>" * 5 + "</body>")
    linked = parse_html(f"<body><div>{f'<p><a href=/x>{prose}</a></p>' * 5}</div></body>")
    column = FEATURES.index("log_prose_siblings")
    side_by_side = [page_type_features(d, MetadataReader().read(d), set(), None)[column] for d in (body, cards, linked)]
    assert side_by_side == pytest.approx([np.log1p(5), np.log1p(1), 0.0])


def test_the_short_blocks_are_words_whole_and_lower_cased_and_long_ones_are_not() -> None:
    story = "A sentence of the story that goes on for a while."
    document = parse_html(f"<body><p>{story}</p><button>Add to Cart</button><a href=/r>Reply »</a></body>")
    words = page_words(document, MetadataReader().read(document), set(), "https://shop.example/p/kettle")
    assert {"s_add to cart", "s_reply »", "u_p", "u_kettle"} <= words
    assert not any(story.lower() in word for word in words)
    many = parse_html("<body>" + "".join(f"<p>Label {i}</p>" for i in range(MAX_LABELS + 50)) + "</body>")
    labels = {w for w in page_words(many, MetadataReader().read(many), set(), None) if w.startswith("s_")}
    assert labels == {f"s_label {i}" for i in range(MAX_LABELS)}  # the first ones, in page order


def test_training_also_sees_each_page_without_its_declared_types() -> None:
    from service.training.page_type_data import Examples, augmented  # noqa: PLC0415 - the train side

    columns = {name: i for i, name in enumerate(FEATURES)}
    features = np.ones((2, N_FEATURES))
    examples = Examples(features, [{"ld_newsarticle", "og_article", "t_news"}, {"u_blog"}], np.array(["article"] * 2))
    both = augmented(examples)
    assert len(both.types) == 4 and both.words[:2] == examples.words
    assert both.words[2] == {"t_news"} and both.words[3] == {"u_blog"}
    assert both.features[2, columns["ld_article"]] == 0 and both.features[2, columns["og_article"]] == 0
    assert both.features[2, columns["p_share"]] == 1  # only what the page declares is taken away
    assert features[0, columns["ld_article"]] == 1  # the originals are untouched


def test_the_study_scores_the_regression_and_the_trees_on_pages_it_can_tell_apart() -> None:
    from service.training.page_type_data import Examples  # noqa: PLC0415 - the train side
    from service.training.page_type_study import FOLDS, SHARES, TREE_SETTINGS, cross_validated, learning_curve  # noqa: PLC0415

    rng = np.random.default_rng(0)
    kinds = ("article", "forum", "product")  # three, as the corpus has seven: a binary fit has one row of weights
    types = np.array(kinds * 30)
    features = rng.normal(size=(len(types), N_FEATURES))
    features[:, 0] += 8.0 * np.array([kinds.index(kind) for kind in types])  # one column tells them apart
    words = [{f"u_{kind}"} for kind in types]
    pages = Examples(features, words, types)
    lines = learning_curve(pages, pages, c=1.0, min_pages=2, seed=1)
    curve = [float(line.split("validation accuracy ")[1].split()[0]) for line in lines]
    assert len(curve) == len(SHARES) and min(curve) > 0.8 and curve[-1] == 1.0
    scores = cross_validated(pages, c=1.0, min_pages=2, seed=1)
    assert len(scores) == 1 + len(TREE_SETTINGS)
    assert all(len(folds) == FOLDS and min(folds) > 0.8 for folds in scores.values())


def test_a_corpus_of_two_page_types_gives_a_model_that_tells_them_apart() -> None:
    from service.training.page_type_data import Examples, accuracy, fit  # noqa: PLC0415 - the train side

    types = np.array(["article", "forum"] * 20)
    features = np.zeros((len(types), N_FEATURES))
    features[:, 0] = np.where(types == "forum", 1.0, -1.0)
    pages = Examples(features, [set() for _ in types], types)
    assert accuracy(fit(pages, c=1.0, min_pages=1, seed=1), pages) == 1.0
