"""The page's title: which of the head's titles and the <h1>s names the page, and how it is cleaned."""

from __future__ import annotations

import subprocess
import sys

from support.metadata_pages import BODY, metadata_of_page


def title_of(head: str = "", body: str = BODY, url: str = "https://example.com/guide/page") -> str | None:
    return metadata_of_page(head, body, url).title


def test_a_soft_hyphen_in_the_h1_does_not_split_its_word() -> None:
    head = "<title>City of Marion Building Department: Home Repair Assistance Program</title>"
    assert title_of(head, f"<h1>Home Repair Assis&shy;tance Program</h1>{BODY}") == "Home Repair Assistance Program"
    zero_width = f"<h1>Home Repair Assis\u200btance Program</h1>{BODY}"
    assert title_of(head, zero_width) == "Home Repair Assistance Program"


def test_an_h1_whose_words_ran_together_gives_way_to_the_same_head_title() -> None:
    head = "<title>News Product Management Certification | News Product Alliance</title>"
    glued = f"<h1>News Product<span>Management</span> Certification</h1>{BODY}"
    assert title_of(head, glued) == "News Product Management Certification"
    cased = f"<h1>News product management certification</h1>{BODY}"
    assert title_of(head, cased) == "News product management certification"  # the same words: the <h1> as it is


def test_an_h1_without_a_letter_is_passed_over() -> None:
    votes = f"<h1>94</h1><h1>Scalable End-to-End Interpretability</h1>{BODY}"
    assert title_of("", votes) == "Scalable End-to-End Interpretability"
    assert title_of("", f"<h1>2024</h1><h1>#1</h1><h1>Annual Report</h1>{BODY}") == "Annual Report"


def test_a_home_page_titled_by_its_menu_label_keeps_the_site_name() -> None:
    head = "<title>Home - Ohio Artisan Collective</title>"
    head += '<meta property="og:site_name" content="Ohio Artisan Collective">'
    assert title_of(head, url="https://ohioartisancollective.com/") == "Home - Ohio Artisan Collective"
    label_only = '<meta property="og:title" content="Home"><title>Home - The GitHub Blog</title>'
    label_only += '<meta property="og:site_name" content="The GitHub Blog">'
    assert title_of(label_only, url="https://github.blog/") == "Home - The GitHub Blog"
    # below the root "Shop" names the page: the site's segment still goes
    shop = '<title>Shop - The Barn Swallow</title><meta property="og:site_name" content="The Barn Swallow">'
    assert title_of(shop, url="https://www.thebarnswallow.com/shop") == "Shop"


def test_an_h1_that_repeats_the_head_title_template_loses_its_tail() -> None:
    head = "<title>Hifiman Sundara Headphones | 2020 Edition | Audio Shop</title>"
    assert title_of(head, f"<h1>Hifiman Sundara Headphones | 2020 Edition</h1>{BODY}") == "Hifiman Sundara Headphones"
    dashed = f"<h1>Best Bread Machines – My Favorites!</h1>{BODY}"  # no pipe: a subtitle the headline keeps
    assert (
        title_of("<title>Best Bread Machines – My Favorites!</title>", dashed) == "Best Bread Machines – My Favorites!"
    )


def test_an_h1_names_the_page_where_it_agrees_with_a_later_head_title() -> None:
    head = '<meta property="og:title" content="Buying a laptop? These are the 9 best laptops you can buy today">'
    head += "<title>Best laptops 2026: Premium, budget, gaming and more | PCWorld</title>"
    h1 = "Best laptops 2026: Premium, budget, gaming, 2-in-1, and more"
    assert title_of(head, f"<h1>{h1}</h1>{BODY}") == h1
    home = '<meta property="og:title" content="Plausible Analytics">'
    home += "<title>Plausible Analytics | Simple, privacy-friendly Google Analytics alternative</title>"
    tagline = f"<h1>Easy to use and privacy-friendly Google Analytics alternative</h1>{BODY}"
    assert title_of(home, tagline, url="https://plausible.io/") == "Plausible Analytics"  # a home page's tagline


def test_two_head_titles_that_agree_win_over_a_json_ld_name_that_does_not() -> None:
    ld = '<script type="application/ld+json">{"@type": "SoftwareApplication", "name": "Messaging"}</script>'
    head = '<meta property="og:title" content="Business Text Messaging | Twilio">'
    head += "<title>Business Text Messaging | Twilio</title>"
    h1 = f"<h1>Business messaging that scales without slowing you down</h1>{BODY}"
    assert title_of(ld + head, h1) == "Business Text Messaging"
    alone = '<meta property="og:title" content="Business Text Messaging | Twilio">'  # one head title: no second voice
    assert title_of(ld + alone, h1) == "Messaging"


def test_the_warm_up_loads_the_mojibake_repair_so_no_request_pays_its_import() -> None:
    """ftfy takes about 50 ms to import: the first page with a misread title must not pay it (a fresh process)."""
    code = (
        "import sys\n"
        "from service.pipeline import Extractor, warm_up\n"
        "from service.backends.registry import default_registry\n"
        "from service.settings import Settings\n"
        "extractor = Extractor(default_registry(Settings()))\n"
        "assert 'ftfy' not in sys.modules\n"
        "warm_up(extractor, ['boilerpipe'])\n"
        "print('ftfy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "True", done.stderr
