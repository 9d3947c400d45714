"""``bench --page-budget``: the corpus figures behind the page budget's defaults."""

from __future__ import annotations

from service.commands.page_budget import report


def test_the_report_names_the_page_with_the_most_tags_and_attribute_names() -> None:
    pages = [b"<p class=a>x</p>", b"<div a b c d><p>x<p>y<p>z</div>", b"<b e>x</b>"]
    pages.append(b"<select><option>a<OPTION>b</select>")
    found = report(pages, ["one", "two", "three", "four"], synthetic=(10,), synthetic_options=(20,))
    assert found.pages == 4
    assert found.most_options == (2, "four") and set(found.lexbor_options_s) == {20}
    assert found.most_start_tags == (4, "two")
    assert found.most_attribute_names == (4, "two")
    assert found.median_attribute_names == 1
    assert found.parse_ms_per_page > 0 and found.parse_with_budget_ms_per_page > 0
    assert set(found.lexbor_s) == {10}
    assert "python" in found.scan_ms_per_page and all(ms > 0 for ms in found.scan_ms_per_page.values())
