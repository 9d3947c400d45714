"""Metadata from each source on hand-made pages: JSON-LD (@graph), OpenGraph, <meta>, microdata, <time>, lang, URLs."""

from __future__ import annotations

import html
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.metadata.dates import iso_day, url_day
from service.metadata.extract import extract_metadata
from service.metadata.fields import Metadata
from service.metadata.jsonld import parse_json_ld
from service.metadata.mojibake import repair_mojibake
from service.metadata.titles import strip_site
from service.metadata.visible import Visible
from service.parsing.lexbor import parse_html

from support.metadata_pages import BODY, page


def metadata_of(html: str, url: str | None = "https://example.com/news/story") -> Metadata:
    return extract_metadata(parse_html(html), url)


def json_ld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_json_ld_graph_with_references_gives_article_fields() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "@id": "#site", "name": "Example Times"},
            {"@type": "Person", "@id": "#jane", "name": "Jane Roe"},
            {
                "@type": "NewsArticle",
                "headline": "Rivers Rise Again",
                "author": {"@id": "#jane"},
                "datePublished": "2025-03-04T10:00:00+01:00",
                "dateModified": "2025-03-05",
                "image": {"@type": "ImageObject", "url": "/img/river.jpg"},
                "keywords": ["rivers", "weather"],
                "inLanguage": "en-GB",
            },
        ],
    }
    found = metadata_of(page(json_ld(graph), body="<h1>Rivers Rise Again</h1><p>By Jane Roe</p>" + BODY))
    assert found.title == "Rivers Rise Again"
    assert found.author == ("Jane Roe",)
    assert found.date_published == "2025-03-04"
    assert found.date_modified == "2025-03-05"
    assert found.site_name == "Example Times"
    assert found.image == "https://example.com/img/river.jpg"
    assert found.tags == ("rivers", "weather")
    assert found.language == "en-GB"


def test_json_ld_organization_author_gives_way_to_the_byline_the_page_shows() -> None:
    article = {"@type": "BlogPosting", "author": {"@type": "Organization", "name": "Acme Inc"}}
    found = metadata_of(page(json_ld(article), body="<p>Written by Sam Poe</p>" + BODY))
    assert found.author == ("Sam Poe",)


def test_broken_json_ld_is_passed_over() -> None:
    head = '<script type="application/ld+json">{"@type": "Article", oops</script>' + json_ld(
        {"@type": "Article", "headline": "Still Here"}
    )
    assert len(parse_json_ld([head]).nodes) == 0
    assert metadata_of(page(head)).title == "Still Here"


def test_opengraph_and_twitter_cards() -> None:
    head = (
        '<meta property="og:title" content="A Walk in the Hills | Hill Blog">'
        '<meta property="og:site_name" content="Hill Blog">'
        '<meta property="og:description" content="Where we walked.">'
        '<meta property="og:image" content="https://cdn.example.com/hills.jpg">'
        '<meta property="og:url" content="https://example.com/walk">'
        '<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="Ann Lee">'
    )
    found = metadata_of(page(head))
    assert found.title == "A Walk in the Hills"  # the site's name cut off
    assert found.site_name == "Hill Blog"
    assert found.description == "Where we walked."
    assert found.image == "https://cdn.example.com/hills.jpg"
    assert found.canonical_url == "https://example.com/walk"
    assert found.author == ("Ann Lee",)


def test_named_meta_tags_citation_and_dublin_core() -> None:
    head = (
        '<meta name="citation_title" content="On Rivers">'
        '<meta name="citation_author" content="Ada Byron">'
        '<meta name="citation_publication_date" content="2019/06/01">'
        '<meta name="DC.language" content="fr_CA">'
        '<link rel="canonical" href="/papers/rivers">'
    )
    found = metadata_of(page(head), url="https://journal.example.org/x?y=1")
    assert found.title == "On Rivers"
    assert found.author == ("Ada Byron",)
    assert found.date_published == "2019-06-01"
    assert found.language == "fr-CA"
    assert found.canonical_url == "https://journal.example.org/papers/rivers"


def test_article_published_time_and_keywords_meta() -> None:
    head = (
        '<meta property="article:published_time" content="2024-11-30T23:10:00Z">'
        '<meta name="author" content="Bo Chen"><meta name="keywords" content="tea, china , ,history">'
    )
    found = metadata_of(page(head))
    assert (found.date_published, found.author, found.tags) == ("2024-11-30", ("Bo Chen",), ("tea", "china", "history"))


def test_microdata_author_and_date() -> None:
    body = (
        '<article itemscope itemtype="https://schema.org/Article">'
        '<span itemprop="author">Kim Park</span><time itemprop="datePublished" datetime="2023-02-01">1 Feb</time>'
        f"{BODY}</article>"
    )
    found = metadata_of(page(body=body))
    assert found.author == ("Kim Park",)
    assert found.date_published == "2023-02-01"


def test_time_element_dates_the_page() -> None:
    found = metadata_of(page(body=f'<time datetime="2022-08-09T08:00">9 Aug</time>{BODY}'))
    assert found.date_published == "2022-08-09"


def test_visible_date_wins_where_structured_data_names_it_too() -> None:
    head = json_ld({"@type": "Article", "datePublished": "2020-01-01", "dateModified": "2025-08-14T10:00:00Z"})
    found = metadata_of(page(head, body=f"<p>Updated August 14, 2025</p>{BODY}"))
    assert found.date_published == "2025-08-14"  # shown; the first publication is not
    assert found.date_modified == "2025-08-14"
    shown = metadata_of(page(head, body=f"<p>January 1, 2020</p><p>Updated August 14, 2025</p>{BODY}"))
    assert shown.date_published == "2020-01-01"  # the publication day, where the page shows it


def test_html_lang_is_a_bcp47_tag() -> None:
    assert metadata_of(page(lang="pt_br")).language == "pt-BR"
    assert metadata_of(page(lang="de")).language == "de"
    assert metadata_of(page(lang="ZH-hans-cn")).language == "zh-Hans-CN"  # script title case, region upper
    assert metadata_of(page(lang="es-419")).language == "es-419"  # a numeric region
    assert metadata_of(page(lang="de-DE-1996")).language == "de-DE-1996"
    assert metadata_of(page(lang="not a tag!")).language is None


def test_url_dates() -> None:
    assert url_day("https://example.com/2025/09/04/slug/") == "2025-09-04"
    assert url_day("https://example.com/blog/20240131/slug") == "2024-01-31"
    assert url_day("https://example.com/products/2025-99-99") is None
    assert url_day("https://example.com/item/123456789") is None
    assert metadata_of(page(), url="https://example.com/2021/2/3/a-post").date_published == "2021-02-03"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2025-09-04T12:50:36+00:00", "2025-09-04"),
        ("September 4, 2025", "2025-09-04"),
        ("4 Sept. 2025", "2025-09-04"),
        ("Posted on 12 Jan 2024", "2024-01-12"),
        ("04.09.2025", "2025-09-04"),
        ("Mon, 03 Feb 2025 10:00:00 GMT", "2025-02-03"),
        ("3 days ago", None),
        ("5:50 am", None),
        ("1850-01-01", None),
    ],
)
def test_iso_day(text: str, day: str | None) -> None:
    assert iso_day(text) == day


def test_bylines_and_dates_in_the_text() -> None:
    seen = Visible("Home\nBy\nMaria Lopez\nMarch 3, 2024\nBy clicking accept you agree\nPosted by Login")
    assert seen.names == ("Maria Lopez",)
    assert seen.days == ("2024-03-03",)


def test_title_from_h1_that_agrees_with_the_head() -> None:
    head = "<title>Ten Ways to Cook Rice - Kitchen Notes</title>"
    assert metadata_of(page(head, body=f"<h1>Ten Ways to Cook Rice</h1>{BODY}")).title == "Ten Ways to Cook Rice"
    logo = metadata_of(page(head, body=f"<h1>Kitchen Notes</h1>{BODY}"))
    assert logo.title == "Ten Ways to Cook Rice"  # an <h1> that is the site's logo is not the title
    assert strip_site("News | Example", "Example") == "News"
    assert strip_site("Plain title", None) == "Plain title"


def test_title_after_a_pipe_loses_a_short_site_segment_even_after_a_shorter_headline() -> None:
    assert strip_site("Dental Care | ONE Health Ohio", None) == "Dental Care"
    assert strip_site("Dental Care - ONE Health Ohio", None) == "Dental Care - ONE Health Ohio"  # not a pipe: kept
    long_tail = "Ten Ways | A Long Guide To Cooking Rice Well"
    assert strip_site(long_tail, None) == long_tail


def test_of_a_title_in_three_segments_the_headline_is_the_first() -> None:
    # what follows the headline describes the page, the last segment is the site's
    assert strip_site("Travel Insurance - Flight and Travel Insurance Quotes | GEICO", None) == "Travel Insurance"
    assert strip_site("Best Resume Writing Service | Professional Resume Writers | TopResume", "TopResume") == (
        "Best Resume Writing Service"
    )
    assert strip_site("IAM overview | Identity and Access Management (IAM) | Google Cloud", "Google Cloud") == (
        "IAM overview"
    )


def test_title_from_an_h1_the_head_title_holds() -> None:
    head = "<title>Hiking Boots: Shop Boots for Hiking &amp; Backpacking</title>"
    assert metadata_of(page(head, body=f"<h1>Hiking Boots</h1>{BODY}")).title == "Hiking Boots"
    unrelated = metadata_of(page(head, body=f"<h1>Outdoor Store</h1>{BODY}"))
    assert unrelated.title == "Hiking Boots: Shop Boots for Hiking & Backpacking"


def test_title_read_without_twice_escaped_entities_and_permalink_marks() -> None:
    escaped = page('<meta property="og:title" content="Actuary&amp;#8217;s Choice &amp;amp; More">')
    assert metadata_of(escaped).title == "Actuary\u2019s Choice & More"
    sphinx = page("<title>Quickstart — Flask Documentation (3.1.x)</title>", body=f"<h1>Quickstart¶</h1>{BODY}")
    assert metadata_of(sphinx).title == "Quickstart"


def test_every_text_field_is_read_without_twice_escaped_entities() -> None:
    head = '<meta name="author" content="Maria &amp;amp; Katerina">'
    head += '<meta property="og:site_name" content="Warren Averett CPAs &amp;amp; Advisors">'
    head += '<meta name="description" content="Homeowners aren&amp;rsquo;t offering it">'
    head += '<meta name="keywords" content="Plants &amp;amp; Crops, M&amp;amp;A">'
    metadata = metadata_of(page(head))
    assert metadata.author == ("Maria & Katerina",)
    assert metadata.site_name == "Warren Averett CPAs & Advisors"
    assert metadata.description == "Homeowners aren\u2019t offering it"
    assert metadata.tags == ("Plants & Crops", "M&A")
    author = {"@type": "Person", "name": "Tom &amp; Jerry"}
    ld = json_ld({"@type": "Article", "author": author, "keywords": ["R&amp;D"]})
    from_ld = metadata_of(page(ld))
    assert (from_ld.author, from_ld.tags) == (("Tom & Jerry",), ("R&D",))
    assert metadata_of(page('<meta name="description" content="Fish &amp; chips">')).description == "Fish & chips"


def test_title_from_json_ld_loses_its_site_segment_too() -> None:
    head = json_ld({"@type": "WebPage", "name": "Reliable Music Lesson Reviews | Make More Music"})
    assert metadata_of(page(head)).title == "Reliable Music Lesson Reviews"


def test_a_head_title_that_is_only_the_site_name_gives_way_below_the_root() -> None:
    head = '<title>Glossier</title><meta property="og:site_name" content="Glossier">'
    body = f"<h1>Custom Skincare Set</h1>{BODY}"
    assert metadata_of(page(head, body), url="https://glossier.com/products/set").title == "Custom Skincare Set"
    assert metadata_of(page(head, body), url="https://glossier.com/").title == "Glossier"  # the home page's name
    leading = "<title>| Nuts &amp; Volts Magazine</title>"
    leading += '<meta property="og:site_name" content="Nuts and Volts Magazine">'
    found = metadata_of(page(leading, f"<h1>Electronic Gadgets</h1>{BODY}"), url="https://example.com/gadgets")
    assert found.title == "Electronic Gadgets"


def test_a_page_without_metadata_has_empty_fields() -> None:
    found = metadata_of(page(body="<p>x</p>"), url=None)
    assert found == Metadata(title=None)
    assert found.to_json()["author"] == []


_KEYS = ["@type", "@id", "@graph", "author", "name", "headline", "datePublished", "image", "keywords", "mainEntity"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from([*_KEYS, "url", "inLanguage", "dateModified", "creator"]),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@pytest.mark.parametrize("url", ["http://[", "https://[::1/a.png", "//[::1"])
def test_a_url_urllib_cannot_read_is_no_image_not_an_error(url: str) -> None:
    found = metadata_of(page(f'<meta property="og:image" content="{url}"><link rel="canonical" href="{url}">'))
    assert found.image is None
    assert found.canonical_url is None


@settings(max_examples=200, deadline=None)
@given(data=_JSON, meta=st.text(max_size=40))
def test_any_json_ld_and_meta_content_gives_metadata_not_an_error(data: object, meta: str) -> None:
    value = html.escape(meta)
    head = json_ld(data) + f'<meta property="article:published_time" content="{value}">'
    head += f'<meta name="author" content="{value}"><meta property="og:image" content="{value}">'
    found = metadata_of(page(head, body=f"<h1>{value}</h1><p>By {value}</p>{BODY}"))
    assert found.title is None or isinstance(found.title, str)
    assert all(isinstance(name, str) and name for name in found.author)
    assert found.date_published is None or len(found.date_published) == 10
    assert found.image is None or found.image.startswith(("http://", "https://"))


_MOJIBAKE_PIECES = st.sampled_from(["Ã", "Â", "â\x80", "â€", "\x99", "©", "®", "é", "\x00", " ", "a"])


@settings(max_examples=300, deadline=None)
@given(text=st.lists(_MOJIBAKE_PIECES | st.text(max_size=5), max_size=20).map("".join))
def test_any_text_with_misread_utf8_marks_is_repaired_without_error(text: str) -> None:
    assert isinstance(repair_mojibake(text), str)
    if not any(mark in text for mark in ("Ã", "Â", "â")):
        assert repair_mojibake(text) is text  # nothing to repair: not even looked at


def test_a_title_is_unescaped_once_more_not_twice() -> None:
    assert metadata_of(page("<title>Salt &amp;amp;amp; Pepper</title>")).title == "Salt &amp; Pepper"


@pytest.mark.parametrize(
    ("served", "read"),
    [
        ("A DIY Investor\u00e2\x80\x99s Guide | White Coat Investor", "A DIY Investor\u2019s Guide"),
        (
            "itertools \u00c3\u00a2\u00c2\x80\u00c2\x94 Functions creating iterators",
            "itertools \u2014 Functions creating iterators",
        ),
        ("S\u00c3O PAULO em destaque", "S\u00c3O PAULO em destaque"),  # a real \u00c3 stays
    ],
)
def test_double_encoded_titles_and_bylines_are_read_back(served: str, read: str) -> None:
    byline = '<meta name="author" content="Jos\u00c3\u00a9 Mar\u00c3\u00ada">'
    page = f"<html><head><title>{served}</title>{byline}</head><body><p>x</p></body></html>"
    metadata = extract_metadata(parse_html(page), None, parse_json_ld(()))
    assert metadata.title == read
    assert metadata.author == ("Jos\u00e9 Mar\u00eda",)


def test_a_description_written_as_html_is_read_as_its_text() -> None:
    head = '<meta name="description" content="&lt;p&gt;Introducing &lt;strong&gt;Mini&lt;/strong&gt;, fast.&lt;/p&gt;'
    head += '&lt;p&gt;Second.&lt;/p&gt;">'
    assert metadata_of(page(head)).description == "Introducing Mini, fast. Second."
    text = '<meta name="description" content="The &lt;table&gt; element holds rows &lt;/tr&gt; by rows">'
    assert metadata_of(page(text)).description == "The <table> element holds rows </tr> by rows"


REDDIT_POST = "https://www.reddit.com/r/Cooking/comments/1rl0nt4/enameled_cast_iron_pan_and_metal/"


def test_a_head_that_names_the_site_gives_way_to_the_title_the_urls_path_names() -> None:
    """The page's titles agree on none and the head names the site; the <h1> says the post the URL names."""
    html = page("<title>Reddit - The heart of the internet</title>", f"<h1>Enameled Cast Iron Pan and Metal</h1>{BODY}")
    assert metadata_of(html, REDDIT_POST).title == "Enameled Cast Iron Pan and Metal"
    assert metadata_of(html, None).title == "Reddit - The heart of the internet"  # no URL, nothing to go by


def test_a_blogs_name_gives_way_to_the_posts_segment_of_its_head_title() -> None:
    html = page("<title>Joy the Baker – Onion and Ricotta Frittata</title>", f"<h1>Joy the Baker</h1>{BODY}")
    assert metadata_of(html, "https://joythebaker.com/2012/11/onion-and-ricotta-frittata/").title == (
        "Onion and Ricotta Frittata"
    )


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("/products/royal-edition", "The Ridge Royal Edition"),  # the choice shares no word, the <h1> two
        ("/products/royal-edition-aluminum", "Aluminum Black Wallet"),  # the choice shares one: kept
        ("/products/royal", "Aluminum Black Wallet"),  # no other title shares two words: the choice stands
    ],
)
def test_the_path_overrules_only_a_choice_it_shares_no_word_with_for_one_that_shares_two(path: str, title: str) -> None:
    html = page("<title>Aluminum Black Wallet | The Ridge</title>", f"<h1>The Ridge Royal Edition</h1>{BODY}")
    assert metadata_of(html, None).title == "Aluminum Black Wallet"
    assert metadata_of(html, "https://ridge.com" + path).title == title
