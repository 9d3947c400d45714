"""The publication day: declared, shown, in a <time> of another time zone, in microdata, in the URL."""

from __future__ import annotations

import numpy as np
import pytest

from service.metadata.dates import day_readings, url_day
from service.metadata.fields import ARTICLE, PAGE_TYPES
from service.metadata.page_type import N_FEATURES, PageTypeModel
from service.metadata.published import HEAD_META, JSON_LD, DateClues, published_day
from service.metadata.reader import UNDATED_TYPES, MetadataReader
from service.metadata.visible import Visible
from service.parsing.lexbor import parse_html

from support.metadata_pages import BODY, metadata_of_page, page


def published(head: str = "", body: str = BODY, url: str = "https://example.com/guide") -> str | None:
    return metadata_of_page(head, body, url).date_published


def test_a_shown_update_gives_way_to_the_publication_the_head_meta_declares() -> None:
    head = '<meta property="article:published_time" content="2020-01-05T16:32:00-05:00">'
    head += '<meta property="article:modified_time" content="2025-06-02T02:29:20-04:00">'
    assert published(head, f"<p>Last updated on June 2, 2025</p>{BODY}") == "2020-01-05"
    # a shown day that is no update (a <time> under the headline) still wins over the declared one
    shown = f'<time datetime="2023-03-20T00:00:00-07:00">March 20, 2023</time>{BODY}'
    assert published(head, shown) == "2023-03-20"


def test_a_time_that_holds_the_declared_instant_in_another_zone_shows_the_declared_day() -> None:
    head = '<meta property="article:published_time" content="2025-07-05T00:04:00+00:00">'
    body = f'<time datetime="2025-07-04T20:04:00-04:00">July 4, 2025</time>{BODY}'
    assert published(head, body) == "2025-07-05"
    other_instant = f'<time datetime="2025-07-04T09:00:00-04:00">July 4, 2025</time>{BODY}'
    assert published(head, other_instant) == "2025-07-04"  # a day the page shows, not the same instant


def test_body_microdata_dates_a_forum_thread_by_its_first_post() -> None:
    post = '<article><meta itemprop="datePublished" content="{0}"><time datetime="{0}">{1}</time><p>Post</p></article>'
    body = (
        '<div><meta itemprop="dateModified" content="2024-09-26T01:50:27-04:00">'
        '<time datetime="2024-09-26T01:50:27-0400">Sep 26, 2024</time></div>'
        + post.format("2024-01-14T21:50:50-05:00", "Jan 15, 2024")  # shown in UTC
        + post.format("2024-01-15T08:05:52-05:00", "Jan 15, 2024")
    )
    assert published(body=body) == "2024-01-14"


def test_a_day_in_the_url_wins_over_a_time_zone_shift_only() -> None:
    head = '<meta property="article:published_time" content="2025-12-19T03:05:00+00:00">'
    assert published(head, url="https://example.com/2025/12/18/a-post") == "2025-12-18"
    assert published(head, url="https://example.com/2025/11/18/a-post") == "2025-12-19"  # too far: no shift


def test_published_day_rules_on_clues() -> None:
    seen = Visible("Title\nUpdated March 9, 2026\nText")
    update = DateClues("2024-06-11T11:06:04+00:00", HEAD_META, "2026-03-09")
    assert published_day(update, seen) == "2024-06-11"
    assert published_day(DateClues("2024-06-11", JSON_LD, "2026-03-09"), seen) == "2026-03-09"
    assert published_day(DateClues(), Visible("no date here")) is None
    assert published_day(DateClues(url="https://example.com/2021/02/03/x"), seen) == "2021-02-03"


def test_a_date_under_the_headline_wins_over_a_json_ld_publication_the_page_does_not_show() -> None:
    head = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2025-11-05"}</script>'
    body = "<h1>How much should I pay for cleaning?</h1><p>By Ann Lee</p><p>January 31, 2024</p>" + BODY
    assert published(head, body) == "2024-01-31"
    far = "<h1>How much should I pay for cleaning?</h1>" + BODY * 4 + "<p>Related: January 31, 2024</p>"
    assert published(head, far) == "2025-11-05"  # a date far below the headline is another story's


def test_a_numeric_date_shows_either_reading() -> None:
    assert day_readings("09.10.2024") == ("2024-10-09", "2024-09-10")
    assert day_readings("31.12.2024") == ("2024-12-31",)
    assert day_readings("March 1, 2024") == ("2024-03-01",)
    assert day_readings("no date") == ()
    assert day_readings(" 09.10.2024 ") == ("2024-10-09", "2024-09-10")  # white space around it changes nothing
    head = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2024-09-10"}</script>'
    body = "<h1>A guide to renovation</h1><p>By Block Renovation</p><p>09.10.2024</p>" + BODY
    assert published(head, body) == "2024-09-10"  # a US site's month first, not read as 9 October


def test_url_day_with_a_month_name() -> None:
    assert url_day("https://example.com/blog/2023/october/03/how-many-wines/") == "2023-10-03"
    assert url_day("https://example.com/blog/2023/Sept/3") == "2023-09-03"
    assert url_day("https://example.com/blog/2023/topics/03/") is None


def test_json_ld_with_raw_line_breaks_in_its_strings_is_read() -> None:
    head = '<script type="application/ld+json">{"@type": "DiscussionForumPosting", "articleBody": "One\nTwo",'
    head += ' "datePublished": "2024-02-21 13:00:00"}</script>'
    assert published(head) == "2024-02-21"


def test_an_earlier_day_shown_before_the_update_is_the_publication_where_none_is_declared() -> None:
    head = '<meta property="article:modified_time" content="2024-10-28T22:26:10+00:00">'
    body = f"<p>April 26, 2024</p><p>Updated on: October 28, 2024</p>{BODY}"
    assert published(head, body) == "2024-04-26"
    later = f"<p>Updated on: October 28, 2024</p><p>Comment of November 2, 2024</p>{BODY}"
    assert published(head, later) == "2024-10-28"


def test_microsoft_learn_ms_date_is_a_publication() -> None:
    head = '<meta name="ms.date" content="2025-03-06T00:00:00Z">'
    assert published(head, f"<p>Feedback from March 25, 2025</p>{BODY}") == "2025-03-06"


def test_without_a_declared_day_the_byline_date_wins_over_the_header_date() -> None:
    body = "<p>Friday, December 19, 2025</p><h1>Tax 101: Understanding the basics</h1>"
    body += "<p>By The Currency editors</p><p>12.12.2025</p>" + BODY
    assert published(body=body) == "2025-12-12"
    no_byline = "<p>Friday, December 19, 2025</p><h1>Tax 101</h1>" + BODY * 4 + "<p>Related: 12.12.2025</p>"
    assert published(body=no_byline) == "2025-12-19"  # nothing under the headline: the first date shown


def test_a_year_first_date_with_dots_or_slashes_is_read() -> None:
    assert day_readings("2025.12.17") == ("2025-12-17",)
    assert day_readings("2024/01/20") == ("2024-01-20",)
    body = "<h1>The Programming Language Death Spiral</h1><p>Essay - Published: 2025.12.17 |</p>" + BODY
    assert published(body=body) == "2025-12-17"
    assert day_readings("2025.12-17") == ()  # mixed separators: no date


def test_a_dashed_month_day_year_is_read_where_its_order_shows() -> None:
    assert day_readings("11-29-2024") == ("2024-11-29",)
    assert day_readings("29-11-2024") == ("2024-11-29",)
    assert day_readings("02-12-2025") == ()  # either order gives a day: none is taken
    body = "<h1>Thread: Which web host?</h1><p>11-29-2024, 09:03 AM</p>" + BODY
    assert published(body=body) == "2024-11-29"


def test_a_shown_update_gives_way_where_the_head_meta_declares_the_publication_beside_json_ld() -> None:
    ld = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2024-10-15T18:50:03+00:00",'
    ld += ' "dateModified": "2025-06-18T16:35:02+00:00"}</script>'
    shown = f"<h1>I tried Amp</h1><p>By Mirel Zaman</p><p>Updated on June 18, 2025</p>{BODY}"
    assert published(ld, shown) == "2025-06-18"  # JSON-LD alone: the update the page shows
    head = '<meta property="article:published_time" content="2024-10-15T18:50:03.000Z">'
    assert published(ld + head, shown) == "2024-10-15"


def test_a_json_ld_day_a_time_holds_wins_over_a_date_under_the_headline() -> None:
    head = '<script type="application/ld+json">{"@type": "DiscussionForumPosting",'
    head += ' "datePublished": "2025-03-01 16:35:52"}</script>'
    post = "<h1>Higher Logic has terminated open source Vanilla</h1><p>Linc</p>"
    post += "<p>On 2 Dec 2024, I received a notice</p>" + BODY
    assert published(head, post) == "2024-12-02"  # nothing holds the declared day: the date under the headline
    timed = post.replace("<p>Linc</p>", '<p>Linc</p><time datetime="2025-03-01T16:35:52+00:00">March 2025</time>')
    assert published(head, timed) == "2025-03-01"


def test_a_time_that_says_updated_gives_way_to_the_declared_publication() -> None:
    head = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2025-12-01"}</script>'
    head += '<meta property="article:published_time" content="2022-05-26T15:20:28+00:00">'
    body = '<h1>10 Best Movers</h1><time datetime="2025-12-17">{}</time>' + BODY
    assert published(head, body.format("Last Updated: Dec 17, 2025")) == "2025-12-01"
    assert published(head, body.format("Dec 17, 2025")) == "2025-12-17"  # a day shown with no word of an update


def test_where_the_head_meta_names_disagree_the_earliest_publication_is_taken() -> None:
    head = '<meta name="published-time" content="2026-03-09T08:45:32.183Z">'
    head += '<meta name="published-date" content="2021-02-16">'
    assert published(head) == "2021-02-16"
    same_day = '<meta property="article:published_time" content="2021-02-16T10:00:00+01:00">'
    assert published(same_day + '<meta name="publish-date" content="2021-02-17">') == "2021-02-16"


def test_of_the_known_days_shown_the_one_under_the_headline_wins() -> None:
    menu = '<ul><li>CAS Careers Month <time datetime="2025-01-31T12:00:00Z">01/31/2025</time></li></ul>'
    story = '<h1>Candidate Experience</h1><time datetime="2017-03-01T12:00:00Z">03/01/2017</time>' + BODY
    assert published(body=menu + story) == "2017-03-01"
    far = "<h1>Candidate Experience</h1>" + BODY * 4 + '<time datetime="2017-03-01T12:00:00Z">03/01/2017</time>'
    assert published(body=menu + far) == "2025-01-31"  # nothing under the headline: the first shown


def test_a_date_in_a_url_the_text_quotes_is_not_a_shown_date() -> None:
    assert Visible("See http://www.macrumors.com/2012/07/23/apple-to-shrink for more").days == ()
    assert Visible("http://example.com/posts/2010-04-01/launch").days == ()
    assert Visible("Last modified: 2024/01/20 04:32").days == ("2024-01-20",)


def test_a_shown_iso_timestamp_is_a_shown_date() -> None:
    # a byline that prints the timestamp itself ("2022-11-23T08:10+02:00"): "T" follows the day, no word boundary
    assert Visible("Nick van Mead\n2022-11-23T08:10+02:00").days == ("2022-11-23",)
    assert Visible("Build 2022-11-23Tx").days == ()  # a "T" that starts no time is no timestamp


def test_a_declared_time_without_a_zone_gives_way_to_the_page_s_first_day_a_day_away() -> None:
    # a forum's JSON-LD in the server's clock ("2026-02-15 03:05:48") under a thread that shows Feb 14
    seen = Visible("Scenic sights\nFeb 14, 2026 | 9:05 pm\nFeb 15, 2026 | 8:00 am")
    assert published_day(DateClues("2026-02-15 03:05:48", JSON_LD), seen) == "2026-02-14"
    timed = DateClues("2024-05-27T07:11:40", JSON_LD, times=(("2024-05-28T10:24:43", "2 years ago"),))
    assert published_day(timed, Visible("no date here")) == "2024-05-28"  # the first <time>'s day
    assert published_day(DateClues("2026-02-15T03:05:48+00:00", JSON_LD), seen) == "2026-02-15"  # a zone: kept
    assert published_day(DateClues("2026-02-17 03:05:48", JSON_LD), seen) == "2026-02-17"  # no day away: kept


def typed_as(page_type: str, article_logit: float = 0.0) -> MetadataReader:
    """A reader whose page-type model says ``page_type`` of every page (only its intercepts differ).

    ``article_logit``: the article's intercept (the others but ``page_type``'s are 0, its 5), which sets
    how likely the model finds it that the page is an article after all.
    """
    intercepts = {name: 5.0 if name == page_type else article_logit if name == ARTICLE else 0.0 for name in PAGE_TYPES}
    model = PageTypeModel(
        classes=PAGE_TYPES,
        vocabulary=(),
        mean=np.zeros(N_FEATURES),
        scale=np.ones(N_FEATURES),
        coef=np.zeros((len(PAGE_TYPES), N_FEATURES)),
        intercept=np.array([intercepts[name] for name in PAGE_TYPES]),
    )
    return MetadataReader(model)


# A shop's page: the only date and name it shows are a customer review's.
REVIEWED = f"<h1>Trail Runner 3</h1><p>By Jane Roe</p><p>Reviewed on March 3, 2024.</p>{BODY}"


@pytest.mark.parametrize("page_type", sorted(UNDATED_TYPES))
def test_a_page_that_is_no_published_item_takes_no_date_or_author_from_its_text(page_type: str) -> None:
    as_article = typed_as(ARTICLE).read(parse_html(page(body=REVIEWED)))
    assert (as_article.date_published, as_article.author) == ("2024-03-03", ("Jane Roe",))
    metadata = typed_as(page_type).read(parse_html(page(body=REVIEWED)))
    assert metadata.page_type == page_type
    assert (metadata.date_published, metadata.author) == (None, ())


@pytest.mark.parametrize(
    "head",
    [
        '<meta property="article:published_time" content="2024-03-03T10:00:00+00:00">'
        '<meta name="author" content="Ada Lovelace">',
        '<script type="application/ld+json">{"@type": "WebPage", "datePublished": "2024-03-03",'
        ' "author": {"@type": "Person", "name": "Ada Lovelace"}}</script>',
    ],
)
def test_such_a_page_keeps_the_publication_and_author_it_declares(head: str) -> None:
    metadata = typed_as("listing").read(parse_html(page(head, REVIEWED)))
    assert (metadata.date_published, metadata.author) == ("2024-03-03", ("Ada Lovelace",))


def test_a_listing_that_may_be_an_article_keeps_what_its_text_shows() -> None:
    """A 2012 blog post the model takes for a listing, with some doubt: its byline and date stay."""
    metadata = typed_as("listing", article_logit=3.0).read(parse_html(page(body=REVIEWED)))
    assert metadata.page_type == "listing"
    assert metadata.page_type_confidence is not None and metadata.page_type_confidence < 0.9
    assert (metadata.date_published, metadata.author) == ("2024-03-03", ("Jane Roe",))


def test_a_day_the_text_labels_published_wins_over_the_declared_update_it_shows() -> None:
    head = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2025-08-21"}</script>'
    body = "<h1>Top electrical companies</h1><p>By Claire Wilson</p><p>Published</p><p>Apr 26, 2023</p>"
    body += f"<p>Updated</p><p>Aug 21, 2025</p>{BODY}"
    assert published(head, body) == "2023-04-26"
    # a "Last published" is a feed's latest post, not this page's publication
    assert published(head, body.replace("<p>Published</p>", "<p>Last published</p>")) == "2025-08-21"


def test_a_published_label_far_from_the_headline_counts_only_as_originally_published() -> None:
    filler = "<p>" + "Words of the article go on here. " * 12 + "</p>"
    body = f"<h1>Pros and cons</h1><p>September 30, 2022</p>{filler}"
    assert published(body=body + "<p>Published on: 12 March 2025</p>" + BODY) == "2022-09-30"
    originally = body + "<p>This article was originally published on 26 Sep 2019 and updated since</p>" + BODY
    assert published(body=originally) == "2019-09-26"


def test_labelled_published_reads_the_date_right_after_its_label() -> None:
    seen = Visible("Headline\nBy Jane\nPublished: 03 Dec 2025\nText")
    assert seen.labelled_published("Headline") == "2025-12-03"
    assert Visible("Headline\nPublished in The Weekly\nText 2025").labelled_published("Headline") is None
    assert Visible("Headline\nText").labelled_published("") is None
