"""The API under test: the real app over the real embedded engine and the agent's test graph.

The graph and agent are the session's shared ones (tests/conftest.py: full offline HPO +
ChEMBL + openFDA, built through the real build).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from biokg.api.app import create_app
from biokg.core.settings import Settings
from biokg.graph_agent.agent import GraphAgent

API_KEY = "test-key-0123456789abcdef"
#: The server answers loopback hosts only (TestClient's default Host, testserver, gets 400).
LOOPBACK = "http://127.0.0.1"


@pytest.fixture(scope="session")
def client(agent: GraphAgent, settings: Settings) -> Iterator[TestClient]:
    """A client without credentials (tests add the header), the app's lifespan running."""
    app = create_app(dataclasses.replace(settings, api_key=API_KEY), agent=agent)
    with TestClient(app, base_url=LOOPBACK) as test_client:
        yield test_client


@pytest.fixture
def auth() -> dict[str, str]:
    return {"X-API-Key": API_KEY}
