"""``biokg export kgx``: the graph as KGX nodes and edges files for Biolink tools.

KGX (https://github.com/biolink/kgx, ``specification/kgx-format.md``) is how the Biolink,
Translator and Monarch projects exchange graphs: one record per node (``id``, ``category``,
``name``, ...) and one per edge (``subject``, ``predicate``, ``object`` and knowledge-source
fields), as JSON Lines or TSV. What maps to what, and why: docs/decisions/0022-kgx-export.md.

* Categories and predicates come from schema/ (each label's ``category``, each relationship
  type's ``predicate``); a label or type schema/ does not declare is an error, not a guess.
* ``primary_knowledge_source`` is the edge's ``source`` (an infores id); ``source_record`` and
  ``source_version`` say which record of which release; qualifiers and evidence take their
  Biolink slot names (:data:`EDGE_SLOTS`); ``knowledge_level``/``agent_type`` follow the
  edge's evidence codes (:data:`AUTOMATED_CODES`, :data:`CURATED_CODES`).
* Bridges (``SAME_AS``) are edges like any other: schema/ maps them to ``biolink:same_as``.
* ``graph_metadata.json`` names each source's release, licence and retrieval time, and counts
  nodes per category and edges per predicate.

Rows are streamed (edges one relationship type per query, read ahead by a worker thread; nodes
spooled) and written as they come, so memory stays flat. With ``sources``, only those sources'
edges are written, and only the nodes they touch. A whole-graph export on the embedded engine
reads with ArcadeDB's SQL in pages by record id (:mod:`biokg.export.reader`), ends mapped to
ids from one node scan held in memory (about 100 bytes a node): 2-3 times the rows per second of
Cypher over Bolt, which Neo4j and one-source exports keep (decisions 0022, 0033).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import IO, Any, Literal
from urllib.parse import unquote

import orjson

from biokg.core.files import atomic_path
from biokg.core.store import GraphStore
from biokg.core.streams import chunks, read_ahead
from biokg.errors import AgentInputError
from biokg.export import reader
from biokg.export.rdf_terms import converter
from biokg.export.report import WriteReport
from biokg.schema import GraphSchema

KgxFormat = Literal["jsonl", "tsv"]
FORMATS = ("jsonl", "tsv")
#: KGX node slot -> the node property it holds.
NODE_FIELDS = {
    "name": "name",
    "description": "description",
    "synonym": "synonyms",
    "xref": "xrefs",
    "provided_by": "sources",
}
#: ``biokg_label`` (nodes) and ``biokg_type`` (edges) name the graph's own label and type: two
#: labels share a Biolink category and two types a predicate, and a KGX file loaded back
#: (:mod:`biokg.kgx_import`) must know which.
NODE_COLUMNS = ("id", "category", "biokg_label", *NODE_FIELDS)
#: Edge properties whose Biolink slot has another name (biolink-model ``Association`` slots).
EDGE_SLOTS = {
    "id": "id",
    "source": "primary_knowledge_source",
    "evidence": "has_evidence",
    "references": "publications",
    "frequency": "frequency_qualifier",
    "onset": "onset_qualifier",
    "sex": "sex_qualifier",
    "modifier": "clinical_modifier_qualifier",
}
#: Not on edge records: a release's licence and retrieval time (in graph_metadata.json, once
#: per release) and the build's own load digest.
RELEASE_FIELDS = ("license", "retrieved_at", "load_id")
#: GO and HPO evidence codes made by a pipeline with no curator
#: (https://geneontology.org/docs/guide-go-evidence-codes/; HPO annotation format, "evidence").
AUTOMATED_CODES = frozenset({"IEA"})
#: Evidence codes a curator assigned (experimental, phylogenetic, computational-reviewed,
#: author and curator statements; HPO's PCS and TAS).
CURATED_CODES = frozenset(
    "EXP IDA IPI IMP IGI IEP HTP HDA HMP HGI HEP IBA IBD IKR IRD ISS ISO ISA ISM IGC RCA "
    "TAS NAS IC ND PCS".split()
)
NOT_PROVIDED = "not_provided"
#: Our prefixes that Biolink spells otherwise: ours -> (Biolink's prefix, what its local ids
#: start with). Biolink 4.4.6 (biolink_model.yaml ``prefixes``; Disease ``id_prefixes``) names
#: Orphanet ``ORDO`` = ``http://www.orpha.net/ORDO/``, so ``ORPHA:558`` is ``ORDO:Orphanet_558``,
#: which expands to ORDO's own IRI for the term. Decision 0022, "Prefixes".
BIOLINK_PREFIXES = {"ORPHA": ("ORDO", "Orphanet_")}
#: What Biolink's spellings above expand to (its JSON-LD context).
BIOLINK_URI_PREFIXES = {"ORDO": "http://www.orpha.net/ORDO/"}
#: Characters KGX's CURIE pattern (``kgx.prefix_manager.PrefixManager.is_curie``) refuses in a
#: local id, %-encoded (``%`` too, so decoding gives back exactly the id): a label section,
#: ``DAILYMED:<set id>/boxed_warning``, is ``DAILYMED:<set id>%2Fboxed_warning``.
_CURIE_UNSAFE = str.maketrans({c: f"%{ord(c):02X}" for c in "% /:\t\n\r"})
#: A multi-valued field's separator in KGX TSV.
TSV_LIST = "|"
BATCH_ROWS = 5_000


@dataclass
class KgxReport(WriteReport):
    """What a KGX export wrote, and how long it took."""

    categories: Counter[str] = field(default_factory=Counter)
    predicates: Counter[str] = field(default_factory=Counter)
    #: edges per primary knowledge source
    sources: Counter[str] = field(default_factory=Counter)
    #: the prefixes of the node ids written (as the files spell them)
    prefixes: set[str] = field(default_factory=set)


def kgx_curie(curie: str) -> str:
    """A node id as the KGX files spell it: Biolink's prefix (:data:`BIOLINK_PREFIXES`) and a
    local id KGX reads as a CURIE.

    >>> kgx_curie("ORPHA:558"), kgx_curie("MEDDRA.PT:NAUSEA/VOMITING")
    ('ORDO:Orphanet_558', 'MEDDRA.PT:NAUSEA%2FVOMITING')
    """
    prefix, _, local = biolink_spelling(curie).partition(":")
    return f"{prefix}:{local.translate(_CURIE_UNSAFE)}"


def graph_curie(curie: str) -> str:
    """The inverse of :func:`kgx_curie`: a KGX file's node id as the graph spells it.

    >>> graph_curie("ORDO:Orphanet_558"), graph_curie("MEDDRA.PT:NAUSEA%2FVOMITING")
    ('ORPHA:558', 'MEDDRA.PT:NAUSEA/VOMITING')
    """
    prefix, _, local = graph_spelling(curie).partition(":")
    return f"{prefix}:{unquote(local)}" if "%" in local else f"{prefix}:{local}"


def biolink_spelling(curie: str) -> str:
    """``curie`` with Biolink's prefix where it spells ours otherwise (xrefs: only that)."""
    prefix, sep, local = curie.partition(":")
    if sep and prefix in BIOLINK_PREFIXES:
        theirs, head = BIOLINK_PREFIXES[prefix]
        return f"{theirs}:{head}{local}"
    return curie


_FROM_BIOLINK = {theirs: (ours, head) for ours, (theirs, head) in BIOLINK_PREFIXES.items()}


def graph_spelling(curie: str) -> str:
    """The inverse of :func:`biolink_spelling`."""
    prefix, sep, local = curie.partition(":")
    ours = _FROM_BIOLINK.get(prefix)
    if sep and ours is not None and local.startswith(ours[1]):
        return f"{ours[0]}:{local[len(ours[1]) :]}"
    return curie


def edge_record(row: dict[str, Any], schema: GraphSchema) -> dict[str, Any]:
    """An edge row (``subject``, ``type``, ``object``, ``props``) as a KGX edge record.

    Raises:
        SchemaError: the edge's type is not declared in schema/.
    """
    props = row["props"]
    record = _edge_head(schema, row["type"], kgx_curie(row["subject"]), kgx_curie(row["object"]))
    for key in sorted(props):  # one key order whatever order the engine returns them in
        if props[key] is not None and key not in RELEASE_FIELDS:
            record[EDGE_SLOTS.get(key, key)] = props[key]
    record["knowledge_level"], record["agent_type"] = _knowledge_level(props.get("evidence"))
    return record


def _edge_head(schema: GraphSchema, rel_type: str, subject: str, object_: str) -> dict[str, Any]:
    """An edge record's first fields: its ends (as the files spell them), predicate and type,
    and the qualifiers that complete the predicate."""
    spec = schema.relationship(rel_type)
    return {
        "subject": subject,
        "predicate": spec.predicate,
        "object": object_,
        "biokg_type": rel_type,
        **spec.predicate_qualifiers,
    }


def _knowledge_level(codes: list[str] | None) -> tuple[str, str]:
    """``knowledge_level`` and ``agent_type`` from evidence codes: a curator's code makes a
    manual assertion, IEA alone an automated one; no code (or none known) says nothing."""
    if not codes:
        return NOT_PROVIDED, NOT_PROVIDED
    if not CURATED_CODES.isdisjoint(codes):
        return "knowledge_assertion", "manual_agent"
    if AUTOMATED_CODES.issuperset(codes):
        return "knowledge_assertion", "automated_agent"
    return NOT_PROVIDED, NOT_PROVIDED


def node_record(row: dict[str, Any], schema: GraphSchema) -> dict[str, Any]:
    """A node row (``id``, ``label``, ``name``, ...) as a KGX node record.

    Raises:
        SchemaError: the node's label is not declared in schema/.
    """
    record: dict[str, Any] = {
        "id": kgx_curie(row["id"]),
        "category": [schema.label(row["label"] or "").category],
        "biokg_label": row["label"],
    }
    for column, key in NODE_FIELDS.items():
        if row.get(key):
            record[column] = row[key]
    if "xref" in record:
        record["xref"] = [biolink_spelling(x) for x in record["xref"]]
    return record


def edge_columns(schema: GraphSchema) -> list[str]:
    """The TSV edge header: the core KGX columns, then every edge property schema/ declares
    under its KGX name (a TSV header is written before the first row is read)."""
    core = ["id", "subject", "predicate", "object", "biokg_type", "primary_knowledge_source"]
    core += ["knowledge_level", "agent_type", "source_version", "source_record"]
    declared = {**schema.provenance.required, **schema.provenance.optional}
    for spec in schema.types.values():
        declared.update(spec.properties)
        declared.update(spec.predicate_qualifiers)
    extra = sorted({EDGE_SLOTS.get(k, k) for k in declared if k not in RELEASE_FIELDS})
    return core + [c for c in extra if c not in core]


class _Sink:
    """One KGX file being written, as JSON Lines or TSV with a fixed header."""

    def __init__(self, out: IO[bytes], fmt: KgxFormat, columns: list[str] | tuple[str, ...]):
        self.out, self.fmt, self.columns = out, fmt, list(columns)
        if fmt == "tsv":
            out.write(("\t".join(self.columns) + "\n").encode())

    def write(self, records: list[dict[str, Any]]) -> None:
        if self.fmt == "jsonl":
            newline = orjson.OPT_APPEND_NEWLINE
            self.out.write(b"".join(orjson.dumps(r, option=newline) for r in records))
            return
        lines = ["\t".join(_tsv(r.get(c)) for c in self.columns) + "\n" for r in records]
        self.out.write("".join(lines).encode())


def _tsv(value: Any) -> str:
    """A value as a KGX TSV cell: lists joined by ``|``, booleans lower-case, tabs and line
    breaks (which would break the row) as spaces."""
    if value is None:
        return ""
    if isinstance(value, list):
        return TSV_LIST.join(_tsv(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text.translate(_TSV_SPACES) if "\t" in text or "\n" in text or "\r" in text else text


_TSV_SPACES = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def export_kgx(
    store: GraphStore,
    schema: GraphSchema,
    out_dir: Path,
    *,
    fmt: KgxFormat = "jsonl",
    sources: list[str] | None = None,
) -> KgxReport:
    """Write ``nodes.<fmt>``, ``edges.<fmt>`` and ``graph_metadata.json`` into ``out_dir``
    (each file whole or not at all).

    Args:
        sources: infores ids whose edges to export (the CLI resolves source names to them);
            None: all. Only the nodes those edges touch are written.

    Raises:
        AgentInputError: an unknown format.
        SchemaError: the graph holds a label or relationship type schema/ does not declare.
        StoreError: the engine refused a read.
    """
    if fmt not in FORMATS:
        raise AgentInputError(f"unknown KGX format {fmt!r}; use one of {', '.join(FORMATS)}")
    started = time.perf_counter()
    report = KgxReport()
    if sources is None and store.http_api:  # the embedded engine's SQL road (module docstring)
        ids: dict[str, str] = {}
        _write_nodes(out_dir / f"nodes.{fmt}", fmt, scanned_nodes(store, ids), schema, report)
        records = scanned_edge_records(store, schema, ids)
        _write_edges(out_dir / f"edges.{fmt}", fmt, records, schema, report)
    else:
        touched: set[str] | None = None if sources is None else set()
        rows = read_ahead(reader.edges_by_type(store, sources))
        records = _edge_records(rows, schema, touched)
        _write_edges(out_dir / f"edges.{fmt}", fmt, records, schema, report)
        node_rows = reader.nodes(store, touched)
        _write_nodes(out_dir / f"nodes.{fmt}", fmt, node_rows, schema, report)
    report.nodes, report.edges = report.categories.total(), report.predicates.total()
    _write_metadata(out_dir / "graph_metadata.json", report, reader.releases(store), fmt, schema)
    report.seconds = time.perf_counter() - started
    return report


def _edge_records(
    rows: Iterator[dict[str, Any]], schema: GraphSchema, touched: set[str] | None
) -> Iterator[dict[str, Any]]:
    """Edge rows as KGX edge records (:func:`edge_record`); the ids of their ends (as the graph
    spells them) added to ``touched`` where given."""
    for row in rows:
        if touched is not None:
            touched.update((row["subject"], row["object"]))
        yield edge_record(row, schema)


def _write_edges(
    path: Path,
    fmt: KgxFormat,
    records: Iterator[dict[str, Any]],
    schema: GraphSchema,
    report: KgxReport,
) -> None:
    """KGX edge records into ``path``, counted into ``report``."""
    with _open(path) as out:
        sink = _Sink(out, fmt, edge_columns(schema))
        for batch in chunks(records, BATCH_ROWS):
            sink.write(batch)
            report.predicates.update(r["predicate"] for r in batch)
            report.sources.update(r["primary_knowledge_source"] for r in batch)


def _write_nodes(
    path: Path,
    fmt: KgxFormat,
    rows: Iterator[dict[str, Any]],
    schema: GraphSchema,
    report: KgxReport,
) -> None:
    """Node rows as KGX node records into ``path``, counted into ``report``."""
    with _open(path) as out:
        sink = _Sink(out, fmt, NODE_COLUMNS)
        for batch in chunks(rows, BATCH_ROWS):
            records = [node_record(row, schema) for row in batch]
            sink.write(records)
            report.categories.update(r["category"][0] for r in records)
            report.prefixes.update(r["id"].partition(":")[0] for r in records)


def scanned_nodes(store: GraphStore, ids: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Every entity node as ``rdf_nodes.cypher`` gives them, read with the embedded engine's SQL
    (:func:`biokg.export.reader.scanned_nodes`); ``ids`` is filled with each one's record id ->
    id as the files spell it (:func:`kgx_curie`)."""
    for row in reader.scanned_nodes(store, ["id", *NODE_FIELDS.values()]):
        ids[row.pop("rid")] = kgx_curie(row["id"])
        yield row


def scanned_edge_records(
    store: GraphStore, schema: GraphSchema, ids: dict[str, str]
) -> Iterator[dict[str, Any]]:
    """Every edge between entities as :func:`edge_record` makes it from ``rdf_edges.cypher``'s
    rows, read with the embedded engine's SQL a type at a time
    (:func:`biokg.export.reader.scanned_edge_types`: each property schema/ declares, in the
    records' key order), ends mapped by ``ids`` (:func:`scanned_nodes`).

    Raises:
        SchemaError: the graph holds a relationship type schema/ does not declare.
    """
    scanned = reader.scanned_edge_types(store, lambda rel: exported_properties(schema, rel))
    for rel, rows in scanned:
        slots = [(key, EDGE_SLOTS.get(key, key)) for key in exported_properties(schema, rel)]
        head = _edge_head(schema, rel, "", "")  # the same for every edge of the type
        for row in rows:
            subject, object_ = ids.get(row["out"]), ids.get(row["in"])
            if subject is None or object_ is None:  # an end that is not an entity
                continue
            record = head | {"subject": subject, "object": object_}
            record.update({slot: row[key] for key, slot in slots if row[key] is not None})
            record["knowledge_level"], record["agent_type"] = _knowledge_level(row["evidence"])
            yield record


def exported_properties(schema: GraphSchema, rel_type: str) -> list[str]:
    """The properties of a ``rel_type`` edge that its record carries: those schema/ declares
    (:meth:`GraphSchema.edge_properties`), sorted, less :data:`RELEASE_FIELDS`.

    Raises:
        SchemaError: ``rel_type`` is not declared in schema/.
    """
    return sorted(set(schema.edge_properties(rel_type)) - set(RELEASE_FIELDS))


def curie_map(prefixes: set[str], schema: GraphSchema) -> dict[str, str]:
    """Each node-id prefix of the files -> the URI prefix it expands to: Biolink's for a prefix
    spelt Biolink's way (:data:`BIOLINK_PREFIXES`), bioregistry's for ours (``urn:biokg:id:``
    for a local one such as ``MEDDRA.PT``, as in the RDF export)."""
    expand = converter(tuple(schema.prefixes.items()))
    out = {}
    for prefix in sorted(prefixes):
        out[prefix] = BIOLINK_URI_PREFIXES.get(prefix) or expand.expand(f"{prefix}:")
    return out


@contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    """A file at ``path`` (written as UTF-8), in place only once the block ends
    (:func:`atomic_path`)."""
    with atomic_path(path) as partial, partial.open("wb") as out:
        yield out


def _write_metadata(
    path: Path,
    report: KgxReport,
    loads: dict[tuple[str, str], dict[str, Any]],
    fmt: KgxFormat,
    schema: GraphSchema,
) -> None:
    """KGX graph-level metadata (slots of the KGX ingest-metadata schema where one fits): who
    made the files and when, the categories and predicates used, and each source's release."""
    exported = [row for (source, _), row in sorted(loads.items()) if source in report.sources]
    metadata = {
        "name": "biokg",
        "file_created_by": f"biokg {version('biokg')}",
        "file_creation_date": datetime.now(UTC).isoformat(timespec="seconds"),
        "target_format": f"KGX-{'jsonlines' if fmt == 'jsonl' else 'tsv'}",
        "node_count": report.nodes,
        "edge_count": report.edges,
        "node_categories": sorted(report.categories),
        "edge_predicates": sorted(report.predicates),
        "node_count_by_category": dict(sorted(report.categories.items())),
        "edge_count_by_predicate": dict(sorted(report.predicates.items())),
        "curie_map": curie_map(report.prefixes, schema),
        "sources": [
            {
                "infores": row["source"],
                "version": row["version"],
                "license": row["license"],
                "retrieved_at": row["retrieved_at"],
                "edge_count": report.sources[row["source"]],
            }
            for row in exported
        ],
    }
    with _open(path) as out:
        out.write(orjson.dumps(metadata, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
