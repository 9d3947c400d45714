"""What every test folder shares: assertion rewriting in the support modules, and the suite's options.

The fixtures live in the folder that uses them: tests/http/conftest.py (servers on loopback, a browser),
tests/eval/conftest.py (the dev pages, the quality gate's cache).
"""

from __future__ import annotations

import pytest

# Their assert helpers report like a test's own asserts (registered before any test imports them).
pytest.register_assert_rewrite("support")


def pytest_addoption(parser: pytest.Parser) -> None:
    # Here, not in tests/eval/conftest.py: pytest reads options only from the conftest files it loads at start.
    parser.addoption(
        "--no-gate-cache",
        action="store_true",
        help="run the quality gate even if it passed before for the same models, corpus and code "
        "(or set EXTRACT_NO_GATE_CACHE=1)",
    )
