"""``biokg export rdf``: the graph, or a seed's neighbourhood, written as N-Quads or TriG.

Rows are streamed from the engine into a temporary file, then turned into RDF a batch at a
time, each batch serialised and appended: N-Quads lines and TriG blocks (a named graph may
recur; TriG merges them) concatenate into one valid document, so memory stays flat however
large the graph.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from biokg import cypher
from biokg.errors import AgentInputError, EntityNotFoundError
from biokg.ingest.files import atomic_path
from biokg.ingest.sources import SOURCES
from biokg.rdf import RdfWriter, chunks, new_dataset
from biokg.schema import GraphSchema
from biokg.store import GraphStore

RdfFormat = Literal["nquads", "trig"]
FORMATS: dict[str, str] = {"nquads": "nquads", "trig": "trig"}
BATCH_ROWS = 5_000
MAX_HOPS = 3
#: A seeded export stops growing at this many nodes (hubs such as "All" reach everything).
MAX_SEED_NODES = 20_000


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    nodes: int
    edges: int
    quads: int
    graphs: int
    truncated: bool = False


def source_ids(names: Iterable[str]) -> list[str]:
    """Infores ids of the named sources (``chembl`` or ``infores:chembl`` alike).

    Raises:
        AgentInputError: a name is no registered source.
    """
    by_name = {name: module.SOURCE.infores for name, module in SOURCES.items()}
    known = set(by_name.values())
    out = []
    for name in names:
        infores = by_name.get(name, name if name in known else None)
        if infores is None:
            raise AgentInputError(
                f"unknown source {name!r}; known: {', '.join(sorted(by_name))} "
                f"(or their infores ids: {', '.join(sorted(known))})"
            )
        out.append(infores)
    return out


def export_rdf(
    store: GraphStore,
    schema: GraphSchema,
    out: IO[bytes],
    *,
    fmt: RdfFormat = "nquads",
    seed: str | None = None,
    hops: int = 1,
    sources: list[str] | None = None,
) -> ExportReport:
    """Write the graph (or ``seed`` and what lies within ``hops`` of it) as RDF to ``out``.

    Args:
        sources: infores ids whose edges to export (:func:`source_ids`); None: all.

    Raises:
        AgentInputError: an unknown format or ``hops`` outside 0..3.
        EntityNotFoundError: no node has the id ``seed``.
        StoreError: the engine refused a read.
    """
    if fmt not in FORMATS:
        raise AgentInputError(f"unknown RDF format {fmt!r}; use one of {', '.join(FORMATS)}")
    writer = RdfWriter(schema, releases=_releases(store))
    truncated = False
    if seed is None:
        nodes: Iterator[dict[str, Any]] = _spooled(store.stream(cypher.load("rdf_nodes")))
        edges = _spooled(store.stream(cypher.load("rdf_edges"), {"sources": sources}))
    else:
        ids, truncated = _neighbourhood(store, seed, hops)
        nodes = iter(store.read(cypher.load("rdf_nodes_by_id"), {"ids": ids}))
        edges = iter(store.read(cypher.load("rdf_edges_among"), {"ids": ids, "sources": sources}))
    counts = {"nodes": 0, "edges": 0, "quads": 0}
    for kind, rows in (("nodes", nodes), ("edges", edges)):
        for batch in chunks(rows, BATCH_ROWS):
            dataset = new_dataset()
            for row in batch:
                if kind == "nodes":
                    writer.add_node(dataset.default_graph, row)
                else:
                    props = row["props"]
                    graph = writer.release_graph(
                        dataset, props["source"], props.get("source_version") or "unknown"
                    )
                    writer.add_edge(graph, row)
            counts[kind] += len(batch)
            counts["quads"] += len(dataset)
            out.write(dataset.serialize(format=FORMATS[fmt], encoding="utf-8"))
    return ExportReport(**counts, graphs=writer.graph_count, truncated=truncated)


def _spooled(rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``rows`` read to the end into a temporary file first, then yielded from it: the engine's
    command stays open only while reading (the embedded engine stops any command running past
    BIOKG_COMMAND_TIMEOUT_S, and making RDF is slower than reading), and memory stays flat."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for row in rows:
            spool.write(json.dumps(row) + "\n")
        spool.seek(0)
        for line in spool:
            yield json.loads(line)


def _releases(store: GraphStore) -> dict[tuple[str, str], dict[str, Any]]:
    rows = store.read(cypher.load("rdf_releases"))
    return {(row["source"], row["version"]): row for row in rows}


def _neighbourhood(store: GraphStore, seed: str, hops: int) -> tuple[list[str], bool]:
    if not 0 <= hops <= MAX_HOPS:
        raise AgentInputError(f"--hops must be between 0 and {MAX_HOPS}, not {hops}")
    if not store.read(cypher.load("rdf_nodes_by_id"), {"ids": [seed]}):
        raise EntityNotFoundError(
            f"no node has the id {seed!r}; find ids by name with `biokg search NAME`"
        )
    found, frontier = {seed}, [seed]
    for _ in range(hops):
        limit = MAX_SEED_NODES - len(found) + 1
        rows = store.read(cypher.load("rdf_neighbour_ids"), {"ids": frontier, "limit": limit})
        frontier = [r["id"] for r in rows if r["id"] not in found]
        found.update(frontier)
        if len(found) > MAX_SEED_NODES or not frontier:
            break
    ids = sorted(found)
    return ids[:MAX_SEED_NODES], len(found) > MAX_SEED_NODES


def export_file(store: GraphStore, schema: GraphSchema, path: Path, **options: Any) -> ExportReport:
    """:func:`export_rdf` into ``path`` (written whole or not at all)."""
    with atomic_path(path) as partial, partial.open("wb") as out:
        return export_rdf(store, schema, out, **options)
