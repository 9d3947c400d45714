"""What a caller may ask of one extraction beyond the page and the backend: one record for every entry point.

The Python API, the CLI and the HTTP API all build an :class:`Options`; the
pipeline reads it. It knows nothing of HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.backends.favor import BALANCED, FAVORS
from service.errors import InvalidOption
from service.output.formats import TEXT, output_format

# The yes/no choices (include_comments may also be None: the page type decides).
SWITCHES = ("include_comments", "include_links", "include_images", "include_tables", "include_title", "front_matter")


@dataclass(frozen=True, slots=True)
class Options:
    """One extraction's choices; the defaults give what the service gave before they existed."""

    format: str = TEXT  # a name in service.output.formats.FORMATS; text is always there too
    favor: str = BALANCED  # precision, balanced or recall: moves the backend's threshold
    # None: an article's comment thread goes, a page made of comments keeps them (service.backends.pruning);
    # False drops every block in a comment thread, True none
    include_comments: bool | None = None
    include_links: bool = True  # links in html and markdown
    include_images: bool = False  # images (lazy-load attributes resolved) in html and markdown
    include_tables: bool = True  # False leaves data tables out (a table holding most of the text stays)
    include_title: bool = False  # the response's title (the metadata's, else the page's) once, as the first heading
    front_matter: bool = False  # markdown only: the page's metadata as YAML front matter, url and backend last
    target_selector: str | None = None  # CSS: only what these elements hold is classified
    remove_selector: str | None = None  # CSS: these elements are removed before classification

    def __post_init__(self) -> None:
        """Refuse what no request could mean: an unknown format or favor, a switch that is no bool, a selector no str.

        A Python caller's ``include_links="no"`` would otherwise read as true.
        """
        output_format(self.format)  # UnknownFormat, listing the known ones
        if not isinstance(self.favor, str):
            raise TypeError(f"favor must be one of {', '.join(FAVORS)} (a str), not {self.favor!r}")
        if self.favor not in FAVORS:
            raise InvalidOption(f"unknown favor {self.favor!r}; known: {', '.join(FAVORS)}")
        for name in SWITCHES:
            value = getattr(self, name)
            if not isinstance(value, bool) and not (value is None and name == "include_comments"):
                raise TypeError(f"{name} must be True or False, not {value!r}")
        for name in ("target_selector", "remove_selector"):
            if not isinstance(getattr(self, name), str | None):
                raise TypeError(f"{name} must be a CSS selector (str) or None, not {getattr(self, name)!r}")
