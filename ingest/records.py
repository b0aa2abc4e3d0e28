"""Typed node and edge tables of one source load, validated against schema/ before any write.

A source's ``normalize`` returns :class:`Records`: polars frames per label (nodes the source
defines), per label of *stubs* (nodes it only references, e.g. a gene named in an HPO file), and
per relationship type (edges). Frames keep a million-edge load compact; rows become dicts only
batch by batch in the writer.

Edge identity is deterministic: ``id = sha1(source, subject, type, object, qualifiers)``, so an
unchanged source yields byte-identical records and one edge per source for the same assertion.
Records that assert the same edge (several GAF lines with different evidence codes, say) are
merged: list properties are unioned, ``source_record`` lists every originating record.

Some sources name a drug only by text (a FAERS report's ``medicinalproduct``: ``VIOXX``,
``MAGNESIUM SULFATE``). Their edges travel as :class:`NamedEdges` until the build's identity step
(:func:`biokg.ingest.named_edges.resolve_named_edges`) puts each name on a Drug node, because only
then are all known drugs (the graph's, earlier sources', the source's own) at hand.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import polars as pl

from biokg.errors import RecordValidationError
from biokg.schema import GraphSchema, PropertyType, load_schema

ENDPOINT_COLUMNS = ("subject", "object", "subject_label", "object_label")
PROPERTY_DTYPES: dict[PropertyType, pl.DataType] = {
    "str": pl.String(),
    "int": pl.Int64(),
    "float": pl.Float64(),
    "bool": pl.Boolean(),
    "str[]": pl.List(pl.String()),
}


@dataclass(frozen=True)
class Release:
    """What one load of a source is: its version, licence, input checksums and when it was read."""

    source: str
    version: str
    license: str
    checksums: dict[str, str]
    retrieved_at: str = field(
        default_factory=lambda: datetime.now(UTC).replace(microsecond=0).isoformat()
    )
    #: The code that turns the inputs into records: parser version, schema and identity rules'
    #: digests. Part of the load key, so a fix in any of them reaches an existing graph.
    code: dict[str, str] = field(default_factory=dict)
    #: The Drug identity rows of the sources whose drugs this load's drugs merge onto (infores →
    #: digest, build.identity_rows_digest): part of the load key, so a change of their drug
    #: names or xrefs reloads this source, and a release of theirs that keeps them does not
    #: (build.plan_loads).
    context: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.source}@{self.version}"

    @property
    def load_id(self) -> str:
        """Short digest of the exact inputs and the code that read them: edges of other loads of
        this source are stale."""
        keyed = {**self.checksums, **{f"code:{k}": v for k, v in self.code.items()}}
        keyed |= {f"context:{k}": v for k, v in self.context.items()}
        text = "\n".join(f"{name}={digest}" for name, digest in sorted(keyed.items()))
        return hashlib.sha1(text.encode()).hexdigest()[:16]


#: Column of :attr:`NamedEdges.mentions` holding the drug's name as the source wrote it.
DRUG_NAME = "drug_name"


@dataclass(frozen=True)
class NamedEdges:
    """Edges of one type whose Drug end is known only by a name, resolved at identity time.

    ``mentions`` has one row per (source record, drug name, other end): the edge's columns
    without ``id`` and without the Drug end's id column (``end``), plus :data:`DRUG_NAME`. Each
    property in ``counts`` (an int of the type) says what one record contributes (1 or 0); when
    names resolve, mentions of one record that land on the same edge count once (their maximum),
    and an edge's value is the sum over its records.
    """

    end: Literal["subject", "object"]
    mentions: pl.DataFrame
    counts: tuple[str, ...] = ()


@dataclass
class Records:
    """Node, stub-node and edge frames of one load (see module docstring)."""

    nodes: dict[str, pl.DataFrame] = field(default_factory=dict)
    stubs: dict[str, pl.DataFrame] = field(default_factory=dict)
    edges: dict[str, pl.DataFrame] = field(default_factory=dict)
    #: edges whose Drug end is still a name, per type; empty once identities are resolved
    named_edges: dict[str, NamedEdges] = field(default_factory=dict)
    #: per label, terms the release marks obsolete (id, replaced_by, consider): never loaded as
    #: live nodes, but a node of an earlier load that became obsolete stays findable with them
    #: (:mod:`biokg.ingest.delta`)
    retired: dict[str, pl.DataFrame] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out = {f"nodes:{k}": v.height for k, v in sorted(self.nodes.items())}
        out |= {f"edges:{k}": v.height for k, v in sorted(self.edges.items())}
        return out


def provenance_columns(release: Release) -> list[pl.Expr]:
    """The provenance every edge of ``release`` carries (source_record comes per row)."""
    return [
        pl.lit(release.source).alias("source"),
        pl.lit(release.version).alias("source_version"),
        pl.lit(release.retrieved_at).alias("retrieved_at"),
        pl.lit(release.license).alias("license"),
    ]


def category_column(label: str, schema: GraphSchema | None = None) -> pl.Expr:
    """The label's Biolink category from schema/, as the ``category`` column."""
    return pl.lit((schema or load_schema()).label(label).category).alias("category")


def sources_column(release: Release) -> pl.Expr:
    """The ``sources`` list of a node this load asserts: its own infores id."""
    return pl.lit([release.source], dtype=pl.List(pl.String)).alias("sources")


def node_columns(label: str, release: Release, schema: GraphSchema | None = None) -> list[pl.Expr]:
    """What every node ``release`` asserts carries: its label's category and this source."""
    return [category_column(label, schema), sources_column(release)]


def finalize_edges(frame: pl.DataFrame, rel_type: str, schema: GraphSchema) -> pl.DataFrame:
    """Edges with deterministic ids (first column), rows asserting the same edge merged (see
    :func:`_merge_duplicates`)."""
    return _merge_duplicates(frame, rel_type, schema).select("id", pl.exclude("id"))


def _merge_duplicates(frame: pl.DataFrame, rel_type: str, schema: GraphSchema) -> pl.DataFrame:
    """Give each edge its deterministic id and merge rows that assert the same edge.

    ``frame`` has the endpoint columns, provenance columns and type properties; list columns
    (evidence, references, ...) are unioned across merged rows, ``source_record`` joined with
    commas in order of first appearance, other columns keep their first value.
    """
    spec = schema.relationship(rel_type)
    key_parts = [pl.col("source"), pl.col("subject"), pl.lit(rel_type), pl.col("object")]
    key_parts += [  # a qualifier a source does not state counts as empty
        pl.col(q).cast(pl.String).fill_null("") if q in frame.columns else pl.lit("")
        for q in spec.qualifiers
    ]
    keys = frame.select(pl.concat_str(key_parts, separator="|").alias("k"))["k"].to_list()
    ids = pl.Series("id", [hashlib.sha1(k.encode()).hexdigest()[:24] for k in keys], pl.String)
    frame = frame.with_columns(ids)
    if frame["id"].n_unique() == frame.height:
        return frame
    aggs = []
    for name, dtype in frame.schema.items():
        if name == "id":
            continue
        if name == "source_record":
            aggs.append(pl.col(name).unique(maintain_order=True).str.join(","))
        elif isinstance(dtype, pl.List):
            aggs.append(pl.col(name).explode().drop_nulls().unique().sort())
        else:
            aggs.append(pl.col(name).first())
    return frame.group_by("id", maintain_order=True).agg(aggs).select(frame.columns)


def validate(records: Records, schema: GraphSchema, *, source: str) -> None:
    """Check every frame against schema/ before anything is written.

    Raises:
        RecordValidationError: naming the source, label or type, the column and an offending id.
    """
    known: dict[str, set[str]] = {}
    for kind, frames in (("node", records.nodes), ("stub", records.stubs)):
        for label, frame in frames.items():
            where = f"{source}: {kind} label {label}"
            schema.label(label)
            _check_columns(frame, schema.node_properties(label), where, required=("id",))
            _check_prefixes(frame, schema.label(label).id_prefixes, where)
            dupes = frame.filter(pl.col("id").is_duplicated())
            if dupes.height:
                raise RecordValidationError(f"{where}: duplicate id {dupes['id'][0]!r}")
            known.setdefault(label, set()).update(frame["id"].to_list())
    for rel_type, frame in records.edges.items():
        _check_edges(frame, rel_type, schema, known, where=f"{source}: edge type {rel_type}")
    for rel_type, named in records.named_edges.items():
        _check_named_edges(named, rel_type, schema, known, f"{source}: named edges {rel_type}")


def _check_named_edges(
    named: NamedEdges, rel_type: str, schema: GraphSchema, known: dict[str, set[str]], where: str
) -> None:
    """Named edges as :func:`_check_edges` checks edges, with the Drug end given by name."""
    spec, frame = schema.relationship(rel_type), named.mentions
    allowed = spec.from_labels if named.end == "subject" else spec.to_labels
    if "Drug" not in allowed:
        raise RecordValidationError(f"{where}: the {named.end} of {rel_type} cannot be a Drug")
    declared = schema.edge_properties(rel_type)
    not_int = [c for c in named.counts if declared.get(c) != "int"]
    if not_int:
        raise RecordValidationError(f"{where}: counts {not_int} are not int properties")
    if declared.get("match_rule") != "str" or declared.get("drug_names") != "str[]":
        raise RecordValidationError(
            f"{where}: resolved edges carry match_rule (str) and drug_names (str[]); "
            "declare them in schema/relationships.yaml"
        )
    if DRUG_NAME not in frame.columns or named.end in frame.columns:
        raise RecordValidationError(
            f"{where}: mentions need a {DRUG_NAME!r} column instead of {named.end!r}"
        )
    blank = frame.filter(pl.col(DRUG_NAME).str.strip_chars().str.len_chars().fill_null(0) == 0)
    if blank.height:
        raise RecordValidationError(
            f"{where}: empty {DRUG_NAME} in record {blank['source_record'][0]}"
        )
    placeholder = frame.rename({DRUG_NAME: named.end}).with_columns(
        pl.lit("Drug").alias(f"{named.end}_label"), pl.lit("").alias("id")
    )
    _check_edges(placeholder, rel_type, schema, known, where=where, skip_end=named.end)


def _check_edges(
    frame: pl.DataFrame,
    rel_type: str,
    schema: GraphSchema,
    known: dict[str, set[str]],
    *,
    where: str,
    skip_end: str | None = None,
) -> None:
    spec = schema.relationship(rel_type)
    declared = {**schema.edge_properties(rel_type), **dict.fromkeys(ENDPOINT_COLUMNS, "str")}
    required = ("id", *ENDPOINT_COLUMNS, *schema.provenance.required)
    _check_columns(frame, declared, where, required=required)
    for column in schema.provenance.required:
        empty = frame.filter(pl.col(column).str.len_chars() == 0)
        if empty.height:
            record = empty["id"][0] or empty["source_record"][0]
            raise RecordValidationError(f"{where}: empty {column} on edge {record}")
    for end, allowed in (("subject", spec.from_labels), ("object", spec.to_labels)):
        bad = frame.filter(~pl.col(f"{end}_label").is_in(list(allowed)))
        if bad.height:
            raise RecordValidationError(
                f"{where}: {end} {bad[end][0]} is a {bad[f'{end}_label'][0]}; "
                f"schema allows {', '.join(allowed)}"
            )
        if end == skip_end:
            continue
        for label, ids in frame.group_by(f"{end}_label").agg(pl.col(end)).iter_rows():
            missing = set(ids) - known.get(label, set())
            if missing:
                raise RecordValidationError(
                    f"{where}: {end} {sorted(missing)[0]} ({label}) is not among the "
                    f"records' nodes or stubs ({len(missing)} missing)"
                )


def _check_columns(
    frame: pl.DataFrame, declared: dict[str, PropertyType], where: str, *, required: tuple[str, ...]
) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise RecordValidationError(f"{where}: missing required columns {missing}")
    for column, dtype in frame.schema.items():
        if column not in declared:
            raise RecordValidationError(f"{where}: property {column!r} is not declared in schema/")
        expected = PROPERTY_DTYPES[declared[column]]
        if dtype != expected:
            raise RecordValidationError(
                f"{where}: property {column!r} has type {dtype}, schema/ says {declared[column]}"
            )
    for column in required:
        nulls = frame.filter(pl.col(column).is_null())
        if nulls.height:
            first = nulls["id"][0] if "id" in frame.columns else "?"
            raise RecordValidationError(f"{where}: {column} is null (record {first})")


def _check_prefixes(frame: pl.DataFrame, prefixes: tuple[str, ...], where: str) -> None:
    prefix = pl.col("id").str.split_exact(":", 1).struct.field("field_0")
    bad = frame.filter(~prefix.is_in(list(prefixes)) | ~pl.col("id").str.contains(":"))
    if bad.height:
        raise RecordValidationError(
            f"{where}: id {bad['id'][0]!r} does not use an allowed prefix ({', '.join(prefixes)})"
        )
