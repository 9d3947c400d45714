# syntax=docker/dockerfile:1
# The serving image, two targets, and the cpu image with Ray for crawls on a cluster:
#   docker build --target cpu -t extraction-service:cpu .   (python:3.11-slim, onnxruntime)
#   docker build --target gpu -t extraction-service:gpu .   (CUDA 12 + cuDNN 9 runtime, onnxruntime-gpu)
#   docker build --target ray -t extraction-service:ray .   (cpu plus the `ray` extra; k8s/batch/ runs it)
# Both run as an unprivileged user (uid 10001), carry the models from model_store/, install only
# the serving dependencies (never the `train` or `eval` extras) and write nothing outside /tmp, so
# they run with a read-only root filesystem. Checked by hadolint and tests/deploy/test_deploy_docker.py.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG CUDA_IMAGE=nvidia/cuda:12.6.3-cudnn-runtime-ubuntu24.04
# The compiled block walk is built against the selectolax that pyproject.toml pins (checked by a test).
ARG SELECTOLAX_VERSION=1.0.2
ARG BUILD_TOOLS="cython==3.3.1 setuptools==84.2.1 wheel==0.48.0"

# --- wheel: the project as a wheel with the compiled block walk, for the cpu target's Python -------
# A builder stage: the C compiler and Cython stay here. setup.py reads Lexbor's headers from
# selectolax's source distribution (pip download); EXTRACT_BUILD_WALK=1 builds the extension.
FROM ${PYTHON_IMAGE} AS wheel
ARG SELECTOLAX_VERSION
ARG BUILD_TOOLS
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 EXTRACT_BUILD_WALK=1
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
# hadolint ignore=SC2086
RUN python -m venv /opt/build && /opt/build/bin/pip install ${BUILD_TOOLS} "selectolax==${SELECTOLAX_VERSION}"
WORKDIR /src
COPY pyproject.toml README.md setup.py ./
COPY service ./service
RUN /opt/build/bin/pip wheel --no-build-isolation --no-deps --wheel-dir /wheels .

# --- gpu-wheel: the same for the gpu target's Python (the CUDA image's python3) --------------------
FROM ${CUDA_IMAGE} AS gpu-wheel
ARG SELECTOLAX_VERSION
ARG BUILD_TOOLS
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 EXTRACT_BUILD_WALK=1
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
# hadolint ignore=SC2086
RUN python3 -m venv /opt/build && /opt/build/bin/pip install ${BUILD_TOOLS} "selectolax==${SELECTOLAX_VERSION}"
WORKDIR /src
COPY pyproject.toml README.md setup.py ./
COPY service ./service
RUN /opt/build/bin/pip wheel --no-build-isolation --no-deps --wheel-dir /wheels .

# --- cpu-venv: the serving dependencies in a virtual environment (no compiler in the final image) -
FROM ${PYTHON_IMAGE} AS cpu-venv
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
COPY --from=wheel /wheels /wheels
RUN /opt/venv/bin/pip install /wheels/*.whl

# --- shared runtime settings ------------------------------------------------------------------------
# EXTRACT_MODEL_STORE_DIR: the installed package lives in site-packages, so the models are named
# by path. PROMETHEUS_MULTIPROC_DIR stays unset: `serve` makes one under /tmp when workers > 1.

# --- cpu: the slim image ----------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS cpu
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    EXTRACT_HOST=0.0.0.0 \
    EXTRACT_PORT=8000 \
    EXTRACT_MODEL_STORE_DIR=/app/model_store
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin app
COPY --from=cpu-venv /opt/venv /opt/venv
COPY model_store /app/model_store
WORKDIR /tmp
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('EXTRACT_PORT', '8000'), timeout=2)"]
CMD ["python", "-m", "service", "serve"]

# --- ray: the cpu image plus the `ray` extra (Ray Data, pyarrow, FastWARC) for `corpus --engine ray` ---
# KubeRay starts `ray start` in it (k8s/batch/); the driver runs `python -m service corpus`. Never the
# serving image: the serving dependencies stay without Ray.
FROM cpu-venv AS ray-venv
RUN wheel="$(ls /wheels/*.whl)" && /opt/venv/bin/pip install "${wheel}[ray]"

FROM cpu AS ray
COPY --from=ray-venv /opt/venv /opt/venv
# Ray keeps its session files under /tmp, and a few under HOME: both the pod's writable /tmp.
ENV HOME=/tmp
HEALTHCHECK NONE
CMD ["python", "-m", "service", "corpus", "--help"]

# --- gpu: CUDA runtime with onnxruntime-gpu; one worker per GPU ------------------------------------
FROM ${CUDA_IMAGE} AS gpu
ARG ONNXRUNTIME_GPU_VERSION=1.22.0
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
COPY --from=gpu-wheel /wheels /wheels
# `.[gpu]` brings onnxruntime-gpu beside the core onnxruntime; both own the `onnxruntime` package,
# so the CPU one is removed and the GPU one reinstalled over it. The build fails unless ONNX Runtime
# then offers CUDA (the service also refuses to start if a session silently falls back to CPU).
RUN wheel="$(ls /wheels/*.whl)" \
    && /opt/venv/bin/pip install "${wheel}[gpu]" "onnxruntime-gpu==${ONNXRUNTIME_GPU_VERSION}" \
    && /opt/venv/bin/pip uninstall -y onnxruntime \
    && /opt/venv/bin/pip install --force-reinstall --no-deps "onnxruntime-gpu==${ONNXRUNTIME_GPU_VERSION}" \
    && /opt/venv/bin/python -c "import onnxruntime as ort; assert 'CUDAExecutionProvider' in ort.get_available_providers()" \
    && rm -rf /wheels
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    EXTRACT_HOST=0.0.0.0 \
    EXTRACT_PORT=8000 \
    EXTRACT_MODEL_STORE_DIR=/app/model_store \
    EXTRACT_WORKERS=1 \
    EXTRACT_EXECUTION_PROVIDERS='["CUDAExecutionProvider","CPUExecutionProvider"]' \
    EXTRACT_DEFAULT_BACKEND=bilstm \
    NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin app
COPY model_store /app/model_store
WORKDIR /tmp
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('EXTRACT_PORT', '8000'), timeout=2)"]
CMD ["python", "-m", "service", "serve"]
