"""The MCP ``diagnose`` tool over stdio, driven by the ``mcp`` package's own client, on the
session graph (full offline HPO, bridged by MONDO).

HP:0001166 Arachnodactyly, HP:0001083 Ectopia lentis, HP:0002616 Aortic root aneurysm: Marfan
syndrome (OMIM:154700 = ORPHA:558).
"""

from __future__ import annotations

import json

from mcp import ClientSession
from stdio_session import with_session

from biokg.core.settings import Settings
from biokg.core.store import GraphStore

MARFAN_FEATURES = ["HP:0001166", "HP:0001083", "HP:0002616"]


def test_the_diagnose_tool_ranks_diseases_with_cited_edges(
    agent_graph: GraphStore, settings: Settings
) -> None:
    async def work(session: ClientSession) -> None:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert "diagnose" in names
        result = await session.call_tool(
            "diagnose", {"observed": MARFAN_FEATURES, "excluded": ["HP:0001250"], "top": 3}
        )
        assert not result.is_error, result.content
        found = result.structured_content
        assert len(found["ranking"]) == 3 and found["excluded"] == ["HP:0001250"]
        [marfan] = [e for e in found["ranking"] if "OMIM:154700" in e["ids"]]
        assert "ORPHA:558" in marfan["ids"]
        assert all(e["edge"] and e["source_record"] for e in marfan["evidence"][:3])
        # PMID:33436942 (a Marfan cohort) is cited by 32 of Marfan's phenotype lines
        withheld = await session.call_tool(
            "diagnose",
            {"observed": MARFAN_FEATURES, "top": 3, "withhold_references": ["PMID:33436942"]},
        )
        assert not withheld.is_error, withheld.content
        ranked = withheld.structured_content
        assert ranked["withheld"] == ["PMID:33436942"] and ranked["withheld_lines"] == 32
        refused = await session.call_tool("diagnose", {"observed": []})
        assert refused.is_error
        assert "at least one observed HPO term" in json.dumps(refused.model_dump())

    with_session(settings, work)
