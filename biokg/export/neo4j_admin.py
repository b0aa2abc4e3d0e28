"""CSV files for ``neo4j-admin database import full``: the fastest way to build a large Neo4j.

One file per label and per relationship type, headers in neo4j-admin's typed form
(``id:ID(Entity)``, ``synonyms:string[]``, ``:START_ID(Entity)``, ``:TYPE``). Values are quoted
with ``"`` and embedded quotes doubled, so names like ``Crohn's``, ``3',5'-cyclic AMP``, commas and
newlines survive (import with ``--multiline-fields=true``). Array elements are joined with U+001F
(unit separator), which never occurs in source text, so a ``;`` inside a synonym stays intact.
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from biokg.errors import RecordValidationError
from biokg.ingest.records import Records
from biokg.schema import GraphSchema

ARRAY_DELIMITER = "\x1f"
_NEO4J_TYPES = {
    "str": "string",
    "int": "long",
    "float": "double",
    "bool": "boolean",
    "str[]": "string[]",
}


def merge_records(loads: list[Records]) -> Records:
    """Combine sources' records in build order: one row per node id, the last source winning
    (as in the graph, where a later load updates the node; drug identity has already merged)."""
    merged = Records()
    if any(records.named_edges for records in loads):
        raise RecordValidationError(
            "export: some edges still name their drugs; resolve identities first "
            "(biokg.ingest.build.resolve_identities)"
        )
    for kind in ("nodes", "stubs", "edges"):
        frames: dict[str, list[pl.DataFrame]] = {}
        for records in loads:
            for name, frame in getattr(records, kind).items():
                frames.setdefault(name, []).append(frame)
        for name, parts in frames.items():
            frame = pl.concat(parts, how="diagonal_relaxed")
            if kind != "edges":
                frame = frame.unique("id", keep="last", maintain_order=True)
            getattr(merged, kind)[name] = frame
    for label, stubs in merged.stubs.items():
        defined = merged.nodes.get(label)
        if defined is not None:
            stubs = stubs.filter(~pl.col("id").is_in(defined["id"].implode()))
        merged.nodes[label] = pl.concat(
            [f for f in (defined, stubs) if f is not None], how="diagonal_relaxed"
        ).unique("id", keep="first", maintain_order=True)
    merged.stubs = {}
    return merged


def write_neo4j_admin_csv(records: Records, schema: GraphSchema, out_dir: Path) -> str:
    """Write the CSVs and return the ``neo4j-admin`` command that imports them."""
    out_dir.mkdir(parents=True, exist_ok=True)
    args = []
    for label, frame in sorted(records.nodes.items()):
        path = out_dir / f"nodes_{label}.csv"
        types = schema.node_properties(label)
        header = [
            "id:ID(Entity)" if c == "id" else f"{c}:{_NEO4J_TYPES[types[c]]}" for c in frame.columns
        ]
        _write(path, [*header, ":LABEL"], frame, extra=f"Entity;{label}")
        args.append(f"--nodes={path.name}")
    for rel_type, frame in sorted(records.edges.items()):
        path = out_dir / f"relationships_{rel_type}.csv"
        frame = frame.drop("subject_label", "object_label")
        types = schema.edge_properties(rel_type)
        header = [
            ":START_ID(Entity)"
            if c == "subject"
            else ":END_ID(Entity)"
            if c == "object"
            else f"{c}:{_NEO4J_TYPES[types[c]]}"
            for c in frame.columns
        ]
        _write(path, [*header, ":TYPE"], frame, extra=rel_type)
        args.append(f"--relationships={path.name}")
    return (
        f"cd {out_dir} && neo4j-admin database import full --id-type=string "
        "--multiline-fields=true --array-delimiter=U+001F " + " ".join(args) + " neo4j"
    )


def _write(path: Path, header: list[str], frame: pl.DataFrame, *, extra: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        writer.writerow(header)
        for row in frame.iter_rows():
            writer.writerow([_cell(v) for v in row] + [extra])


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, list):
        return ARRAY_DELIMITER.join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value
