"""The one streaming graph reader every export reads through.

Cypher on either engine (Neo4j, or the embedded engine over Bolt), one relationship type per
query, so each engine command stays short (the embedded engine stops any command running past
BIOKG_COMMAND_TIMEOUT_S). On the embedded engine, a whole-graph export reads its SQL in pages by
record id instead (:meth:`GraphStore.scan_edges`, :meth:`GraphStore.scan_nodes`): 4-6 times the
rows per second of Cypher over Bolt, and faster than the engine's own ``EXPORT DATABASE`` read
back (docs/decisions/0033-exports-package.md). Rows are yielded as they come; nothing holds the
graph in memory.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from biokg import cypher
from biokg.core.store import GraphStore
from biokg.core.streams import chunks
from biokg.schema import ENTITY

#: Node ids sought per query by :func:`nodes`.
BATCH_IDS = 5_000


def edges_by_type(
    store: GraphStore,
    sources: list[str] | None,
    *,
    query: str = "rdf_edges",
    types: list[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every edge row, one relationship type per query: each engine command stays short (the
    embedded engine stops any command running past BIOKG_COMMAND_TIMEOUT_S). ``query`` names
    the cypher/ file (its ``-[r]->`` is given the type; ``$sources`` filters); ``types``, the
    relationship types to read of those the graph holds (all by default)."""
    held = store.relationship_types()
    types = held if types is None else [rel for rel in held if rel in types]
    if sources is not None and (written := types_written(store, sources)) is not None:
        types = [rel for rel in types if rel in written]
    template = cypher.load(query)
    for rel in types:  # a type name the engine reported, quoted as a name
        query = template.replace("-[r]->", f"-[r:`{rel.replace('`', '``')}`]->", 1)
        yield from store.stream(query, {"sources": sources})


def types_written(store: GraphStore, sources: list[str]) -> set[str] | None:
    """The relationship types the current loads of ``sources`` wrote, from their recorded
    counts; None when one of them has no such record (then every type is read and filtered)."""
    rows = store.read(cypher.load("rdf_source_types"), {"sources": sources})
    if {row["source"] for row in rows if row["counts"]} != set(sources):
        return None
    written: set[str] = set()
    for row in rows:
        for key, count in json.loads(row["counts"]).items():
            kind, _, rel = key.partition(":")
            if kind == "edges" and count:
                written.add(rel)
    return written


def spooled(rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``rows`` read to the end into a temporary file first, then yielded from it: the engine's
    command stays open only while reading (the embedded engine stops any command running past
    BIOKG_COMMAND_TIMEOUT_S, and making RDF is slower than reading), and memory stays flat."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for row in rows:
            spool.write(json.dumps(row) + "\n")
        spool.seek(0)
        for line in spool:
            yield json.loads(line)


def releases(store: GraphStore) -> dict[tuple[str, str], dict[str, Any]]:
    """The current load of each source, keyed by (infores id, version): what names and
    describes each export's releases."""
    rows = store.read(cypher.load("rdf_releases"))
    return {(row["source"], row["version"]): row for row in rows}


def nodes(store: GraphStore, ids: set[str] | None = None) -> Iterator[dict[str, Any]]:
    """Every entity node as ``rdf_nodes.cypher`` gives them (``ids`` None; :func:`spooled`), or
    only the nodes of ``ids``, sought by id a batch at a time instead of scanning the whole graph
    (a one-source export's nodes, which at release size are a few percent of all nodes)."""
    if ids is None:
        yield from spooled(store.stream(cypher.load("rdf_nodes")))
        return
    for batch in chunks(sorted(ids), BATCH_IDS):
        yield from store.read(cypher.load("rdf_nodes_by_id"), {"ids": batch})


def scanned_nodes(store: GraphStore, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Every entity node as ``{"rid", "label", *columns}`` (its record id, what
    :func:`scanned_edges` gives as an edge's ends, and its label but ``Entity``), read with the
    embedded engine's SQL (:meth:`GraphStore.scan_nodes`)."""
    for row in store.scan_nodes(ENTITY, columns):
        row["label"] = next((label for label in row.pop("labels") if label != ENTITY), None)
        yield row


def scanned_edge_types(
    store: GraphStore, columns: Callable[[str], Sequence[str]]
) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
    """Each relationship type the graph holds, with its edges as ``{"out", "in", *columns(type)}``
    (ends as record ids, as :func:`scanned_nodes` gives them; None where an edge lacks a
    property), read with the embedded engine's SQL (:meth:`GraphStore.scan_edges`). A type at a
    time, so a writer sets up what is the same for every edge of it once, not once an edge."""
    for rel in store.relationship_types():
        yield rel, store.scan_edges(rel, columns(rel))


def scanned_edges(
    store: GraphStore, columns: Sequence[str] = ("id", "source")
) -> Iterator[dict[str, Any]]:
    """Every edge of every type the graph holds, as :func:`edges_by_type` gives them but with
    the ends as record ids and the properties ``columns`` flat (:func:`scanned_edge_types`)."""
    for rel, rows in scanned_edge_types(store, lambda _: columns):
        for row in rows:
            row["subject"], row["object"], row["type"] = row.pop("out"), row.pop("in"), rel
            yield row
