"""A serving process exempts what it loaded at start from garbage collection (service.runtime.heap)."""

from __future__ import annotations

import subprocess
import sys

START_AND_REPORT = """
import asyncio, gc
from service.api.app import create_app
from service.settings import Settings

async def main():
    app = create_app(Settings(enabled_backends=["boilerpipe"], default_backend="boilerpipe"))
    before = gc.get_freeze_count()
    async with app.router.lifespan_context(app):
        print(before, gc.get_freeze_count())

asyncio.run(main())
"""


def test_a_started_service_has_frozen_its_start_up_heap() -> None:
    # A fresh interpreter: freezing is process-wide, so this process's own state says nothing.
    done = subprocess.run(
        [sys.executable, "-c", START_AND_REPORT], capture_output=True, text=True, timeout=120, check=True
    )
    before, after = map(int, done.stdout.split())
    assert before == 0
    assert after > 1000  # the app, its routes, settings and modules
