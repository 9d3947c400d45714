"""Train pages with other pages' link lists spliced into their article (service/training/augment.py,
service/parsing/spliced.py)."""

from __future__ import annotations

from pathlib import Path

from service.parsing.spliced import link_blocks, paragraph_texts, with_blocks_after
from service.training.augment import spliced_copies

from support.train_pages import labeled_pages

FIRST = "The council voted on Tuesday to keep the old bridge open to walkers and cyclists for another year."
SECOND = "Engineers said the repairs would cost less than a new crossing, and work starts in the spring."
ARTICLE = f"Bridge\n\n{FIRST}\n\nSee the map.\n\n{SECOND}"


def _page(n: int) -> bytes:
    teasers = "".join(
        f'<li><a href="/s/{n}/{k}">Other headline number {n}-{k} from the desk</a></li>' for k in range(4)
    )
    return (
        f"<html><head><title>Bridge {n}</title></head><body>"
        f'<nav><a href="/">Home</a> <a href="/news">News</a></nav>'
        f'<article><h1>Bridge {n}</h1><p>{FIRST}</p><p>See <a href="/map">the map</a>.</p><p>{SECOND}</p></article>'
        f'<aside class="related"><ul>{teasers}</ul></aside></body></html>'
    ).encode()


def test_link_blocks_are_the_link_dense_blocks() -> None:
    blocks = link_blocks(_page(1))
    texts = [text for _, text in blocks]
    assert any("Other headline number 1-0" in text and "1-3" in text for text in texts)
    assert all("bridge open" not in text for text in texts)  # the article: one short link in a lot of text
    assert all(text != "Home\nNews" for text in texts)  # two links, too short to be a list of teasers
    assert all(markup.startswith(("<ul", "<aside")) for markup, _ in blocks)


def test_blocks_go_right_after_the_paragraph_named() -> None:
    fragment = '<ul><li><a href="/x">Spliced one</a></li><li><a href="/y">Spliced two</a></li></ul>'
    out = with_blocks_after(_page(1), [(0, fragment), (2, "<div>After the last</div>")])
    assert f"<p>{FIRST}</p>{fragment}<p>See" in out
    assert f"<p>{SECOND}</p><div>After the last</div></article>" in out
    assert paragraph_texts(out.encode())[:3] == paragraph_texts(_page(1))


def test_copies_hold_other_pages_lists_in_the_article_labelled_boilerplate(tmp_path: Path) -> None:
    docs = labeled_pages(tmp_path, [(_page(n), ARTICLE) for n in range(6)])
    copies = spliced_copies(docs, 1.0, seed=5, blocks=2)
    assert [copy.page for copy in copies] == [doc.page for doc in docs]
    for n, copy in enumerate(copies):
        texts = copy.document.texts
        spliced = [
            i for i, text in enumerate(texts) if text.startswith("Other headline number") and f" {n}-" not in text
        ]
        assert len(spliced) >= 4  # another page's list, inside the article: before its own list in the aside
        assert max(spliced) < texts.index(f"Other headline number {n}-0 from the desk")
        assert not copy.labels[spliced].any()
        assert copy.labels[texts.index(FIRST)] and copy.labels[texts.index(SECOND)]
    again = spliced_copies(docs, 1.0, seed=5, blocks=2)
    assert [c.document.texts for c in again] == [c.document.texts for c in copies]  # the seed decides
    assert spliced_copies(docs, 0.0, seed=5, blocks=2) == []


def test_a_page_without_a_paragraph_surely_in_its_gold_gets_no_copy(tmp_path: Path) -> None:
    docs = labeled_pages(
        tmp_path, [(_page(n), "Bridge") for n in range(3)]
    )  # no paragraph of 60 characters in the gold
    assert spliced_copies(docs, 1.0, seed=5, blocks=2) == []


def test_a_page_donates_no_list_whose_lines_are_its_gold(tmp_path: Path) -> None:
    teasers = "\n".join(f"Other headline number 0-{k} from the desk" for k in range(4))
    docs = labeled_pages(
        tmp_path, [(_page(0), f"{FIRST}\n{teasers}\n{SECOND}"), (_page(1), ARTICLE)]
    )  # 0: list is gold
    copies = spliced_copies(docs, 1.0, seed=5, blocks=2)
    # the second page's list goes into the first; the first has none to give, so the second gets no copy
    assert [copy.page.id for copy in copies] == [docs[0].page.id]
    assert any(text.startswith("Other headline number 1-") for text in copies[0].document.texts[:8])


def test_a_page_in_another_charset_keeps_its_text(tmp_path: Path) -> None:
    def declared_1252(n: int) -> bytes:
        page = _page(n).decode().replace("<head>", '<head><meta charset="windows-1252">')
        return page.replace(FIRST, f"Café {FIRST}").encode("cp1252")

    docs = labeled_pages(tmp_path, [(declared_1252(n), ARTICLE.replace(FIRST, f"Café {FIRST}")) for n in range(3)])
    copies = spliced_copies(docs, 1.0, seed=5, blocks=2)
    assert copies and all(f"Café {FIRST}" in copy.document.texts for copy in copies)
