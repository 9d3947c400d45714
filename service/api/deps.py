"""Dependencies the routes share: the lifespan's state, typed, and the API-key check."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.api.errors import Unauthorized
from service.api.schemas import ALL_BACKENDS
from service.backends.base import Backend
from service.metrics import UNKNOWN_BACKEND, Metrics
from service.pipeline import Extractor
from service.serving.extraction import ExtractionService
from service.serving.fetch import FetchService
from service.settings import Settings

# The request-state key the metrics middleware reads the backend label from.
BACKEND_LABEL_KEY = "metric_backend"
# The lifespan-state key of the AppState (each request's state holds it under this name).
STATE_KEY = "service"


@dataclass(frozen=True)
class AppState:
    """What the lifespan opens once and every request reads."""

    settings: Settings
    extraction: ExtractionService  # admission, the thread pool and the micro-batchers every extraction goes through
    fetching: FetchService  # the pages the service fetches itself, admitted and counted
    backends: dict[str, Backend]  # the enabled backends, loaded, by name
    manifest: dict[str, dict[str, object]]  # the model store's manifest entries, by backend name
    metrics: Metrics
    api_keys: tuple[bytes, ...] = ()  # empty: no key needed

    @property
    def extractor(self) -> Extractor:
        return self.extraction.extractor

    def ready(self, name: str) -> bool:
        """A backend is ready when it says so and, if batched, its batcher is alive."""
        return self.backends[name].is_ready() and self.extraction.batching_alive(name)

    def backend_label(self, name: str | None) -> str:
        """The bounded metric label for a requested backend name ("" asks for the default, as None does)."""
        if not name:
            return self.extractor.default_backend
        if name == ALL_BACKENDS or name in self.backends:
            return name
        return UNKNOWN_BACKEND


async def get_state(request: Request) -> AppState:
    state: AppState = getattr(request.state, STATE_KEY)
    return state


State = Annotated[AppState, Depends(get_state)]


def label_backend(request: Request, state: AppState, name: str | None) -> None:
    """Tell the metrics middleware which backend this request ran (a bounded label)."""
    setattr(request.state, BACKEND_LABEL_KEY, state.backend_label(name))


_bearer = HTTPBearer(auto_error=False, description="One of EXTRACT_API_KEYS, when the service has keys set.")


async def require_api_key(
    state: State, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> None:
    """With API keys configured, a request needs ``Authorization: Bearer <key>``; without, it passes."""
    if not state.api_keys:
        return
    given = credentials.credentials.encode() if credentials is not None else b""
    if not any(hmac.compare_digest(given, key) for key in state.api_keys):
        raise Unauthorized("a valid API key is needed: send 'Authorization: Bearer <key>'")


API_KEY = [Depends(require_api_key)]
