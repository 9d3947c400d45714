"""Running extractions for a caller that serves many at once: admitted, off the event loop, batched, measured.

The HTTP API is one such caller; nothing here knows HTTP (or imports a web
framework), so the CLI, the benchmarks and the corpus engine can take the same
batched path (the split of TEI's ``infer.rs`` from its router).
"""
