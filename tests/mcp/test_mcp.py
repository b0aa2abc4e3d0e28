"""``biokg mcp`` over stdio, driven by the ``mcp`` package's own client, on the session graph."""

from __future__ import annotations

import dataclasses
import json

import anyio
import pytest
from mcp import ClientSession
from stdio_session import with_session

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.schema import load_schema

SILDENAFIL = "CHEMBL.COMPOUND:CHEMBL192"  # Viagra; targets PDE5A in ChEMBL's mechanisms
PDE5A = "NCBIGene:8654"
TOOLS = {"search_entities", "entity_details", "neighbourhood", "ask", "schema_summary"}


async def _call(session: ClientSession, tool: str, **arguments: object) -> object:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return (
        result.structured_content["result"]
        if "result" in (result.structured_content or {})
        else result.structured_content
    )


def test_the_tools_answer_from_the_graph(agent_graph: GraphStore, settings: Settings) -> None:
    async def work(session: ClientSession) -> None:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert TOOLS | {"read_cypher"} <= names
        [best, *_] = await _call(session, "search_entities", text="Viagra")
        assert best["id"] == SILDENAFIL
        card = await _call(session, "entity_details", curie=SILDENAFIL)
        assert card["label"] == "Drug" and "VIAGRA" in card["synonyms"]
        assert {s["source"] for s in card["sources"]} >= {"infores:chembl", "infores:openfda"}
        hood = await _call(session, "neighbourhood", curie=SILDENAFIL, types="TARGETS")
        [row] = hood["rows"]
        assert row["neighbour"]["id"] == PDE5A and row["edge"]["source"] == "infores:chembl"
        answer = await _call(session, "ask", question="What does Viagra target?")
        claim = next(c for c in answer["claims"] if PDE5A in c["node_ids"])
        assert claim["sources"][0]["source_record"].startswith("chembl.sqlite#")
        assert "TARGETS" in await _call(session, "schema_summary")
        rows = await _call(
            session,
            "read_cypher",
            query="MATCH (d:Drug {id: $id})-[:TARGETS]->(g:Gene) RETURN g.symbol AS symbol",
            params={"id": SILDENAFIL},
        )
        assert rows == [{"symbol": "PDE5A"}]
        missing = await session.call_tool("entity_details", {"curie": "CHEMBL.COMPOUND:NOPE"})
        assert missing.is_error and "no node has the id" in json.dumps(missing.model_dump())

    with_session(settings, work)


def test_read_cypher_refuses_a_write_and_the_graph_is_unchanged(
    agent_graph: GraphStore, settings: Settings
) -> None:
    count = "MATCH (n:Entity) RETURN count(n) AS n"
    before = agent_graph.read(count)

    async def work(session: ClientSession) -> None:
        for query in (
            "MATCH (n:Drug {id: $id}) DETACH DELETE n",
            "CREATE (:Entity:Drug {id: 'CHEMBL.COMPOUND:EVIL'}) RETURN 1 AS x",
        ):
            result = await session.call_tool(
                "read_cypher", {"query": query, "params": {"id": SILDENAFIL}}
            )
            text = json.dumps(result.model_dump())
            assert result.is_error and "not read-only" in text, text

    with_session(settings, work)
    assert agent_graph.read(count) == before
    assert agent_graph.read("MATCH (n:Entity {id: $id}) RETURN n.id AS id", {"id": SILDENAFIL})


CARTESIAN = "MATCH (a:Phenotype),(b:Drug) WHERE a.name < b.name RETURN count(*)"
#: Connected, so the gate lets it through, yet quadratic in the phenotypes: only a time limit
#: stops it (about 40 s for 8,000 names on this machine without one).
QUADRATIC = (
    "MATCH (a:Phenotype) WITH collect(a.name) AS xs UNWIND xs AS x UNWIND xs AS y "
    "WITH x, y WHERE x < y RETURN count(*) AS n"
)
NORMAL = "MATCH (n:Phenotype) RETURN n.id AS id LIMIT 1"


async def _bounded(session: ClientSession, query: str, *, within_s: float) -> str:
    """Call read_cypher with ``query``, which must fail within ``within_s``; its error text."""
    start = anyio.current_time()
    result = await session.call_tool("read_cypher", {"query": query})
    took = anyio.current_time() - start
    text = json.dumps(result.model_dump())
    assert result.is_error, text
    assert took <= within_s, f"{took:.1f} s: {text}"
    return text


async def _answers_in_ms(session: ClientSession) -> None:
    """A normal query right afterwards answers at once: the engine is free again."""
    start = anyio.current_time()
    rows = await _call(session, "read_cypher", query=NORMAL)
    assert len(rows) == 1 and anyio.current_time() - start < 1.0


def test_read_cypher_refuses_a_cartesian_product_at_once(
    agent_graph: GraphStore, settings: Settings
) -> None:
    async def work(session: ClientSession) -> None:
        text = await _bounded(session, CARTESIAN, within_s=2.0)
        assert "cartesian product" in text and "(a:Phenotype) and (b:Drug)" in text
        await _answers_in_ms(session)

    with_session(settings, work)


@pytest.mark.slow
def test_served_engine_stops_a_runaway_read_within_its_budget(
    own_unstarted_graph_settings: Settings,
):
    served = dataclasses.replace(own_unstarted_graph_settings, served_timeout_s=3).for_serving()
    assert served.command_timeout_s == 3
    with GraphStore.connect(served) as store:  # started here with the serving limit
        store.apply_schema(load_schema())
        # 8,000 phenotypes, a thousand a command: one command of all of them ran past the 3 s
        # limit on this cold engine with both cores busy (2026-12-07)
        for first in range(1, 8000, 1000):
            store.write(
                "UNWIND range($first, $first + 999) AS i "
                "CREATE (:Entity:Phenotype {id: 'HP:' + toString(9000000 + i), name: 'p' + i})",
                {"first": first},
            )

    async def work(session: ClientSession) -> None:
        text = await _bounded(session, QUADRATIC, within_s=10.0)
        assert "QueryTimeoutError" in text and "stopped" in text
        await _answers_in_ms(session)

    with_session(served, work)
