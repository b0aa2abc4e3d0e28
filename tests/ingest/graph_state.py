"""Read-only views of the session graph that tests compare before and after an operation."""

from __future__ import annotations

import json

from biokg.core.store import GraphStore
from biokg.ingest.node_facts import FACTS


def edge_counts(store: GraphStore, source: str) -> dict[str, int]:
    """Edges per relationship type written by one source."""
    return {r["type"]: r["count"] for r in store.relationship_counts() if r["source"] == source}


def snapshot(store: GraphStore) -> tuple:
    """Everything a bad input must not change: counts per label, per type+source, versions
    (counted as ``biokg status`` counts them)."""
    versions = store.read("MATCH (v:SourceVersion) RETURN v.id AS id, v.current AS c ORDER BY id")
    return (store.label_counts(), store.relationship_counts(), versions)


#: Properties that say when or by which load something was written, not what the graph states.
VOLATILE_NODE = ("embedding", "embedding_hash", "embedding_model")
VOLATILE_EDGE = ("retrieved_at", "load_id")


def graph_dump(store: GraphStore) -> dict[str, dict]:
    """Every entity node's and edge's properties by id, volatile fields left out (node facts
    without their load ids), for comparing two graphs whole. Read with the engine's paged SQL
    scans: over Bolt, ``properties(n)`` of every node took 3.5 s a dump of the build-order
    test's small graphs (5 dumps a run) and several times the scans' time on larger ones."""
    nodes, ids = {}, {}
    for row in store.scan_nodes("Entity", None):
        ids[row.pop("rid")] = row["id"]
        props = {k: v for k, v in row.items() if k not in VOLATILE_NODE}
        if props.get(FACTS):
            facts = json.loads(props[FACTS])
            props[FACTS] = json.dumps(
                {s: {k: v for k, v in f.items() if k != "load"} for s, f in facts.items()},
                sort_keys=True,
            )
        nodes[row["id"]] = props
    edges = {}
    for rel_type in store.relationship_types():
        for row in store.scan_edges(rel_type, None):
            ends = ids[row.pop("out")], ids[row.pop("in")]
            props = {k: v for k, v in row.items() if k not in (*VOLATILE_EDGE, "rid")}
            edges[(rel_type, props.get("id"), *ends)] = props
    return {"nodes": nodes, "edges": edges}


def assert_same_graph(first: dict, second: dict) -> None:
    """Two :func:`graph_dump` results are equal; else the first few differences of each kind."""
    for kind in ("nodes", "edges"):
        a, b = first[kind], second[kind]
        only_a, only_b = sorted(set(a) - set(b))[:5], sorted(set(b) - set(a))[:5]
        differ = [k for k in sorted(set(a) & set(b)) if a[k] != b[k]][:5]
        assert not (only_a or only_b or differ), (
            f"{kind}: only in the first {only_a}; only in the second {only_b}; "
            f"different: {[(k, a[k], b[k]) for k in differ]}"
        )
