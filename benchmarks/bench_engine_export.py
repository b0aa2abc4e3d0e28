"""Benchmark: every edge of the graph out of the embedded engine by two roads, in edges/s, back
to back (docs/decisions/0033-exports-package.md).

* ``sql``: what the whole-graph KGX export reads today, ArcadeDB's SQL paged by record id over
  HTTP, every property schema/ declares (:meth:`GraphStore.scan_edges`), parsed into rows;
* ``engine``: ArcadeDB's own ``EXPORT DATABASE … WITH format = 'jsonl'`` of the relationship
  types (:meth:`GraphStore.export_jsonl`: gzipped, one JSON line per edge, ends as record ids),
  then read back with polars (an explicit schema from schema/) into one frame.

Each road's time is what an export could not go below on it: no KGX or ML record is made. Rounds
alternate the roads (``--rounds``), and each line carries the load average beside it, since the
machine is shared.

    python benchmarks/bench_engine_export.py [--rounds 2]

Runs against the embedded graph the environment points at (``BIOKG_HOME``).
"""

from __future__ import annotations

import argparse
import gzip
import os
import time
from collections.abc import Callable

import polars as pl

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.export.kgx import exported_properties
from biokg.schema import GraphSchema, load_schema

#: schema/'s property types as polars types.
POLARS_TYPES = {
    "str": pl.String,
    "str[]": pl.List(pl.String),
    "bool": pl.Boolean,
    "int": pl.Int64,
    "float": pl.Float64,
}
EXPORT_NAME = "biokg-bench-edges.jsonl.tgz"


def sql_road(store: GraphStore, schema: GraphSchema, settings: Settings) -> int:
    """Every edge with its declared properties, read as the whole-graph KGX export reads them."""
    return sum(
        1
        for rel in store.relationship_types()
        for _ in store.scan_edges(rel, exported_properties(schema, rel))
    )


def engine_road(store: GraphStore, schema: GraphSchema, settings: Settings) -> int:
    """Every edge exported by the engine to JSONL, then read into one polars frame."""
    report = store.export_jsonl(EXPORT_NAME, store.relationship_types())
    path = settings.db_dir / "exports" / EXPORT_NAME
    started = time.perf_counter()
    frame = pl.read_ndjson(gzip.decompress(path.read_bytes()), schema=_line_schema(schema))
    edges = frame.filter(pl.col("t") == "e").select(pl.col("c").struct.unnest()).unnest("p")
    print(
        f"  engine's own export {report['elapsedInSecs']} s (its clock), read back "
        f"{time.perf_counter() - started:.1f} s, {path.stat().st_size / 1e6:,.0f} MB gzipped"
    )
    path.unlink()
    return edges.height


def _line_schema(schema: GraphSchema) -> dict[str, pl.DataType]:
    """An export line: ``t`` (its kind) and ``c`` (``p`` the properties, ``r`` the record id,
    ``t`` the type, ``o`` and ``i`` the ends' record ids)."""
    declared: dict[str, str] = {}
    for rel in schema.types:
        declared.update(schema.edge_properties(rel))
    properties = pl.Struct({key: POLARS_TYPES[kind] for key, kind in declared.items()})
    ends = {name: pl.String for name in ("r", "t", "o", "i")}
    return {"t": pl.String, "c": pl.Struct({"p": properties, **ends})}


ROADS: dict[str, Callable[[GraphStore, GraphSchema, Settings], int]] = {
    "sql": sql_road,
    "engine": engine_road,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="times to run both roads")
    rounds = parser.parse_args().rounds
    settings, schema = Settings.from_env(), load_schema()
    with GraphStore.connect(settings) as store:
        for round_ in range(1, rounds + 1):
            for name, road in ROADS.items():
                before = os.getloadavg()[0]
                started = time.perf_counter()
                rows = road(store, schema, settings)
                seconds = time.perf_counter() - started
                print(
                    f"round {round_}, {name}: {rows:,} edges in {seconds:.1f} s = "
                    f"{rows / seconds:,.0f} edges/s (load average {before:.1f} before, "
                    f"{os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores)"
                )


if __name__ == "__main__":
    main()
