"""The extraction service without a web server: built from its collaborators, batched, admitted, importable alone."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from service.backends.registry import default_registry
from service.errors import PageTooComplex
from service.metrics import Metrics, new_registry
from service.options import Options
from service.parsing.budget import PageBudget
from service.pipeline import Extraction, Extractor
from service.runtime.admission import AdmissionLimit
from service.runtime.errors import ClientGone, Overloaded
from service.serving.extraction import ExtractionService, Job, Page
from service.serving.start import open_extraction
from service.settings import Settings

from support.live_server import RULES_DEFAULT
from support.pages import ARTICLE

pytestmark = pytest.mark.timeout(60)

PAGES = 4
BUDGET = PageBudget(max_elements=100)  # ARTICLE fits; TOO_COMPLEX does not
TOO_COMPLEX = "<div>" * 200


def test_the_bilstm_runs_through_a_real_micro_batcher_and_matches_the_in_process_call() -> None:
    settings = Settings(batch_max_size=PAGES, batch_max_wait_ms=50.0, default_backend="bilstm")  # a batcher on the CPU
    extractor = Extractor(default_registry(settings), "bilstm", settings.page_budget)
    metrics = Metrics(new_registry())
    jobs = [Job(Page(ARTICLE), None, Options()) for _ in range(PAGES)]

    async def served() -> tuple[list[str], list[Extraction]]:
        async with open_extraction(settings, extractor, {"bilstm": extractor.backend("bilstm")}, metrics) as service:
            return list(service.batchers), await service.extract(jobs)

    batched, extractions = asyncio.run(served())
    expected = extractor.extract(ARTICLE)
    assert batched == ["bilstm", "bilstm/article"]  # the article model batches its own pages
    for extraction in extractions:
        assert extraction.backend == "bilstm"
        assert extraction.text == expected.text
        np.testing.assert_allclose(extraction.labels.scores, expected.labels.scores, atol=1e-5)
    sample = metrics.registry.get_sample_value
    assert expected.metadata.page_type is None  # this extractor has no page-type model: the general model's batches
    assert sample("extract_batch_documents_sum", {"backend": "bilstm"}) == PAGES  # every page went through a batch
    assert sample("extract_stage_duration_seconds_count", {"stage": "classify", "backend": "bilstm"}) == PAGES


def rules_service(capacity: int) -> tuple[ExtractionService, ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(1)
    extractor = Extractor(default_registry(), RULES_DEFAULT, BUDGET)
    return ExtractionService(
        extractor, admission=AdmissionLimit(capacity, 2.0), pool=pool, metrics=Metrics(new_registry())
    ), pool


def test_a_page_error_stays_with_its_page_and_extract_raises_it() -> None:
    service, pool = rules_service(capacity=4)
    jobs = [Job(Page(ARTICLE), None, Options()), Job(Page(TOO_COMPLEX), None, Options())]
    with pool:
        outcomes = asyncio.run(service.run(jobs))
        assert isinstance(outcomes[0], Extraction) and outcomes[0].text
        assert isinstance(outcomes[1], PageTooComplex)
        with pytest.raises(PageTooComplex):
            asyncio.run(service.extract(jobs))
    assert service.admission.in_flight == 0  # every slot given back, the failed call's too


def test_more_jobs_than_admission_has_room_for_are_refused_whole() -> None:
    service, pool = rules_service(capacity=1)
    with pool, pytest.raises(Overloaded) as refused:
        asyncio.run(service.run([Job(Page(ARTICLE), None, Options())] * 2))
    assert refused.value.retry_after_s == 2.0
    assert service.admission.in_flight == 0


def test_nothing_is_begun_for_a_caller_who_has_gone() -> None:
    settings = Settings(batch_max_size=PAGES, batch_max_wait_ms=50.0, default_backend="bilstm")
    extractor = Extractor(default_registry(settings), "bilstm", settings.page_budget)
    metrics = Metrics(new_registry())
    gone = threading.Event()
    gone.set()
    jobs = [Job(Page(ARTICLE), backend, Options()) for backend in ("bilstm", RULES_DEFAULT)]

    async def served() -> None:
        async with open_extraction(settings, extractor, {"bilstm": extractor.backend("bilstm")}, metrics) as service:
            for batch in (jobs, jobs[1:]):  # through the micro-batcher, and in one worker thread
                with pytest.raises(ClientGone):
                    await service.run(batch, gone)
            assert service.admission.in_flight == 0

    asyncio.run(served())
    never_batched = metrics.registry.get_sample_value("extract_batch_documents_count", {"backend": "bilstm"}) is None
    assert never_batched  # no page reached the model


def test_the_serving_layer_imports_no_web_framework() -> None:
    # the import contract allows indirect imports; this checks what loading the service really pulls in
    code = (
        "import sys, service.serving.extraction, service.serving.start, service.serving.fetch; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'fastapi', 'starlette', 'uvicorn'}))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
