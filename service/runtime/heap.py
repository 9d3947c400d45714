"""The garbage collector in a long-running extraction process."""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect what starting up left behind and exempt the survivors from later collections.

    Models, tables and modules loaded at start live as long as the process,
    yet every full collection would walk them again: in ``python -m service
    bench`` that showed in mlp's time per page. Call it once the
    process is ready, after warming up.
    """
    gc.collect()
    gc.freeze()
