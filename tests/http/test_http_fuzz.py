"""Property-based fuzzing of the API from its own OpenAPI schema (schemathesis), bounded in examples and time.

No generated input may produce a 5xx, and every answer must match the schema
the API publishes. The service under test refuses every URL before any
connection (no port is allowed outside an allowlist, and it has none), so the
fuzzer cannot make it reach anything, on this machine or off it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address

import pytest
import schemathesis

# schemathesis imports this lazily while it generates a body, hypothesis' frames deep: there CPython 3.11
# once failed compiling it ("AST constructor recursion depth mismatch"), a flaky error that is none of ours
import schemathesis.generation.body_overrides
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.fetching.addresses import IPAddress
from service.settings import Settings

from support.live_server import LiveServer

pytestmark = pytest.mark.timeout(120)

EXAMPLES_PER_OPERATION = 30
CHECKS = [
    schemathesis.checks.not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


async def public_dns(host: str, port: int) -> Sequence[IPAddress]:
    """Every name is public, so URLs get as far as the port check, which refuses them all."""
    return [IPv4Address("93.184.216.34")]


@pytest.fixture(scope="module")
def fuzz_server() -> Iterator[LiveServer]:
    with LiveServer(Settings(fetch_allowed_ports=[], max_body_bytes=200_000), resolver=public_dns) as server:
        yield server


@pytest.fixture(scope="module")
def api_schema(fuzz_server: LiveServer) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(fuzz_server.url + "/openapi.json")


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_generated_input_produces_a_server_error(api_schema: schemathesis.BaseSchema, mode: GenerationMode) -> None:
    """Every operation, :data:`EXAMPLES_PER_OPERATION` requests each that fit the schema, then as many that do not."""
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 8
    if mode is GenerationMode.NEGATIVE:  # an operation without inputs has no wrong ones
        operations = [operation for operation in operations if len(operation.query) or len(operation.body)]
    for operation in operations:

        @given(case=operation.as_strategy(mode))
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,  # the same examples every run: a failure reproduces, the time is bounded
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=CHECKS, timeout=30)

        check()
