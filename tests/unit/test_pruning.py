"""Page-guarded pruning: comment threads and link lists go where they are a minority of the kept text."""

from __future__ import annotations

import numpy as np
import pytest

from service.backends.base import BlockLabels
from service.backends.coherence import cut_paragraphs
from service.backends.pruning import ARTICLE_BESIDE_CHARS, prune_boilerplate
from service.backends.registry import BackendRegistry
from service.features.structure import REGION_BITS, leaf_regions, review_blocks
from service.metadata.reader import MetadataReader, load_metadata_reader
from service.models.store import ModelStore
from service.parsing.document import Document
from service.parsing.lexbor import parse_html
from service.pipeline import Extractor
from service.settings import Settings

from support.backends import KeepAllBackend
from support.pruned import COMMENT_ITEMS, COMMENTS, LONG_STORY

LINK_ITEMS = "".join(f'<li><a href="/{i}">Other headline {i}</a></li>' for i in range(6))
LINKS = f'<div class="more"><ul>{LINK_ITEMS}</ul></div>'


def shipped_metadata() -> MetadataReader:
    return load_metadata_reader(ModelStore(Settings().model_store_dir))


def everything_kept(document: Document) -> BlockLabels:
    return BlockLabels(scores=np.full(len(document), 0.9, np.float32), labels=np.ones(len(document), bool))


def keep_all_registry() -> BackendRegistry:
    registry = BackendRegistry()
    registry.register("keep_all", KeepAllBackend)
    return registry


def kept_text(
    html: str,
    *,
    include_comments: bool | None = None,
    page_type: str | None = None,
    article_probability: float | None = None,
) -> str:
    document = parse_html(html)
    labels = prune_boilerplate(
        document,
        everything_kept(document),
        include_comments=include_comments,
        page_type=page_type,
        article_probability=article_probability,
    )
    assert cut_paragraphs(document, labels.labels) == 0
    return " ".join(t for t, keep in zip(document.texts, labels.labels.tolist(), strict=True) if keep)


def test_an_article_loses_its_comment_thread_and_its_link_list() -> None:
    text = kept_text(f"<article>{LONG_STORY}{LINKS}{COMMENTS}</article>")
    assert "Sentence 79" in text
    assert "Reader" not in text
    assert "Other headline" not in text


def test_the_caller_owns_the_comments_when_it_says_so() -> None:
    assert "Reader 3 thinks so." in kept_text(f"<article>{LONG_STORY}{COMMENTS}</article>", include_comments=True)
    short = "<p>" + "A short note. " * 20 + "</p>"
    assert "Reader" not in kept_text(f"<article>{short}{COMMENTS}</article>", include_comments=False)


def test_a_comment_word_on_the_page_frame_marks_no_thread() -> None:
    page = f'<body class="single has-comments"><article>{LONG_STORY}</article></body>'
    text = kept_text(page, include_comments=False)
    assert "Sentence 79" in text


def test_a_short_article_keeps_its_comments() -> None:
    short = "<p>" + "A short note. " * 20 + "</p>"
    text = kept_text(f"<article>{short}{COMMENTS}</article>")
    assert "Reader 3 thinks so." in text


def test_a_short_article_loses_its_thread_where_the_page_type_says_it_is_no_forum() -> None:
    short = "<p>" + "A short note on the news. " * 20 + "</p>"  # 520 characters beside the thread
    assert "Reader" not in kept_text(f"<article>{short}{COMMENTS}</article>", page_type="article")
    assert "Reader 3 thinks so." in kept_text(f"<article>{short}{COMMENTS}</article>", page_type="forum")
    tiny = "<p>Thanks!</p>"  # too little beside the thread to make it an article's, whatever the type
    assert "Reader 3 thinks so." in kept_text(f"<article>{tiny}{COMMENTS}</article>", page_type="article")


POST = "<p>A photo from the show, and a few words about it, as short posts have them.</p>"
REPLY = "yes, lovely, so true, thanks, more of these please."
REPLIES = "".join(f"<div><p>Reader {i}: {REPLY}</p></div>" for i in range(8))
BLOG_POST = f'<div class="entry-content">{POST}</div><div id="comments">{REPLIES}</div>'


def thread_only_kept(html: str, **options: object) -> str:
    """What pruning keeps of ``html`` where the backend kept its comment thread alone."""
    document = parse_html(html)
    thread = np.array(["Reader" in text for text in document.texts])
    labels = BlockLabels(scores=np.where(thread, 0.9, 0.1).astype(np.float32), labels=thread)
    pruned = prune_boilerplate(document, labels, **options)  # type: ignore[arg-type]
    assert cut_paragraphs(document, pruned.labels) == 0
    assert labels.labels.tolist() == thread.tolist()  # the backend's labels are left as they were
    return " ".join(t for t, keep in zip(document.texts, pruned.labels.tolist(), strict=True) if keep)


def test_an_articles_thread_kept_alone_gives_way_to_the_post_readability_finds() -> None:
    for page_type in ("article", "listing"):  # a 2012 blog post's sidebars can make it look like a listing
        text = thread_only_kept(BLOG_POST, page_type=page_type)
        assert text == "A photo from the show, and a few words about it, as short posts have them."
    assert "A photo from the show" in thread_only_kept(BLOG_POST, page_type="article", include_comments=False)
    everything = kept_text(BLOG_POST, page_type="article")  # the short post kept too: the thread goes all the same
    assert "A photo from the show" in everything and "Reader" not in everything


def test_the_thread_stays_where_the_caller_keeps_comments_or_the_page_may_be_a_forum() -> None:
    for options in ({"page_type": "article", "include_comments": True}, {"page_type": "forum"}, {}):
        text = thread_only_kept(BLOG_POST, **options)
        assert "Reader 7" in text and "A photo" not in text
    nothing_else = f'<div id="comments">{REPLIES}</div>'  # no body outside the thread: it stays
    assert "Reader 7" in thread_only_kept(nothing_else, page_type="article")


def test_the_pipeline_guards_comments_with_its_page_type_model() -> None:
    short = "<p>" + "A short note on the news. " * 20 + "</p>"
    ld = '{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "News", "datePublished": "2026-03-12"}'
    head = '<title>News</title><meta property="og:type" content="article">'
    head += f'<script type="application/ld+json">{ld}</script>'
    page = f"<html><head>{head}</head><body><article><h1>News</h1>{short}{COMMENTS}</article></body></html>"
    extractor = Extractor(keep_all_registry(), default_backend="keep_all", metadata=shipped_metadata())
    extraction = extractor.extract(page, url="https://news.example/2026/03/12/news")
    assert extraction.metadata.page_type == "article"
    assert "A short note on the news." in extraction.text and "Reader" not in extraction.text
    without_model = Extractor(keep_all_registry(), default_backend="keep_all").extract(page)
    assert "Reader 3 thinks so." in without_model.text  # no page type: only the length of the text beside counts


def test_a_page_made_of_comments_keeps_them() -> None:
    thread = '<div class="comment-list">' + "".join(f"<p>Post {i}: " + "a long reply " * 20 + "</p>" for i in range(5))
    text = kept_text(f"<h1>Thread</h1>{thread}</div>")
    assert "Post 4:" in text


def test_a_page_made_of_links_keeps_them() -> None:
    listing = "<ul>" + "".join(f'<li><a href="/{i}">Headline number {i} of the day</a></li>' for i in range(30))
    text = kept_text(f"<main><h1>Latest</h1>{listing}</ul></main>")
    assert "Headline number 29 of the day" in text


def test_sidebars_navigation_and_hidden_blocks_go_where_they_are_a_minority() -> None:
    aside = "<aside><p>About the author of this blog.</p></aside>"
    hidden = '<div style="display:none"><span>2019-11-13T23:06:00+01:00</span></div>'
    nav = '<div class="navbar"><p>Sections: World, Business</p></div>'
    text = kept_text(f"{nav}<article>{LONG_STORY}</article>{aside}{hidden}")
    assert "Sentence 79" in text
    assert "About the author" not in text
    assert "2019-11-13" not in text
    assert "Sections" not in text


# Beside an article: a sidebar and a teaser list each larger than the share rules spare.
BIG_SIDEBAR = (
    "<aside>" + "".join(f"<p>Popular post {i}, summed up in a line or two.</p>" for i in range(60)) + "</aside>"
)
TEASERS = '<div class="more"><ul>' + "".join(f'<li><a href="/{i}">Other headline {i}</a></li>' for i in range(150))
SHORT_NOTE = "<p>" + "A short note on the news. " * 30 + "</p>"  # 780 characters: less than enough beside


def test_beside_an_article_its_sidebar_and_teasers_go_whatever_their_share() -> None:
    for furniture, word in ((BIG_SIDEBAR, "Popular post"), (TEASERS + "</ul></div>", "Other headline")):
        html = f"<article>{LONG_STORY}</article>{furniture}"
        assert word in kept_text(html)  # more than the share rules' limits of the kept text
        assert word not in kept_text(html, page_type="article")
        assert word in kept_text(html, page_type="listing")
        short = kept_text(f"<article>{SHORT_NOTE}</article>{furniture}", page_type="article")
        assert word in short and "A short note" in short  # too little beside it to call it furniture
    assert len(SHORT_NOTE) - len("<p></p>") < ARTICLE_BESIDE_CHARS < len(LONG_STORY)


def test_link_lists_outside_readabilitys_body_go_where_more_of_the_body_is_kept() -> None:
    teasers = TEASERS + "</ul></div>"
    html = f"<article>{LONG_STORY}</article>{teasers}"
    for typed in ("article", "listing", "collection", "forum", "documentation", "service", "product"):
        text = kept_text(html, page_type=typed, article_probability=0.03)
        assert "Other headline" not in text and "Sentence 79" in text
    assert "Other headline 149" in kept_text(html, page_type="listing", article_probability=0.02)  # sure it is none
    assert "Other headline 149" in kept_text(html, page_type="listing")  # no page-type model: the share rule alone
    short = kept_text(f"<article>{SHORT_NOTE}</article>{teasers}", page_type="listing", article_probability=0.5)
    assert "Other headline 149" in short  # the lists outweigh what is kept of the body: they are the page
    few = kept_text(f"<article><p>A line.</p></article>{teasers}", page_type="listing", article_probability=0.5)
    assert "Other headline 149" in few
    comments = kept_text(
        f'<article>{LONG_STORY}</article><div id="comments">{teasers}</div>',
        page_type="listing",
        article_probability=0.5,
        include_comments=True,
    )
    assert "Other headline 149" in comments  # the caller's comments stay theirs


BLOG_WIDGETS = (
    '<div id="sidebar-right-1" class="sidebar section">'
    + "".join(
        f'<div class="widget"><p>About me, part {i}: I write about the things I love.</p></div>' for i in range(60)
    )
    + "</div>"
)


def test_an_articles_sidebars_kept_as_most_of_it_give_way_to_the_post_readability_finds() -> None:
    html = f'<div class="post"><h3>Glacier</h3>{SHORT_NOTE}</div>{BLOG_WIDGETS}'
    # listings and collections too: what short articles framed by lists of headlines are taken for
    for typed in ("article", "listing", "collection"):
        text = kept_text(html, page_type=typed)
        assert "A short note on the news." in text and "About me" not in text
    for typed in ("documentation", "forum", None):  # a docs layout's "sidebar" can hold its content; a forum's
        assert "About me, part 59" in kept_text(html, page_type=typed)
    beside_enough = kept_text(f'<div class="post">{LONG_STORY}</div>{BLOG_WIDGETS}', page_type="article")
    assert "Sentence 79" in beside_enough and "About me" not in beside_enough  # the rule beside an article
    beside_a_listing = kept_text(f'<div class="post">{LONG_STORY}</div>{BLOG_WIDGETS}', page_type="listing")
    assert "About me, part 59" in beside_a_listing  # the rule beside an article holds on articles only
    sidebar_alone = kept_text(BLOG_WIDGETS, page_type="article")  # no body outside the sidebars: they stay
    assert "About me, part 59" in sidebar_alone
    with_thread = f'<div class="post">{SHORT_NOTE}<div id="comments">{COMMENT_ITEMS}</div></div>{BLOG_WIDGETS}'
    text = kept_text(with_thread, page_type="article")  # the body holds the thread: it does not come back
    assert "A short note on the news." in text and "Reader" not in text and "About me" not in text
    assert "Reader 3 thinks so." in kept_text(with_thread, page_type="article", include_comments=True)


MEGA_MENU = (
    '<nav><ul><li class="menu-item"><a href="/about">Our author: '
    + "she has written for many papers and won prizes for her long reporting. " * 12
    + '</a></li><li><a href="/news">News</a></li></ul></nav>'
)  # about 900 characters of link text in the menu: more than the short note, over the furniture share


def test_an_articles_linked_menu_text_goes_however_long_where_its_own_text_is_kept() -> None:
    html = f"{MEGA_MENU}<article>{SHORT_NOTE}</article>"
    assert "Our author" in kept_text(html)  # untyped: the menu is over the furniture share, so it stays
    text = kept_text(html, page_type="article")
    assert "Our author" not in text and "A short note on the news." in text
    assert "Our author" in kept_text(html, page_type="listing")  # a listing's menu may be its content
    alone = kept_text(f"{MEGA_MENU}<article><p>Too short.</p></article>", page_type="article")
    assert "Our author" in alone  # next to nothing beside it: the menu may be all the page has
    unlinked = MEGA_MENU.replace('<a href="/about">', "").replace("</a></li><li>", "</li><li>")
    assert "Our author" in kept_text(f"{unlinked}<article>{SHORT_NOTE}</article>", page_type="article")


def test_a_product_card_in_an_article_is_not_a_sidebar() -> None:
    cards = "".join(
        f'<div class="c-product-widget"><p>Model {i} is the pick for most kitchens.</p></div>' for i in range(100)
    )  # more than the furniture share: the aside region's share rule spares them
    assert "Model 99 is the pick" in kept_text(f"<article>{LONG_STORY}{cards}</article>", page_type="article")


DESCRIPTION = "<p>" + "A light day pack with a padded back panel and two side pockets. " * 6 + "</p>"
REVIEW = "I took it up three peaks this summer and it held up well, straps and all."
CUSTOMER_REVIEWS = (
    '<div class="product-reviews">'
    + "".join(f"<div><h4>Great pack {i}</h4><p>{REVIEW}</p></div>" for i in range(12))
    + "</div>"
)  # about 1,000 characters of reviews
PRESS_QUOTES = '<div id="game_area_reviews"><p>"A modern masterpiece." - Some Magazine</p></div>'


def test_a_products_customer_reviews_go_as_an_articles_comments_do() -> None:
    html = f"<main><h1>Day pack</h1>{DESCRIPTION}{CUSTOMER_REVIEWS}</main>"
    text = kept_text(html, page_type="product")
    assert "A light day pack" in text and "Great pack" not in text
    assert "Great pack 11" in kept_text(html, page_type="product", include_comments=True)  # the caller's to keep
    for typed in ("article", "service", None):  # a review article's body is no product's thread
        assert "Great pack 11" in kept_text(html, page_type=typed)
    quotes = f"<main><h1>Dota 2</h1>{DESCRIPTION}{PRESS_QUOTES}</main>"
    assert "A modern masterpiece" in kept_text(quotes, page_type="product")  # a few quotes are no thread
    assert "A modern masterpiece" not in kept_text(quotes, page_type="product", include_comments=False)
    alone = kept_text(f"<main><h1>Day pack</h1>{CUSTOMER_REVIEWS}</main>", page_type="product")
    assert "Great pack 11" in alone  # nothing beside them: the reviews are all there is


def test_a_review_body_or_a_word_on_the_frame_is_no_reviews_container() -> None:
    single = f'<article class="review-body">{DESCRIPTION}{DESCRIPTION}{DESCRIPTION}</article>'
    assert not review_blocks(parse_html(f"<main>{single}</main>")).any()
    framed = parse_html(f'<body class="reviews-page"><main>{DESCRIPTION}</main></body>')
    assert not review_blocks(framed).any()
    assert review_blocks(parse_html(f"<main>{DESCRIPTION}{CUSTOMER_REVIEWS}</main>")).sum() == 24


# Consent banners as the managers write them (OneTrust's, Cookiebot's, a theme's own), after an article.
CONSENT_BANNERS = (
    '<div id="onetrust-consent-sdk"><div class="ot-pc-desc"><p>We process your data to deliver content.</p></div>'
    '<h3 class="ot-category-title">Manage Consent Preferences</h3></div>'
    '<div id="CybotCookiebotDialog"><p>This website uses cookies to improve your experience.</p></div>'
    '<div class="cookie-notice__message"><p>By using this site you agree to our policy.</p></div>'
)


@pytest.mark.parametrize("page_type", ["article", "listing", "product", None])
def test_cookie_and_consent_banners_go_where_they_are_a_minority(page_type: str | None) -> None:
    text = kept_text(f"<main><h1>Story</h1>{LONG_STORY}</main>{CONSENT_BANNERS}", page_type=page_type)
    assert "Sentence 79" in text
    for banner in ("We process your data", "Manage Consent", "uses cookies", "agree to our policy"):
        assert banner not in text


def in_consent_banner(html: str) -> np.ndarray:
    return (leaf_regions(parse_html(html)) & REGION_BITS["consent"]) != 0


def test_a_cookie_policy_page_keeps_its_policy_and_other_names_are_no_banner() -> None:
    policy = '<div class="cookie-policy">' + "<p>We set these cookies for the reasons below. </p>" * 40 + "</div>"
    assert "reasons below" in kept_text(f"<main><h1>Cookie policy</h1>{policy}</main>")  # the page's content
    recipe = '<div class="recipe-card fortunecookie"><p>Chocolate chip cookies, baked in ten minutes.</p></div>'
    components = f'<div class="cmp-teaser" id="functools.cmp_to_key">{LONG_STORY}</div>'  # Adobe's, Python's docs
    for names in (recipe, f'<body class="gdpr-ready">{LONG_STORY}</body>', components):
        assert not in_consent_banner(names).any()  # a word inside another, the page's frame, no consent word
    assert in_consent_banner(f"<main>{LONG_STORY}</main>{CONSENT_BANNERS}").sum() == 4


def test_a_layout_class_around_the_whole_page_is_not_furniture() -> None:
    text = kept_text(f'<div class="has-sidebar"><article>{LONG_STORY}</article></div>')
    assert "Sentence 79" in text


def test_no_backend_cuts_a_paragraph_that_pruning_touched_inside() -> None:
    page = f"<article>{LONG_STORY}<p>Press <button>Play</button> to hear the <span hidden>x</span> story.</p></article>"
    extraction = Extractor(keep_all_registry(), default_backend="keep_all").extract(page)
    assert cut_paragraphs(extraction.document, extraction.labels.labels) == 0
    assert "Press Play to hear the" in extraction.text


def test_only_labels_change_and_nothing_kept_stays_nothing() -> None:
    document = parse_html(f"<article>{LONG_STORY}{LINKS}</article>")
    before = everything_kept(document)
    after = prune_boilerplate(document, before)
    assert after.scores is before.scores
    assert after.labels.sum() < before.labels.sum()
    nothing = BlockLabels(scores=before.scores, labels=np.zeros(len(document), bool))
    assert prune_boilerplate(document, nothing).labels.sum() == 0


def test_a_short_linked_post_beside_a_long_thread_is_not_taken_for_a_link_list() -> None:
    # a photo post whose paragraph is mostly links, under a thread ten times its size: once the thread
    # goes, the post is the page, not a link list that is a minority of what the backend kept
    linked = " ".join(f"Here is <a href='/{i}'>sample image {i} taken with the new lens at f/4</a>." for i in range(8))
    thread = "".join(f"<div><p>Reader {i} has a long opinion on this lens, " + "and says so. " * 20 + "</p></div>"
                     for i in range(12))  # fmt: skip
    page = f'<article><div class="entry"><p>{linked}</p></div><section id="comments">{thread}</section></article>'
    text = kept_text(page, page_type="article")
    assert "sample image 7 taken" in text
    assert "Reader" not in text
