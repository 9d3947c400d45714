"""Settings fail fast: a bad value or a combination that could only fail later stops the service at start."""

from __future__ import annotations

import asyncio
import re

import pytest
from pydantic import ValidationError

from service.api.app import create_app
from service.errors import UnknownBackend
from service.settings import Settings, unknown_variables

from support.paths import REPO

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"workers": 2, "execution_providers": ["CUDAExecutionProvider"]}, "one process"),
        ({"execution_providers": ["QuantumExecutionProvider"]}, "execution providers"),
        ({"execution_providers": []}, "execution providers"),
        ({"enabled_backends": ["svm"]}, "default_backend"),
        ({"max_batch_documents": 100, "max_in_flight": 10}, "max_batch_documents"),
        ({"fetch_connect_timeout_s": 30, "fetch_total_timeout_s": 10}, "fetch_connect_timeout_s"),
        ({"max_body_bytes": 10}, "max_body_bytes"),
        ({"fetch_allow_networks": ["not a network"]}, "fetch_allow_networks"),
    ],
)
def test_bad_settings_are_refused(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings(**values)  # type: ignore[arg-type]


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRACT_API_KEYS", '["k1", "k2"]')
    monkeypatch.setenv("EXTRACT_FETCH_ALLOW_NETWORKS", '["10.1.0.0/16"]')
    monkeypatch.setenv("EXTRACT_MAX_IN_FLIGHT", "8")
    monkeypatch.setenv("EXTRACT_MAX_BATCH_DOCUMENTS", "8")
    settings = Settings()
    assert [key.get_secret_value() for key in settings.api_keys] == ["k1", "k2"]
    assert "k1" not in repr(settings)
    assert str(settings.fetch_allow_networks[0]) == "10.1.0.0/16"
    assert settings.max_in_flight == 8


@pytest.mark.parametrize(
    "settings",
    [Settings(enabled_backends=["boilerpipe", "nope"], default_backend="boilerpipe"), Settings(default_backend="nope")],
)
def test_an_unknown_backend_fails_the_start_not_the_first_request(settings: Settings) -> None:
    app = create_app(settings)  # nothing is loaded yet: that is the lifespan's job

    async def start() -> None:
        async with app.router.lifespan_context(app):
            pass

    with pytest.raises(UnknownBackend, match=r"known backends: .*boilerpipe"):
        asyncio.run(start())


def test_micro_batching_defaults_to_a_gpu_only_with_batches_of_32() -> None:
    assert not Settings().micro_batching
    assert Settings().batch_size == 1
    gpu = Settings(execution_providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert gpu.micro_batching and gpu.batch_size == 32
    assert Settings(batch_max_size=8).micro_batching and Settings(batch_max_size=8).batch_size == 8
    assert Settings(batch_max_size=1).micro_batching  # asked for: a batcher, even of one


def test_an_extract_variable_that_names_no_setting_is_said_with_the_ones_it_may_mean() -> None:
    """pydantic ignores them: EXTRACT_MAX_INFLIGHT=2 left the limit at 64 unseen (serve now warns)."""
    environ = {"EXTRACT_MAX_INFLIGHT": "2", "EXTRACT_WORKER": "4", "EXTRACT_PORT": "1", "EXTRACT_DATA_DIR": "x"}
    assert unknown_variables({**environ, "extract_nonsense": "1", "PATH": "/bin"}) == [
        "EXTRACT_MAX_INFLIGHT is no setting (did you mean EXTRACT_MAX_IN_FLIGHT or EXTRACT_MAX_IN_FLIGHT_BYTES?)",
        "EXTRACT_WORKER is no setting (did you mean EXTRACT_WORKERS?)",
        "extract_nonsense is no setting",
    ]


def test_every_extract_variable_the_repository_reads_is_a_setting_or_a_tools() -> None:
    """A tool's variable that is not listed would be warned about by every serve that inherits it (the tests' runs)."""
    sources = [*REPO.glob("service/**/*.py"), *REPO.glob("tests/**/*.py"), REPO / "setup.py", REPO / "Makefile"]
    sources += [REPO / "Dockerfile", REPO / "docker-compose.yml", *REPO.glob("k8s/**/*.yaml"), REPO / ".ci" / "run"]
    named = {name for path in sources for name in re.findall(r"\bEXTRACT_[A-Z_]*[A-Z]\b", path.read_text("utf-8"))}
    misspelt_here = {"EXTRACT_MAX_INFLIGHT", "EXTRACT_WORKER"}  # by the test above, on purpose
    assert named and unknown_variables(dict.fromkeys(named - misspelt_here, "")) == []


def test_a_model_calls_padded_blocks_are_narrow_on_the_cpu_and_wide_with_a_batcher() -> None:
    """One CPU page's BiLSTM call of 65,536 padded blocks peaked at 1.4 GiB (a 100,000-block page); 8,192 at 0.57."""
    assert Settings().padded_blocks == 8192
    assert Settings(batch_max_size=8).padded_blocks == 65536
    assert Settings(execution_providers=["CUDAExecutionProvider", "CPUExecutionProvider"]).padded_blocks == 65536
    assert Settings(batch_max_padded_blocks=1000).padded_blocks == 1000
