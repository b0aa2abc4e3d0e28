"""Load KGX files written by ``biokg export kgx`` (JSON Lines) back into a graph.

The other half of the KGX round trip (issue 27: KGX → graph → KGX gives the same files). Each
node becomes an ``:Entity`` with its graph label (``biokg_label``) and the values the export
wrote (``name``, ``description``, ``synonyms``, ``xrefs``, ``sources``); each edge, its graph
relationship type (``biokg_type``) with its properties under their graph names (the inverse of
:data:`biokg.export.kgx.EDGE_SLOTS`); each source release in ``graph_metadata.json``, a current
``:SourceVersion``. Ids go back to the graph's spelling (:func:`biokg.export.kgx.graph_curie`).

What KGX does not carry is not made up: ``knowledge_level``/``agent_type`` are derived from
the evidence codes on export, so they are not stored; a node's per-source facts
(``source_facts``) and an edge's ``license``/``retrieved_at`` were never exported. Writes use
the build's own statements (``write_create_nodes``, ``write_create_edges``,
``write_source_version``) into a graph that does not hold these ids yet, 5,000 rows at a time;
the id → label map of the nodes stays in memory (one short string per node) so that each
edge's endpoints are matched on their label's unique index.

Only JSON Lines is read: a TSV cell has lost its type (``1`` or ``"1"``, a one-item list or a
string), which the round trip must keep.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biokg import cypher
from biokg.core.store import GraphStore, constraint_statements
from biokg.core.streams import chunks
from biokg.errors import AgentInputError
from biokg.export.kgx import EDGE_SLOTS, NODE_FIELDS, graph_curie, graph_spelling
from biokg.schema import GraphSchema

BATCH_ROWS = 5_000
#: Edge fields the export derives or names the edge by; not stored as properties.
DERIVED_EDGE_FIELDS = frozenset(
    {"subject", "predicate", "object", "biokg_type", "knowledge_level", "agent_type"}
)
_PROPERTY_OF = {slot: key for key, slot in EDGE_SLOTS.items()}


@dataclass(frozen=True)
class KgxLoad:
    """What a load wrote."""

    nodes: int
    edges: int
    releases: int


def load_kgx(store: GraphStore, schema: GraphSchema, folder: Path) -> KgxLoad:
    """Load ``nodes.jsonl``, ``edges.jsonl`` and ``graph_metadata.json`` from ``folder``.

    Raises:
        AgentInputError: a file is missing, or a record lacks ``biokg_label``/``biokg_type``
            (the file was not written by ``biokg export kgx``).
        SchemaError: a label or relationship type schema/ does not declare.
        StoreError: the engine refused a write (e.g. a node id the graph already holds).
    """
    paths = [folder / name for name in ("nodes.jsonl", "edges.jsonl", "graph_metadata.json")]
    if missing := [str(p) for p in paths if not p.is_file()]:
        raise AgentInputError(
            f"not a KGX export: missing {', '.join(missing)} (write one with "
            "`biokg export kgx --out DIR`, JSON Lines)"
        )
    for statement in constraint_statements(schema):  # endpoints matched on unique indexes
        store.write(statement)
    labels: dict[str, str] = {}
    nodes = edges = 0
    for batch in chunks(_records(paths[0]), BATCH_ROWS):
        by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in batch:
            node = node_properties(record, paths[0])
            labels[node["id"]] = label = record["biokg_label"]
            by_label[label].append(node)
        for label, rows in sorted(by_label.items()):
            schema.label(label)  # a declared label, so safe to name in Cypher
            store.write(cypher.load("write_create_nodes").replace("{label}", label), {"rows": rows})
            nodes += len(rows)
    for batch in chunks(_records(paths[1]), BATCH_ROWS):
        by_type: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        for record in batch:
            row = edge_row(record, paths[1], schema)
            ends = (labels[row["subject"]], labels[row["object"]])
            by_type[(record["biokg_type"], *ends)].append(row)
        for (rel, start, end), rows in sorted(by_type.items()):
            schema.relationship(rel)
            statement = cypher.load("write_create_edges")
            for name, value in (("{type}", rel), ("{from}", start), ("{to}", end)):
                statement = statement.replace(name, value)
            store.write(statement, {"rows": rows})
            edges += len(rows)
    metadata = json.loads(paths[2].read_text(encoding="utf-8"))
    for release in metadata.get("sources", []):
        props = {key: release[key] for key in ("version", "license", "retrieved_at")}
        props["source"] = source = release["infores"]
        params = {"source": source, "id": f"{source}@{release['version']}", "props": props}
        store.write(cypher.load("write_source_version"), params)
    return KgxLoad(nodes=nodes, edges=edges, releases=len(metadata.get("sources", [])))


def node_properties(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """A KGX node record as the node's graph properties.

    Raises:
        AgentInputError: the record has no ``biokg_label``.
    """
    _require(record, "biokg_label", path)
    node: dict[str, Any] = {"id": graph_curie(record["id"])}
    for column, key in NODE_FIELDS.items():
        if column in record:
            node[key] = record[column]
    if "xrefs" in node:
        node["xrefs"] = [graph_spelling(x) for x in node["xrefs"]]
    return node


def edge_row(record: dict[str, Any], path: Path, schema: GraphSchema) -> dict[str, Any]:
    """A KGX edge record as a ``write_create_edges`` row (``subject``, ``object``, ``props``).

    Raises:
        AgentInputError: the record has no ``biokg_type``.
        SchemaError: the type is not declared in schema/.
    """
    _require(record, "biokg_type", path)
    of_type = schema.relationship(record["biokg_type"]).predicate_qualifiers
    props = {
        _PROPERTY_OF.get(slot, slot): value
        for slot, value in record.items()
        if slot not in DERIVED_EDGE_FIELDS and slot not in of_type
    }
    subject, object_ = graph_curie(record["subject"]), graph_curie(record["object"])
    return {"subject": subject, "object": object_, "props": props}


def _require(record: dict[str, Any], key: str, path: Path) -> None:
    if key not in record:
        raise AgentInputError(
            f"{path}: record {record.get('id')!r} has no {key!r}; only KGX files written by "
            "`biokg export kgx` name the graph's labels and types"
        )


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)
