"""How every command prints its help: defaults shown, plain text instead of reStructuredText."""

from __future__ import annotations

import argparse


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's default in its help, unless the help already says it or there is none to say."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        unsaid = action.default is None or action.default is False or action.default in ("", argparse.SUPPRESS)
        if "default" in help_text or unsaid:
            return help_text
        return super()._get_help_string(action)


def plain(docstring: str | None) -> str:
    """A docstring's first line as help prints it: no reStructuredText literals."""
    lines = (docstring or "").strip().splitlines()
    return lines[0].replace("``", "") if lines else ""
