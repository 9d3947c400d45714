"""Domain errors: what went wrong, in terms of extraction, never of HTTP.

The API maps each class to a status and a stable code in one table
(``service.api.errors``); the CLI prints the message.
"""

from __future__ import annotations


class UsageError(Exception):
    """An input or option a command cannot use (a corpus, a split, a page selection): one line on stderr, exit 2."""


class ExtractionError(Exception):
    """Base of every error the service reports to a caller."""


class UnknownBackend(ExtractionError):
    """A backend name that is not registered."""

    def __init__(self, name: str, known: list[str], why: str = "") -> None:
        super().__init__(f"unknown backend {name!r}; known backends: {', '.join(known)}" + (f" ({why})" if why else ""))
        self.name = name
        self.known = known


class UnknownFormat(ExtractionError):
    """An output format no renderer is registered for (service.output.formats.FORMATS)."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(f"unknown output format {name!r}; known formats: {', '.join(known)}")
        self.name = name
        self.known = known


class InvalidOption(ExtractionError):
    """An option's value no request could mean: an unknown ``favor``, a page ``url`` urllib cannot read."""


class DuplicateBackend(ExtractionError):
    """A second backend registered under a name already taken."""


class EmptyPage(ExtractionError):
    """A page with nothing in it but white space: there is nothing to extract."""


class NotHtml(ExtractionError):
    """A page that is mostly control bytes: an image, an archive, random data."""


class InvalidSelector(ExtractionError):
    """A target_selector or remove_selector that is no CSS selector the parser can read."""


class NothingSelected(ExtractionError):
    """A target_selector that matches no element of the page: there is nothing to extract."""


class PageTooComplex(ExtractionError):
    """A page with more elements or attribute names than the budget: parsing it would cost too much."""
