"""Fixtures of the agent tests: the LLM planner against the loopback stub.

The graph and the deterministic agent (``agent_graph``, ``agent``) come from tests/conftest.py,
shared with the CLI and API tests.
"""

from __future__ import annotations

import pytest

from biokg.core.settings import Settings
from biokg.graph_agent.agent import GraphAgent


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
