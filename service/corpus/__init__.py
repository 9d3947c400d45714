"""Corpus scale: every page of WARC, JSON Lines and Parquet inputs to Parquet shards.

``formats`` registers one reader per input format; ``shards`` turns inputs into
resumable units of work; ``batch`` is the per-batch function both engines run
(extraction through :mod:`service.pipeline`, one row per page, never a page
dropped); ``writer`` writes a shard atomically; ``local`` and ``ray_engine``
run the shards on a process pool or a Ray cluster.
"""
