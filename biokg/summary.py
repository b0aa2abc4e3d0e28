"""What is in the graph: counts per label, per relationship type and source, and loaded versions."""

from __future__ import annotations

import json
from typing import Any

from biokg import cypher
from biokg.store import GraphStore


def graph_summary(store: GraphStore) -> dict[str, Any]:
    """Counts and source versions, as plain data (the CLI prints it as a table or JSON)."""
    versions = store.read(cypher.load("status_sources"))
    for row in versions:
        row["counts"] = json.loads(row["counts"]) if row.get("counts") else {}
        row["checksums"] = json.loads(row["checksums"]) if row.get("checksums") else {}
    return {
        "engine": store.dialect.name,
        "database": store.database,
        "labels": {r["label"]: r["count"] for r in store.read(cypher.load("status_labels"))},
        "relationships": store.read(cypher.load("status_relationships")),
        "edges_missing_provenance": store.read(cypher.load("status_missing_provenance"))[0][
            "missing"
        ],
        "sources": versions,
    }
