"""The API under test: the real app over the real embedded engine and the agent's test graph.

The graph is the one the agent tests ask (full offline HPO + ChEMBL + openFDA), built through
the real build; when both folders run, the second build skips every unchanged source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from biokg.api.app import create_app
from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.build import build
from biokg.settings import Settings
from biokg.store import GraphStore

API_KEY = "test-key-0123456789abcdef"
AGENT_SOURCES = ("hpo", "chembl", "openfda")


@pytest.fixture(scope="session")
def agent(store: GraphStore, settings: Settings) -> GraphAgent:
    build(store, settings, AGENT_SOURCES, sample=True)
    return GraphAgent.connect(store, settings)


@pytest.fixture(scope="session")
def client(agent: GraphAgent, settings: Settings) -> Iterator[TestClient]:
    """A client without credentials (tests add the header), the app's lifespan running."""
    app = create_app(dataclasses.replace(settings, api_key=API_KEY), agent=agent)
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def auth() -> dict[str, str]:
    return {"X-API-Key": API_KEY}
