"""Service settings, read from ``EXTRACT_*`` environment variables.

Built by :func:`get_settings` when the app starts, never at import, so tests
can pass their own. Units are in the names. Validators fail at start-up on a
combination that could only fail later (a GPU shared by several workers, a
batch larger than the admission limit). Lists are read from the environment
as JSON (``EXTRACT_API_KEYS='["k1","k2"]'``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from functools import cache
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.parsing.budget import DEFAULT_MAX_ATTRIBUTE_NAMES, DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_OPTIONS, PageBudget
from service.paths import MODEL_STORE

# The best word F1 at five times trafilatura's speed or more on one core, over the dev pages
# (README "Which backend"): gbt.
# The GPU deployments set EXTRACT_DEFAULT_BACKEND=bilstm, where the BiLSTM is micro-batched on the device.
DEFAULT_BACKEND = "gbt"

# ONNX Runtime's names for the providers a model backend may ask for.
KNOWN_EXECUTION_PROVIDERS = frozenset({"CPUExecutionProvider", "CUDAExecutionProvider", "TensorrtExecutionProvider"})
GPU_EXECUTION_PROVIDERS = frozenset({"CUDAExecutionProvider", "TensorrtExecutionProvider"})
GPU_BATCH_SIZE = 32  # documents per model batch on a GPU unless EXTRACT_BATCH_MAX_SIZE says otherwise
# Padded blocks per model call unless EXTRACT_BATCH_MAX_PADDED_BLOCKS says otherwise. On the CPU a call holds one
# page's windows: 8192 changes no dev page (none has more blocks) and cut a 103,511-block page's peak memory
# on bilstm from 1,388 to 571 MiB (`bench --page-memory --backends bilstm`, with and without
# EXTRACT_BATCH_MAX_PADDED_BLOCKS=65536).
GPU_PADDED_BLOCKS = 65536
CPU_PADDED_BLOCKS = 8192
# The BiLSTM's windows (service.runtime.windows): the longest block sequence it reads at once, and the overlap.
DEFAULT_BILSTM_WINDOW_BLOCKS = 2048
DEFAULT_BILSTM_OVERLAP_BLOCKS = 256

MIB = 1024 * 1024
PREFIX = "EXTRACT_"
# EXTRACT_* variables that are no settings: the corpus and cache folders the tools read (service/paths.py),
# the compiled extensions' build switch (setup.py), the tests' quality-gate cache switch (tests/eval).
TOOL_VARIABLES = frozenset(
    {"EXTRACT_DATA_DIR", "EXTRACT_CHECK_DATA_DIR", "EXTRACT_CACHE_DIR", "EXTRACT_BUILD_WALK", "EXTRACT_NO_GATE_CACHE"}
)


class Settings(BaseSettings):
    """Every knob of the service, documented where it is defined (the README's table is built from these)."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore")

    # Serving
    host: str = Field("127.0.0.1", description="Address the server binds to.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port the server listens on.")
    workers: int = Field(
        1, ge=1, le=64, description="Worker processes; CPU backends scale with them. Must be 1 with a GPU provider."
    )
    graceful_shutdown_timeout_s: int = Field(
        30, ge=1, le=600, description="On SIGTERM, how long requests and queued batches may take to finish."
    )
    access_log: bool = Field(
        False, description="One uvicorn log line per request (about 0.2 ms CPU each; the metrics count every request)."
    )
    # Backends
    default_backend: str = Field(DEFAULT_BACKEND, description="Backend used when a request names none.")
    enabled_backends: list[str] = Field(
        default_factory=list, description="Backends loaded at start and offered to requests; empty means all shipped."
    )
    model_store_dir: Path = Field(MODEL_STORE, description="Directory holding model artifacts and manifest.json.")
    execution_providers: list[str] = Field(
        default_factory=lambda: ["CPUExecutionProvider"],
        description="ONNX Runtime providers for model backends, in order of preference.",
    )
    onnx_intra_op_threads: int = Field(
        1, ge=1, le=64, description="Threads ONNX Runtime uses inside one model call (scale with workers instead)."
    )
    blas_threads: int = Field(
        1,
        ge=1,
        le=64,
        description="Threads BLAS may use inside one request (grf's graph); more only contend with other requests.",
    )
    bilstm_window_blocks: int = Field(
        DEFAULT_BILSTM_WINDOW_BLOCKS,
        ge=64,
        description="Longest block sequence the BiLSTM reads at once; longer pages are windowed.",
    )
    bilstm_overlap_blocks: int = Field(
        DEFAULT_BILSTM_OVERLAP_BLOCKS,
        ge=0,
        description="Blocks shared by neighbouring windows (context at each window edge).",
    )
    boilerpipe_tree_filter_depth: int = Field(
        2, ge=0, le=16, description="Boilerpipe's tree filter: group by this ancestor (0 turns the filter off)."
    )
    # Request limits and concurrency
    max_body_bytes: int = Field(
        10 * MIB, ge=1024, description="Largest request body accepted; larger ones get 413 before being read."
    )
    body_timeout_s: float = Field(
        30.0, gt=0, le=600, description="Longest a request body may take to arrive; a slower one gets 408."
    )
    max_batch_documents: int = Field(32, ge=1, le=1024, description="Most documents in one POST /extract/batch.")
    max_page_elements: int = Field(
        DEFAULT_MAX_ELEMENTS,
        ge=1000,
        description="Most elements (start tags) in one page; more is 422 page_too_complex before parsing.",
    )
    max_page_attribute_names: int = Field(
        DEFAULT_MAX_ATTRIBUTE_NAMES,
        ge=0,
        description="Most distinct attribute names in one page (parsing costs their square); more is 422"
        " page_too_complex. Counting them costs more than the parse itself; 0 turns the count off.",
    )
    max_page_options: int = Field(
        DEFAULT_MAX_OPTIONS,
        ge=100,
        description="Most <option> tags in one page (parsing one <select> costs the square of its options);"
        " more is 422 page_too_complex before parsing.",
    )
    max_in_flight: int = Field(
        64,
        ge=1,
        description="Documents being extracted at once per process; beyond it requests get 429 with Retry-After.",
    )
    max_in_flight_bytes: int = Field(
        20 * MIB,
        ge=1024,
        description="Bytes of pages being extracted at once per process (memory grows with them); beyond it"
        " requests get 429 with Retry-After. A larger page runs when it is alone.",
    )
    overload_retry_after_s: int = Field(1, ge=1, le=3600, description="Retry-After sent with a 429.")
    cpu_threads: int = Field(
        4, ge=1, le=256, description="Threads per process running parsing and CPU backends off the event loop."
    )
    cpu_thread_niceness: int = Field(
        15,
        ge=0,
        le=19,
        description="Nice value added to those threads, so the event loop (accepting, answering, refusing) runs first.",
    )
    switch_interval_ms: float = Field(
        0.5,
        gt=0,
        le=100,
        description="How long a thread may hold the interpreter while another waits (Python's default: 5).",
    )
    # Micro-batching of model backends
    batch_max_size: int | None = Field(
        None,
        ge=1,
        le=4096,
        description="Most documents in one model batch (default: 32 with a GPU provider; on the CPU, where"
        " batching measured slower, no micro-batcher unless this is set).",
    )
    batch_max_wait_ms: float = Field(
        5.0, ge=0, le=1000, description="How long a batch waits to fill before it runs anyway."
    )
    batch_max_padded_blocks: int | None = Field(
        None,
        ge=1,
        description="A model call (a batch, or one long page's windows) closes when documents × longest document (in"
        " blocks) would exceed this (default: 65536 with a micro-batcher; else 8192, which bounds a 100,000-block"
        " page's BiLSTM memory at a quarter: 1.4 GiB peak at 65536, 0.57 at 8192).",
    )
    batch_queue_size: int = Field(
        256, ge=1, description="Documents waiting for a model batch; beyond it requests get 429 with Retry-After."
    )
    # Fetching (GET /extract?url=)
    fetch_connect_timeout_s: float = Field(5.0, gt=0, le=120, description="Resolving and connecting, per hop.")
    fetch_read_timeout_s: float = Field(10.0, gt=0, le=300, description="Longest silence while reading a response.")
    fetch_total_timeout_s: float = Field(20.0, gt=0, le=600, description="Whole fetch, every redirect included.")
    fetch_max_bytes: int = Field(10 * MIB, ge=1024, description="Largest page fetched (decoded bytes).")
    fetch_max_redirects: int = Field(5, ge=0, le=20, description="Redirects followed, each one checked.")
    fetch_content_types: list[str] = Field(
        default_factory=lambda: ["text/html", "application/xhtml+xml"],
        description="Media types accepted from upstream servers.",
    )
    fetch_allowed_ports: list[int] = Field(
        default_factory=lambda: [80, 443], description="Ports a fetched URL may name, outside allowlisted networks."
    )
    fetch_allow_networks: list[IPv4Network | IPv6Network] = Field(
        default_factory=list,
        description="Networks fetched even though they are not global (internal use, tests); any port.",
    )
    fetch_max_in_flight: int = Field(
        16, ge=1, description="Pages being fetched at once per process; beyond it requests get 429 with Retry-After."
    )
    fetch_user_agent: str = Field("extraction-service/0.1", description="User-Agent sent upstream.")
    # Access
    api_keys: list[SecretStr] = Field(
        default_factory=list,
        description="Bearer keys; when set, every endpoint but /, /healthz, /readyz, /metrics and docs needs one.",
    )
    cors_allow_origins: list[str] = Field(
        default_factory=list, description="Origins allowed to call the API from a browser; empty turns CORS off."
    )

    @field_validator("execution_providers")
    @classmethod
    def _known_providers(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - KNOWN_EXECUTION_PROVIDERS)
        if unknown or not value:
            raise ValueError(f"execution providers must be among {sorted(KNOWN_EXECUTION_PROVIDERS)}, got {value}")
        return value

    @field_validator("fetch_content_types")
    @classmethod
    def _lower_media_types(cls, value: list[str]) -> list[str]:
        return [media.strip().lower() for media in value]

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.workers > 1 and GPU_EXECUTION_PROVIDERS & set(self.execution_providers):
            raise ValueError("a GPU provider needs workers=1: run one process (one pod) per GPU")
        if self.max_batch_documents > self.max_in_flight:
            raise ValueError("max_batch_documents cannot exceed max_in_flight: such a batch could never be admitted")
        if self.enabled_backends and self.default_backend not in self.enabled_backends:
            raise ValueError(f"default_backend {self.default_backend!r} is not in enabled_backends")
        if self.fetch_connect_timeout_s > self.fetch_total_timeout_s:
            raise ValueError("fetch_connect_timeout_s cannot exceed fetch_total_timeout_s")
        if self.bilstm_overlap_blocks >= self.bilstm_window_blocks:
            raise ValueError("bilstm_overlap_blocks must be smaller than bilstm_window_blocks")
        return self

    @property
    def micro_batching(self) -> bool:
        """Whether batched backends get a micro-batcher: with a GPU provider, or when ``batch_max_size`` is set.

        On one CPU core a batch costs more than its documents alone (padding to the longest,
        a batched LSTM step): ``bench --http`` with the BiLSTM at concurrency 64 served 35 req/s
        with batches of up to 32 and 60 req/s with 1; and batches of one only add the hand-offs
        to and from the batcher's thread (about 1 ms a request at concurrency 1).
        """
        return self.batch_max_size is not None or bool(GPU_EXECUTION_PROVIDERS & set(self.execution_providers))

    @property
    def page_budget(self) -> PageBudget:
        """What one page may ask of the parser: its most elements, distinct attribute names and options."""
        return PageBudget(
            max_elements=self.max_page_elements,
            max_attribute_names=self.max_page_attribute_names,
            max_options=self.max_page_options,
        )

    @property
    def padded_blocks(self) -> int:
        """``batch_max_padded_blocks``, or its default: a GPU's batches are wide, one CPU page's calls narrow."""
        if self.batch_max_padded_blocks is not None:
            return self.batch_max_padded_blocks
        return GPU_PADDED_BLOCKS if self.micro_batching else CPU_PADDED_BLOCKS

    @property
    def batch_size(self) -> int:
        """``batch_max_size``, or its default for the providers (one document where there is no batcher)."""
        if self.batch_max_size is not None:
            return self.batch_max_size
        return GPU_BATCH_SIZE if self.micro_batching else 1


@cache
def get_settings() -> Settings:
    return Settings()


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """A line for each ``EXTRACT_*`` variable that names no setting, with the settings it may have meant.

    pydantic ignores them, so a misspelled ``EXTRACT_MAX_INFLIGHT`` left the limit at its default unseen.
    """
    known = [name.upper() for name in Settings.model_fields]
    lines = []
    for name in sorted(environ):
        upper = name.upper()
        if upper.startswith(PREFIX) and upper[len(PREFIX) :] not in known and upper not in TOOL_VARIABLES:
            near = [PREFIX + n for n in difflib.get_close_matches(upper[len(PREFIX) :], known, n=2, cutoff=0.75)]
            lines.append(f"{name} is no setting" + (f" (did you mean {' or '.join(near)}?)" if near else ""))
    return lines
