"""What is in the graph: counts per label, per relationship type and source, and loaded versions."""

from __future__ import annotations

import json
from typing import Any

from biokg import cypher
from biokg.core.store import GraphStore


def graph_summary(store: GraphStore) -> dict[str, Any]:
    """Counts and source versions, as plain data (the CLI prints it as a table or JSON)."""
    versions = store.read(cypher.load("status_sources"))
    for row in versions:
        row["counts"] = json.loads(row["counts"]) if row.get("counts") else {}
        row["checksums"] = json.loads(row["checksums"]) if row.get("checksums") else {}
    return {
        "engine": store.dialect.name,
        "database": store.database,
        "labels": store.label_counts(),
        "relationships": store.relationship_counts(),
        "edges_missing_provenance": store.read(cypher.load("status_missing_provenance"))[0][
            "missing"
        ],
        "sources": versions,
    }


def merge_summary(store: GraphStore) -> dict[str, Any]:
    """Where sources met (``biokg status --merges``): per label, nodes per source and nodes
    asserted by 1..n sources; drug merges by rule and the disease bridge by mapping set, with
    conflicts and what stayed unmatched (from the reports kept with each current load). The
    bridge is the load whose report counts diseases bridged: its infores id is read from the
    graph, not from the ingest pipeline."""
    reports = {
        r["source"]: json.loads(r["report"])
        for r in store.read(cypher.load("status_merge_reports"))
    }
    infores = next((s for s, r in reports.items() if "diseases_bridged" in r), None)
    labels: dict[str, dict[str, Any]] = {}
    for row in store.read(cypher.load("status_merges"), {"bridge": infores}):
        entry = labels.setdefault(row["label"], {"nodes": 0, "per_source": {}, "by_sources": {}})
        sources = sorted(set(row["sources"] or []))
        entry["nodes"] += row["nodes"]
        for source in sources:
            entry["per_source"][source] = entry["per_source"].get(source, 0) + row["nodes"]
        key = str(len(sources))
        entry["by_sources"][key] = entry["by_sources"].get(key, 0) + row["nodes"]
    bridge = reports.pop(infores, None)
    if bridge:
        bridge["diseases_unbridged"] = {
            prefix: total - bridge["diseases_bridged"].get(prefix, 0)
            for prefix, total in bridge["diseases"].items()
        }
    drugs = {
        source: {
            **{k: r[k] for k in ("drugs", "merged", "unmatched", "conflicts")},
            # a report kept before the lists were capped holds all of them
            "conflicts_total": r.get("conflicts_total", len(r["conflicts"])),
        }
        for source, r in reports.items()
        if r.get("drugs")
    }
    return {"labels": dict(sorted(labels.items())), "drugs": drugs, "disease_bridge": bridge}


def load_history(store: GraphStore, *, limit: int = 50) -> list[dict[str, Any]]:
    """Every load newest first (``biokg status --history``), each with the report of the refresh
    that made it (None for a build)."""
    rows = store.read(cypher.load("refresh_history"), {"limit": limit})
    for row in rows:
        row["refresh"] = json.loads(row["refresh"]) if row.get("refresh") else None
    return rows
