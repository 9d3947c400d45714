# syntax=docker/dockerfile:1
# Minimal CPU image for now; the deployment issue adds the gpu target and hardening.
FROM python:3.11-slim AS cpu
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY service ./service
COPY model_store ./model_store
RUN pip install --no-cache-dir . && useradd --system --uid 10001 app
USER 10001
EXPOSE 8000
ENV EXTRACT_HOST=0.0.0.0
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
CMD ["python", "-m", "service", "serve"]
