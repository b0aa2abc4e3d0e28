"""The graph the agent tests ask: the full offline HPO release plus ChEMBL and openFDA.

Built once per session through the real build (unchanged sources are skipped), on the session's
embedded engine. The agent is built from it the way the CLI and API build theirs.
"""

from __future__ import annotations

import pytest

from biokg.graph_agent.agent import GraphAgent
from biokg.ingest.build import build
from biokg.settings import Settings
from biokg.store import GraphStore

AGENT_SOURCES = ("hpo", "chembl", "openfda")


@pytest.fixture(scope="session")
def agent_graph(store: GraphStore, settings: Settings) -> GraphStore:
    build(store, settings, AGENT_SOURCES, sample=True)
    return store


@pytest.fixture(scope="session")
def agent(agent_graph: GraphStore, settings: Settings) -> GraphAgent:
    return GraphAgent.connect(agent_graph, settings)
