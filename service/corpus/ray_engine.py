"""The Ray engine: the shards as a Ray Data dataset, extracted by a ``map_batches`` stage on an actor pool.

Each actor loads the models once (a GPU each when the settings ask for a GPU
provider) and runs :func:`~service.corpus.shards.process_shard`, the local
engine's function, on one shard at a time, so both engines write identical
rows. Ray Data's own Parquet reader and writer are not used: WARC has no Ray
reader, and a shard must be written whole under its final name or not at all
for a rerun to resume, which Ray's writer does not promise. Input and output
paths must be on a file system every node sees (a shared volume on Kubernetes).
"""

from __future__ import annotations

import os
import socket
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from service.corpus.batch import BatchExtractor, Options
from service.corpus.shards import Done, Report, Shard, pool_size, process_shard
from service.errors import UsageError
from service.models.store import ModelStore
from service.settings import GPU_EXECUTION_PROVIDERS, Settings


class ShardActor:
    """One Ray actor: the models, loaded once, and the shards given to it, one per batch."""

    def __init__(self, options: dict[str, Any]) -> None:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415 - in the actor's process

        threadpool_limits(1, user_api="blas")
        self.extractor = BatchExtractor(Options(**options))

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        outputs, results, errors = [], [], []
        for encoded in batch["shard"]:
            shard = Shard.from_json(encoded)
            try:
                results.append(process_shard(shard, self.extractor, lambda pages, size: None).to_json())
                errors.append("")
            except Exception as error:  # the shard is redone by the next run; the others go on
                results.append("")
                errors.append(f"{type(error).__name__}: {error}")
            outputs.append(str(shard.input))
        return {"input": outputs, "result": results, "error": errors}


REACH_TIMEOUT_S = 10.0  # how long the cluster's address may take to accept a connection


class UnreachableCluster(UsageError):
    """A Ray address nothing answers at: ``ray.init`` would retry it for many minutes, saying nothing."""


def check_reachable(address: str) -> None:
    """Refuse a ``host:port`` or ``ray://host:port`` address that accepts no connection within REACH_TIMEOUT_S.

    ``auto``, ``local`` and other forms are Ray's to resolve.
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except (OSError, ValueError) as error:
        raise UnreachableCluster(f"no Ray cluster answers at {address}: {error}") from error


def gpus_per_worker(backend: str) -> float:
    """One GPU per actor for a model backend (one in the model store) when the settings name a GPU provider.

    Read from the settings and the store's manifest, without loading the model: the driver may
    run on a node without a GPU.
    """
    settings = Settings()
    on_gpu = GPU_EXECUTION_PROVIDERS & set(settings.execution_providers)
    return 1.0 if on_gpu and backend in ModelStore(settings.model_store_dir).names() else 0.0


def run_ray(
    shards: list[Shard], options: Options, workers: int, address: str | None, report: Report
) -> tuple[dict[Path, Done], dict[Path, str]]:
    """Each finished shard's result, and the shards that failed with why, computed on the Ray cluster at ``address``."""
    import ray  # noqa: PLC0415 - the optional `ray` extra

    # A cluster's address (given, or RAY_ADDRESS where a RayJob runs the command on the head), or else a Ray
    # instance started here for this run, with a CPU per worker and no dashboard.
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        check_reachable(address)
    started_here: dict[str, Any] = {} if address else {"num_cpus": workers, "include_dashboard": False}
    ray.init(address=address, log_to_driver=False, configure_logging=False, **started_here)
    try:
        largest_first = sorted(shards, key=lambda shard: shard.size_bytes, reverse=True)
        ray.data.DataContext.get_current().enable_progress_bars = False  # the corpus command draws its own
        items = [{"shard": shard.to_json()} for shard in largest_first]
        # a block per shard, so that the actors share the shards instead of one actor taking a block of them all
        results = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
            ShardActor,
            fn_constructor_kwargs={"options": asdict(options)},
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=pool_size(workers, len(items))),
            num_cpus=1,
            num_gpus=gpus_per_worker(options.backend),
        )
        sizes = {str(shard.input): shard.size_bytes for shard in shards}
        done: dict[Path, Done] = {}
        failed: dict[Path, str] = {}
        for row in results.iter_rows():
            if row["error"]:
                failed[Path(row["input"])] = row["error"]
            else:
                done[Path(row["input"])] = Done.from_json(row["result"])
            finished = done.get(Path(row["input"]))
            report(sum(finished.outcomes.values()) if finished else 0, sizes[row["input"]])
        return done, failed
    finally:
        ray.shutdown()
