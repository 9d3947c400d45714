"""Types of the compiled markup reader (``_markup.pyx``), for mypy."""

from collections.abc import Callable, Iterable, Sequence

SELECTOLAX_VERSION: str

def configure(
    clean: Callable[[str | None], str], max_text_chars: int, max_items: int, item_dates: Iterable[str]
) -> None: ...
def read_markup(
    kept: Sequence[object],  # selectolax's LexborNode, checked as each is read
) -> tuple[
    str,
    tuple[tuple[str, str], ...],
    tuple[tuple[str, str], ...],
    tuple[str, ...],
    tuple[tuple[str, str], ...],
    tuple[str, ...],
    tuple[tuple[str, str], ...],
    str,
]: ...
