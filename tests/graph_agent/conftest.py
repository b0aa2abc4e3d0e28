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


# -- the LLM planner against the loopback OpenAI-compatible stub (tests/graph_agent/llm_stub.py) --
@pytest.fixture(scope="session")
def llm_stub():
    """One stub server per session; each ``llm_agent`` gets it with an empty script."""
    from llm_stub import LLMStub

    with LLMStub() as stub:
        yield stub


@pytest.fixture
def llm_agent(agent: GraphAgent, llm_stub, settings: Settings) -> GraphAgent:
    """The session agent's graph and linker, planning with an LLMResearcher on the stub."""
    import dataclasses

    from biokg.graph_agent.llm import LLMResearcher

    llm_stub.play()
    configured = dataclasses.replace(
        settings, openai_base_url=llm_stub.base_url, openai_api_key="stub-key", llm_model="stub"
    )
    researcher = LLMResearcher.from_settings(configured, timeout_s=10.0)
    return GraphAgent(agent.store, agent.linker, schema=agent.schema, researcher=researcher)
