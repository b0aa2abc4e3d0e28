"""Edges whose Drug end a source knows only by name, put on Drug nodes in the identity step.

A FAERS report names its drugs by ``medicinalproduct`` text (``VIOXX``, ``MAGNESIUM SULFATE``) or
by UNII; its source emits :class:`~biokg.ingest.records.NamedEdges` and the build resolves them
here against every Drug node known at that point (the graph's, earlier sources', the source's
own), with the rules of :class:`~biokg.ingest.identity.DrugIndex` (an id, an exact name, a
salt-free name; exactly one candidate). Every name is reported: resolved per rule, ambiguous,
unresolved (docs/decisions/0005-adverse-event-terms.md).
"""

from __future__ import annotations

import dataclasses

import polars as pl

from biokg.ingest.identity import (
    EXAMPLES,
    DrugIndex,
    Match,
    MergeReport,
    NameReport,
    drug_entries,
)
from biokg.ingest.records import DRUG_NAME, NamedEdges, Records, finalize_edges
from biokg.schema import GraphSchema


def resolve_named_edges(
    records: Records, known: pl.DataFrame, schema: GraphSchema, *, report: MergeReport
) -> Records:
    """Turn a source's named edges into edges onto known Drug nodes, reporting every name.

    A name resolves when :meth:`DrugIndex.lookup` gives exactly one node (an id, an exact
    name, then a salt-free name); the edge records the ``match_rule`` and the ``drug_names``
    as written. Names with several candidates (ambiguous) or none are dropped and counted in
    ``report.names``. Resolved Drug nodes the source does not define become stubs.

    Args:
        known: every Drug node known now (graph, earlier sources, this source's own).
    """
    if not records.named_edges:
        return records
    index = DrugIndex.build(drug_entries(known))
    mentions = pl.concat(
        [n.mentions.select("source_record", DRUG_NAME) for n in records.named_edges.values()]
    ).unique()
    resolved: dict[str, Match] = {}
    names = report.names
    for name in sorted(mentions[DRUG_NAME].unique()):
        matches = index.lookup(name)
        if len(matches) == 1:
            resolved[name] = matches[0]
        elif matches:
            names.ambiguous_names.append((name, [m.id for m in matches]))
    _count_mentions(mentions, resolved, names)
    table = pl.DataFrame(
        {
            DRUG_NAME: list(resolved),
            "drug_id": [m.id for m in resolved.values()],
            "match_rule": [m.rule for m in resolved.values()],
        },
        schema={DRUG_NAME: pl.String, "drug_id": pl.String, "match_rule": pl.String},
    )
    edges = dict(records.edges)
    drug_ids: set[str] = set()
    for rel_type, named in sorted(records.named_edges.items()):
        frame = _edges_from_mentions(named, table, rel_type, schema)
        names.edges += frame.height
        drug_ids.update(frame[named.end].to_list())
        if rel_type in edges:
            both = pl.concat([edges[rel_type].drop("id"), frame.drop("id")], how="diagonal_relaxed")
            frame = finalize_edges(both, rel_type, schema)
        edges[rel_type] = frame
    return dataclasses.replace(
        records, edges=edges, stubs=_with_drug_stubs(records, drug_ids), named_edges={}
    )


def _count_mentions(mentions: pl.DataFrame, resolved: dict[str, Match], names: NameReport) -> None:
    ambiguous = {n for n, _ in names.ambiguous_names}
    per_name = mentions.group_by(DRUG_NAME).len().sort("len", DRUG_NAME, descending=[True, False])
    names.mentions = mentions.height
    for name, count in per_name.iter_rows():
        if name in resolved:
            rule = resolved[name].rule
            names.resolved[rule] = names.resolved.get(rule, 0) + count
        elif name in ambiguous:
            names.ambiguous += count
        else:
            names.unresolved += count
            if len(names.unresolved_examples) < EXAMPLES:
                names.unresolved_examples.append(name)


def _edges_from_mentions(
    named: NamedEdges, table: pl.DataFrame, rel_type: str, schema: GraphSchema
) -> pl.DataFrame:
    """One edge per resolved (drug, other end, qualifiers); counts per NamedEdges.counts."""
    frame = named.mentions.join(table, on=DRUG_NAME, how="inner").rename({"drug_id": named.end})
    key = ["subject", "object", *schema.relationship(rel_type).qualifiers]
    counts = list(named.counts)
    special = {*key, *counts, DRUG_NAME, "match_rule", "source_record"}
    rest = [c for c in frame.columns if c not in special]
    per_record = (
        frame.sort(*key, "source_record", DRUG_NAME)
        .group_by(*key, "source_record", maintain_order=True)
        .agg(
            *(pl.col(c).max() for c in counts),  # one record counts once per edge
            *(pl.col(c).first() for c in rest),
            pl.col(DRUG_NAME),
            pl.col("match_rule"),
        )
    )
    edges = per_record.group_by(*key, maintain_order=True).agg(
        *(pl.col(c).sum() for c in counts),
        *(pl.col(c).first() for c in rest),
        pl.col("source_record").str.join(","),
        pl.col(DRUG_NAME).explode().unique().sort().alias("drug_names"),
        # "id" < "name" < "name-salt": alphabetical is strongest first
        pl.col("match_rule").explode().unique().sort().str.join(","),
    )
    return finalize_edges(edges.sort(*key), rel_type, schema).select("id", pl.exclude("id"))


def _with_drug_stubs(records: Records, drug_ids: set[str]) -> dict[str, pl.DataFrame]:
    """The records' stubs plus the resolved Drug nodes the records do not define."""
    defined = records.nodes.get("Drug")
    new = drug_ids - set(defined["id"].to_list() if defined is not None else [])
    stubs = dict(records.stubs)
    frame = pl.DataFrame({"id": sorted(new)}, schema={"id": pl.String}).with_columns(
        pl.lit("biolink:Drug").alias("category")
    )
    if "Drug" in stubs:
        frame = pl.concat([stubs["Drug"], frame], how="diagonal_relaxed").unique(
            "id", keep="first", maintain_order=True
        )
    stubs["Drug"] = frame.sort("id")
    return stubs
