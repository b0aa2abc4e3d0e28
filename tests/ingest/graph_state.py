"""Read-only views of the session graph that tests compare before and after an operation."""

from __future__ import annotations

from biokg import cypher
from biokg.store import GraphStore


def edge_counts(store: GraphStore, source: str) -> dict[str, int]:
    """Edges per relationship type written by one source."""
    rows = store.read(cypher.load("status_relationships"))
    return {r["type"]: r["count"] for r in rows if r["source"] == source}


def snapshot(store: GraphStore) -> tuple:
    """Everything a bad input must not change: counts per label, per type+source, versions."""
    labels = store.read(cypher.load("status_labels"))
    rels = store.read(cypher.load("status_relationships"))
    versions = store.read("MATCH (v:SourceVersion) RETURN v.id AS id, v.current AS c ORDER BY id")
    return (labels, rels, versions)
