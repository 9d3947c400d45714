"""Fetching pages for concurrent callers: admitted, timed and counted, like the extractions they feed."""

from __future__ import annotations

import time

from service.fetching.errors import UrlNotAllowed
from service.fetching.fetcher import FetchedPage, Fetcher
from service.metrics import NO_BACKEND, Metrics
from service.runtime.admission import AdmissionLimit

MS_PER_S = 1e3


class FetchService:
    """Fetches within ``admission`` (pages being fetched at once); counts bytes, blocked URLs and fetch time."""

    def __init__(self, fetcher: Fetcher, *, admission: AdmissionLimit, metrics: Metrics) -> None:
        self.fetcher = fetcher
        self.admission = admission
        self.metrics = metrics

    async def fetch(
        self, url: str, *, allow_error_status: bool = False, respect_robots: bool = False
    ) -> tuple[FetchedPage, float]:
        """The page at ``url`` (asking its robots.txt first, when told to) and the milliseconds it took."""
        metrics = self.metrics
        with self.admission.admit():
            started = time.perf_counter()
            try:
                if respect_robots:
                    await self.fetcher.robots.check(url)
                fetched = await self.fetcher.fetch(url, allow_error_status=allow_error_status)
            except UrlNotAllowed as error:
                metrics.blocked_urls.labels(error.reason).inc()
                raise
            finally:
                elapsed_s = time.perf_counter() - started
                metrics.stage_duration.labels("fetch", NO_BACKEND).observe(elapsed_s)
        metrics.fetched_bytes.inc(len(fetched.body))
        return fetched, elapsed_s * MS_PER_S
