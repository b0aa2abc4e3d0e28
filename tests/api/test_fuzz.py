"""The HTTP API fuzzed from its own OpenAPI document (schemathesis), against the real app on the
embedded engine: no 5xx, and every response is one the document lists for its operation (status,
content type, headers) and matches the schema given for it (errors: the one error body).

Bounded: a few generated cases per operation (each /ask runs the agent), no deadline per case.
The operations are driven with hypothesis directly (schemathesis's lazy pytest fixture loader
does not run under this pytest).
"""

from __future__ import annotations

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

EXAMPLES_PER_OPERATION = 8
#: Longer than the API's own deadline for a question (graph 20 s + one query 10 s + 5 s).
REQUEST_TIMEOUT_S = 60
#: The server answers loopback hosts only (schemathesis's ASGI default Host, testserver: 400).
BASE_URL = "http://127.0.0.1"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
#: Every operation of the document (the first test checks that none is missing).
OPERATIONS = [
    ("GET", "/health"),
    ("GET", "/explorer/config"),
    ("GET", "/explorer/links"),
    ("GET", "/search"),
    ("POST", "/ask"),
    ("POST", "/ask/stream"),
    ("GET", "/entities/{curie}"),
    ("GET", "/entities/{curie}/neighbourhood"),
    ("POST", "/diagnose"),
    ("POST", "/diagnose/phenopacket"),
]


@pytest.fixture(scope="module")
def api_schema(client: TestClient) -> schemathesis.schemas.BaseSchema:
    """The app's own OpenAPI document (the session client has started its lifespan)."""
    return schemathesis.openapi.from_asgi(
        "/openapi.json", client.app, headers={"Host": BASE_URL.removeprefix("http://")}
    )


def test_the_fuzzed_operations_are_every_operation(
    api_schema: schemathesis.schemas.BaseSchema,
) -> None:
    found = {(op.ok().method.upper(), op.ok().path) for op in api_schema.get_all_operations()}
    assert found == set(OPERATIONS), found


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=lambda x: x)
def test_no_server_error_and_responses_match_the_schema(
    api_schema: schemathesis.schemas.BaseSchema, auth: dict[str, str], method: str, path: str
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def fuzz(case: schemathesis.Case) -> None:
        case.call_and_validate(
            base_url=BASE_URL, headers=auth, checks=CHECKS, timeout=REQUEST_TIMEOUT_S
        )

    fuzz()
