"""``biokg mcp``: the graph and its agent as Model Context Protocol tools (official ``mcp`` SDK).

Tools: ``search_entities``, ``entity_details``, ``neighbourhood``, ``ask`` (the cited answer),
``diagnose`` (diseases ranked for HPO terms), ``schema_summary`` and ``read_cypher``, each a
thin call into the same library code as the API.
Nothing here writes: ``read_cypher`` goes through the agent's query gate
(:class:`biokg.graph_agent.gate.CypherGate`: read-only words and procedures, bounded paths, a
LIMIT, EXPLAIN, a rolled-back READ transaction), under the agent's budget.

Transports: stdio (what desktop clients start), or streamable HTTP at ``/mcp`` behind the same
API key as ``biokg serve`` (``X-API-Key``; without ``BIOKG_API_KEY`` only on loopback).
A refused or failed call comes back to the client as a tool error carrying the reason.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic_core import to_jsonable_python
from starlette.types import ASGIApp, Receive, Scope, Send

from biokg import __version__
from biokg.api.app import API_KEY_HEADER
from biokg.api.entities import entity_details
from biokg.api.neighbourhood import neighbourhood as entity_neighbourhood
from biokg.errors import BiokgError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.diagnosis.service import diagnose as rank_diseases
from biokg.graph_agent.gate import CypherGate
from biokg.graph_agent.runner import QueryRunner
from biokg.schema import render_markdown

P = ParamSpec("P")
R = TypeVar("R")
INSTRUCTIONS = (
    "A biomedical knowledge graph (genes, diseases, phenotypes, drugs, GO terms, drug labels) "
    "with provenance on every edge. Find ids with search_entities, then entity_details and "
    "neighbourhood; ask answers a question with claims citing edge ids and source records. "
    "read_cypher runs read-only Cypher (schema_summary lists labels, types and properties)."
)


def create_server(agent: GraphAgent) -> MCPServer:
    """The MCP server over ``agent`` (its store stays the caller's)."""
    server = MCPServer("biokg", version=__version__, instructions=INSTRUCTIONS)

    def tool(name: str | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """Register a tool whose BiokgError reaches the client as the tool's error message."""

        def register(function: Callable[P, R]) -> Callable[P, R]:
            @functools.wraps(function)
            def call(*args: P.args, **kwargs: P.kwargs) -> R:
                try:
                    return function(*args, **kwargs)
                except BiokgError as err:
                    raise ToolError(f"{type(err).__name__}: {err}") from err

            server.tool(name=name)(call)
            return call

        return register

    @tool()
    def search_entities(text: str, limit: int = 10) -> list[dict[str, Any]]:
        """Nodes a name, synonym, brand name or CURIE may mean, best first, with scores
        (ambiguity kept: several candidates)."""
        return _plain(agent.linker.link(text, limit=max(1, min(limit, 50))))

    @tool(name="entity_details")
    def details(curie: str) -> dict[str, Any]:
        """One entity by CURIE: name, Biolink category, synonyms, xrefs, sources and their
        loaded releases, and its other properties."""
        return _plain(entity_details(agent.store, agent.schema, curie))

    @tool()
    def neighbourhood(curie: str, types: str = "", limit: int = 25) -> dict[str, Any]:
        """One hop around an entity: edge counts per type, direction and label, then up to
        ``limit`` edges per type and direction, each with source, version and source record.
        ``types``: comma-separated relationship types (default all)."""
        wanted = [t.strip() for t in types.split(",") if t.strip()]
        result = entity_neighbourhood(
            agent, curie, types=wanted, limit=max(1, min(limit, 200)), budget=agent.budget
        )
        return _plain(result)

    @tool()
    def ask(question: str) -> dict[str, Any]:
        """Answer a question from the graph: claims, each citing the node and edge ids and
        source records it rests on, the evidence graph and the queries run."""
        return _plain(agent.ask(question))

    @tool()
    def diagnose(
        observed: list[str],
        excluded: list[str] | None = None,
        top: int = 10,
        withhold_references: list[str] | None = None,
    ) -> dict[str, Any]:
        """Diseases that fit a patient's observed HPO terms (e.g. HP:0001250) and not the
        ``excluded`` ones, best first: each entry lists the disease's ids (bridged OMIM,
        Orphanet, MONDO records), its score, and per term the disease term it met, the common
        ancestor, the contribution and the annotation edge with its source record.
        ``withhold_references`` (e.g. ["PMID:28513613"]): rank as if those publications did
        not exist, leaving out the annotation lines that cite them."""
        found = rank_diseases(
            agent.store,
            agent.cache_dir,
            observed,
            excluded or [],
            top=max(1, min(top, 100)),
            withhold=withhold_references or [],
        )
        return _plain(found)

    @tool()
    def schema_summary() -> str:
        """The graph's schema in Markdown: labels, relationship types, properties, provenance."""
        return render_markdown(agent.schema)

    @tool()
    def read_cypher(query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one read-only Cypher query (checked by the agent's gate: no writes, allowed
        procedures only, bounded paths, at most 200 rows). Values go in ``params``."""
        runner = QueryRunner(agent.store, agent.budget)
        _, rows = CypherGate().run(runner, query, params or {}, step="mcp:cypher")
        return _plain(rows)

    return server


def _plain(value: Any) -> Any:
    """Models and engine values as JSON-ready data (MCP structured content)."""
    return to_jsonable_python(value)


class RequireApiKey:
    """ASGI middleware: every request needs ``X-API-Key`` when ``key`` is set (else 401)."""

    def __init__(self, app: ASGIApp, key: str | None) -> None:
        self.app, self.key = app, key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.key is not None:
            headers = dict(scope.get("headers") or [])
            given = headers.get(API_KEY_HEADER.lower().encode(), b"")
            if not secrets.compare_digest(given, self.key.encode()):
                body = b'{"error": "missing or wrong API key; send it in the X-API-Key header"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
