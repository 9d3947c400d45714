"""Dependencies the routes share: the lifespan's state, typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from service.pipeline import Extractor
from service.settings import Settings


@dataclass(frozen=True)
class AppState:
    """What the lifespan opens once and every request reads."""

    settings: Settings
    extractor: Extractor


def get_state(request: Request) -> AppState:
    return request.app.state.service


State = Annotated[AppState, Depends(get_state)]
