"""``biokg export rdf``: the graph, or a seed's neighbourhood, written as N-Quads or TriG.

Rows are streamed from the engine (:mod:`biokg.export.reader`; nodes into a temporary file
first), then written as RDF text a batch at a time (:class:`biokg.export.rdf_terms.RdfWriter`
makes N-Triples terms; no rdflib objects): N-Quads lines and TriG blocks (a named graph may
recur; TriG merges them) concatenate into one valid document, so memory stays flat however large
the graph. With ``sources``, only those sources' edges are written, and only the nodes they
touch (and the seed).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from biokg import cypher
from biokg.core.files import atomic_path
from biokg.core.store import GraphStore
from biokg.core.streams import chunks, read_ahead
from biokg.errors import AgentInputError, EntityNotFoundError
from biokg.export import reader
from biokg.export.rdf_terms import RdfWriter, Triple
from biokg.schema import GraphSchema

RdfFormat = Literal["nquads", "trig"]
FORMATS = ("nquads", "trig")
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
        sources: infores ids whose edges to export (the CLI resolves source names to them);
            None: all.

    Raises:
        AgentInputError: an unknown format or ``hops`` outside 0..3.
        EntityNotFoundError: no node has the id ``seed``.
        StoreError: the engine refused a read.
    """
    if fmt not in FORMATS:
        raise AgentInputError(f"unknown RDF format {fmt!r}; use one of {', '.join(FORMATS)}")
    writer = RdfWriter(schema, releases=reader.releases(store))
    truncated = False
    touched: set[str] = {seed} if seed else set()  # the ends of the edges written
    if seed is None:
        edges: Iterator[dict[str, Any]] = read_ahead(reader.edges_by_type(store, sources))
        # a one-source export's nodes: those its edges touch, sought once they are written
        nodes = reader.nodes(store, None if sources is None else touched)
    else:
        ids, truncated = _neighbourhood(store, seed, hops)
        edges = iter(store.read(cypher.load("rdf_edges_among"), {"ids": ids, "sources": sources}))
        nodes = iter(store.read(cypher.load("rdf_nodes_by_id"), {"ids": ids}))
    counts = {"nodes": 0, "edges": 0, "quads": 0}
    for batch in chunks(edges, BATCH_ROWS):
        named: dict[str, list[Triple]] = {}
        described: list[Triple] = []
        for row in batch:
            props = row["props"]
            graph, about = writer.release(props["source"], props.get("source_version") or "unknown")
            described += about
            named.setdefault(graph, []).extend(writer.edge(row)[1])
            touched.update((row["subject"], row["object"]))
        counts["edges"] += len(batch)
        counts["quads"] += _write(out, fmt, described, named)
    for batch in chunks(nodes, BATCH_ROWS):
        if sources is not None:  # a one-source export: only the nodes its edges touch
            batch = [row for row in batch if row["id"] in touched]
        counts["nodes"] += len(batch)
        counts["quads"] += _write(out, fmt, [t for row in batch for t in writer.node(row)], {})
    return ExportReport(**counts, graphs=writer.graph_count, truncated=truncated)


def _write(
    out: IO[bytes], fmt: RdfFormat, default: list[Triple], named: dict[str, list[Triple]]
) -> int:
    """Append default-graph and named-graph triples as N-Quads lines or TriG blocks; how many."""
    if fmt == "nquads":
        lines = [f"{s} {p} {o} .\n" for s, p, o in default]
        for graph, triples in named.items():
            lines += [f"{s} {p} {o} {graph} .\n" for s, p, o in triples]
    else:
        lines = ["{\n", *(f"{s} {p} {o} .\n" for s, p, o in default), "}\n"] if default else []
        for graph, triples in named.items():
            lines += [f"{graph} {{\n", *(f"{s} {p} {o} .\n" for s, p, o in triples), "}\n"]
    out.write("".join(lines).encode())
    return len(default) + sum(len(t) for t in named.values())


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
