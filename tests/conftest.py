"""What every test folder shares: assertion rewriting in the support modules.

The fixtures live in the folder that uses them: tests/http/conftest.py (servers on loopback, a browser),
tests/eval/conftest.py (the dev pages).
"""

from __future__ import annotations

import pytest

# Their assert helpers report like a test's own asserts (registered before any test imports them).
pytest.register_assert_rewrite("support")
