"""Service settings, read from ``EXTRACT_*`` environment variables.

Built by :func:`get_settings` when the app starts, never at import, so tests
can override them. Units are in the names.
"""

from __future__ import annotations

from functools import cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_BACKEND = "boilerpipe"


class Settings(BaseSettings):
    """Every knob of the service, documented where it is defined."""

    model_config = SettingsConfigDict(env_prefix="EXTRACT_", extra="ignore")

    host: str = Field("127.0.0.1", description="Address the server binds to.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port the server listens on.")
    workers: int = Field(1, ge=1, le=64, description="Worker processes (CPU backends scale with them).")
    default_backend: str = Field(DEFAULT_BACKEND, description="Backend used when a request names none.")
    boilerpipe_tree_filter_depth: int = Field(
        2, ge=0, le=16, description="Boilerpipe's tree filter: group by this ancestor (0 turns the filter off)."
    )
    max_body_bytes: int = Field(
        10 * 1024 * 1024, ge=1024, description="Largest request body accepted; larger ones get 413 before being read."
    )


@cache
def get_settings() -> Settings:
    return Settings()
