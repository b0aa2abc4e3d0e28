"""What every request passes before a route runs (biokg.api.guards) and what the OpenAPI document
promises: trusted hosts, the body limit, the in-flight limit, texts the search model cannot
embed, and the documented error responses. The real app over the session's agent and engine."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from biokg.api.app import create_app
from biokg.api.guards import MAX_BODY_BYTES
from biokg.core.settings import Settings
from biokg.graph_agent.agent import GraphAgent

ERROR_BODY = {"$ref": "#/components/schemas/ErrorBody"}


def _is_error_body(response) -> bool:
    body = response.json()
    return set(body) == {"error", "type", "fields"} and bool(body["error"])


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "", "kg.example.org"])
def test_an_untrusted_host_is_400(client: TestClient, host: str) -> None:
    response = client.get("/health", headers={"Host": host})
    assert response.status_code == 400 and _is_error_body(response)
    assert "BIOKG_ALLOWED_HOSTS" in response.json()["error"]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8000", "[::1]:8000", "127.0.0.2"])
def test_loopback_hosts_are_trusted(client: TestClient, host: str) -> None:
    assert client.get("/health", headers={"Host": host}).status_code == 200


def test_configured_hosts_are_trusted(agent: GraphAgent, settings: Settings) -> None:
    app = create_app(dataclasses.replace(settings, allowed_hosts=("kg.example.org",)), agent=agent)
    with TestClient(app, base_url="http://kg.example.org:8000") as own:
        assert own.get("/health").status_code == 200
        assert own.get("/health", headers={"Host": "other.example.org"}).status_code == 400


def test_allowed_hosts_come_from_the_environment() -> None:
    settings = Settings.from_env({"BIOKG_ALLOWED_HOSTS": " kg.example.org, 10.0.0.5 ,"})
    assert settings.allowed_hosts == ("kg.example.org", "10.0.0.5")
    assert Settings.from_env({}).allowed_hosts == ()


def test_a_body_over_the_limit_is_413_declared_or_streamed(
    client: TestClient, auth: dict[str, str]
) -> None:
    big = b'{"question": "' + b"x" * MAX_BODY_BYTES + b'"}'
    declared = client.post(
        "/ask", content=big, headers={**auth, "Content-Type": "application/json"}
    )
    chunked = client.post(
        "/ask",
        content=iter([big[i : i + 1000] for i in range(0, len(big), 1000)]),
        headers={**auth, "Content-Type": "application/json"},
    )
    for response in (declared, chunked):
        assert response.status_code == 413 and _is_error_body(response)
        assert response.json()["type"] == "RequestTooLargeError"
        assert str(MAX_BODY_BYTES) in response.json()["error"]


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "field"),
    [
        ("GET", "/search", {"params": {"q": "ᚠᚢᚦ ᚠᚢᚦ"}}, "q"),
        ("POST", "/ask", {"json": {"question": "😀😀😀"}}, "question"),
        ("POST", "/ask/stream", {"json": {"question": "ᚠᚢᚦ"}}, "question"),
    ],
    ids=["search", "ask", "stream"],
)
def test_a_text_the_model_cannot_embed_is_422_naming_the_field(
    client: TestClient, auth: dict[str, str], method: str, path: str, kwargs: dict, field: str
) -> None:
    response = client.request(method, path, headers=auth, **kwargs)
    assert response.status_code == 422 and response.json()["fields"] == [field]
    assert "search model" in response.json()["error"]


@pytest.fixture
def one_at_a_time(agent: GraphAgent, settings: Settings) -> Iterator[TestClient]:
    """The app answering one graph request at a time (BIOKG_MAX_IN_FLIGHT=1), no key."""
    app = create_app(dataclasses.replace(settings, max_in_flight=1), agent=agent)
    with TestClient(app, base_url="http://127.0.0.1") as own:
        yield own


def test_graph_requests_past_the_in_flight_limit_are_429(one_at_a_time: TestClient) -> None:
    assert one_at_a_time.get("/search", params={"q": "viagra"}).status_code == 200
    assert one_at_a_time.get("/search", params={"q": "viagra"}).status_code == 200  # released
    replies = []
    asking = threading.Thread(
        target=lambda: replies.append(
            one_at_a_time.post("/ask", json={"question": "What are the phenotypes of Marfan?"})
        )
    )
    in_flight = one_at_a_time.app.state.in_flight
    asking.start()
    deadline = time.monotonic() + 10
    while in_flight.count == 0 and time.monotonic() < deadline:
        time.sleep(0.002)
    refused = one_at_a_time.get("/search", params={"q": "viagra"})
    asking.join()
    assert refused.status_code == 429 and _is_error_body(refused)
    assert refused.headers["retry-after"] == "2"
    assert replies[0].status_code == 200 and in_flight.count == 0
    assert one_at_a_time.get("/health").status_code == 200  # not a graph route: never limited


#: The error statuses each operation documents, in the error body (any other: 400 and 500).
DOCUMENTED = {
    ("get", "/health"): {400, 500, 502, 503, 504},
    ("get", "/search"): {400, 401, 422, 429, 500, 502, 503, 504},
    ("post", "/ask"): {400, 401, 413, 422, 429, 500, 502, 503, 504},
    ("post", "/ask/stream"): {400, 401, 413, 422, 429, 500, 502, 503, 504},
    ("get", "/entities/{curie}"): {400, 401, 404, 422, 429, 500, 502, 503, 504},
    ("get", "/entities/{curie}/neighbourhood"): {400, 401, 404, 422, 429, 500, 502, 503, 504},
    ("post", "/diagnose"): {400, 401, 413, 422, 429, 500, 502, 503, 504},
    ("post", "/diagnose/phenopacket"): {400, 401, 413, 422, 429, 500, 502, 503, 504},
}


def test_the_openapi_document_lists_every_error_in_the_error_body(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    found = {(m, p) for p, ops in paths.items() for m in ops}
    assert set(DOCUMENTED) < found  # and the explorer's
    for method, path in found:
        statuses = DOCUMENTED.get((method, path), {400, 500})
        responses = paths[path][method]["responses"]
        assert {int(s) for s in responses} - {200} == statuses, (method, path)
        for status in statuses:
            schema = responses[str(status)]["content"]["application/json"]["schema"]
            assert schema == ERROR_BODY, (method, path, status)
    assert "Retry-After" in paths["/search"]["get"]["responses"]["429"]["headers"]


def test_an_unexpected_error_is_a_500_in_the_error_body(
    agent: GraphAgent, settings: Settings
) -> None:
    app = create_app(settings, agent=agent)

    def broken() -> None:
        raise RuntimeError("a bug with internals: /home/user/secret")

    app.add_api_route("/broken", broken)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as own:
        response = own.get("/broken")
    assert response.status_code == 500 and _is_error_body(response)
    assert "secret" not in response.text and "server log" in response.json()["error"]
