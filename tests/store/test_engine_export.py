"""The engine's own export (``GraphStore.export_jsonl``), the road decision 0033 measured against
the paged SQL road: every edge of the asked type, with its properties, in the gzipped JSONL file
the engine writes under its exports folder (benchmarks/bench_engine_export.py reads it back)."""

from __future__ import annotations

import gzip

import orjson

from biokg.core.settings import Settings
from biokg.core.store import GraphStore

_EDGES = "MATCH ()-[r:HAS_LABEL]->() RETURN r.id AS id"


def test_the_engine_exports_every_edge_of_a_type_with_its_properties(
    agent_graph: GraphStore, settings: Settings
) -> None:
    expected = {row["id"] for row in agent_graph.read(_EDGES)}
    assert expected, "the session graph holds no HAS_LABEL edge"
    name = "test-has-label.jsonl.tgz"
    report = agent_graph.export_jsonl(name, ["HAS_LABEL"])
    path = settings.db_dir / "exports" / name
    try:
        lines = [orjson.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]
    finally:
        path.unlink(missing_ok=True)
    edges = [line["c"] for line in lines if line.get("t") == "e"]
    assert {edge["t"] for edge in edges} == {"HAS_LABEL"}
    assert {edge["p"]["id"] for edge in edges} == expected
    assert all(edge["p"]["source"] == "infores:openfda" for edge in edges)
    assert report["edges"] == len(expected)
