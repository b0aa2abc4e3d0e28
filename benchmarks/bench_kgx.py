"""Benchmark: KGX and ML export of the whole graph (``biokg export kgx``/``ml``), in edges/s.

Exports the graph the environment points at (``BIOKG_HOME`` or ``BIOKG_NEO4J_URI``, as the CLI
does; build it first, e.g. ``biokg build``) into a temporary folder, and prints nodes, edges,
seconds and edges/s against two references: the issue's target (200,000 edges/s) and a
baseline, reading the same edge rows from the engine without writing anything (what the export
cannot go below: the KGX export's rows with every property, the ML export's scalar columns, on
the embedded engine read with its own SQL as the exports read them there; a one-source KGX
export reads over Bolt everywhere).

    python benchmarks/bench_kgx.py [--format jsonl|tsv|ml] [--sources chembl,openfda]

``--sources`` times a one-source export (KGX only): those sources' edges and the nodes they
touch, the baseline reading the same sources' edges.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path

from biokg.cli.export import source_ids
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.export.kgx import FORMATS, export_kgx, exported_properties
from biokg.export.ml import export_ml
from biokg.export.reader import edges_by_type, scanned_edges
from biokg.schema import load_schema

#: Issue 27: "Export rate >= 200,000 edges/s for both formats on this machine".
TARGET_EDGES_PER_S = 200_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", default="jsonl", choices=[*FORMATS, "ml"])
    parser.add_argument("--sources", help="comma-separated source names (KGX formats only)")
    args = parser.parse_args()
    if args.sources and args.format == "ml":
        parser.error("--sources is for the KGX formats; the ML export is always the whole graph")
    sources = source_ids(args.sources.split(",")) if args.sources else None
    out = Path(tempfile.mkdtemp(prefix="biokg-bench-kgx-"))
    query = "ml_edges" if args.format == "ml" else "rdf_edges"
    schema = load_schema()
    with GraphStore.connect(Settings.from_env()) as store:
        started = time.perf_counter()
        if args.format == "ml" and store.http_api:  # the road the ML export reads on
            rows = sum(1 for _ in scanned_edges(store))
        elif store.http_api and sources is None:  # the whole-graph KGX export's road
            rows = sum(
                1
                for rel in store.relationship_types()
                for _ in store.scan_edges(rel, exported_properties(schema, rel))
            )
        else:
            rows = sum(1 for _ in edges_by_type(store, sources, query=query))
        baseline = time.perf_counter() - started
        if args.format == "ml":
            report = export_ml(store, schema, out)
        else:
            report = export_kgx(store, schema, out, fmt=args.format, sources=sources)
    size_mb = sum(f.stat().st_size for f in out.iterdir()) / 1e6
    rate = report.edges_per_s
    print(f"graph: {report.nodes:,} nodes, {report.edges:,} edges")
    print(
        f"baseline, edge rows read without writing: {rows:,} in {baseline:.1f} s "
        f"= {rows / baseline:,.0f} edges/s"
    )
    print(
        f"export ({args.format}): {report.edges:,} edges in {report.seconds:.1f} s = "
        f"{rate:,.0f} edges/s, {size_mb:,.0f} MB; {report.seconds / baseline:.2f}x the "
        f"baseline's time; {rate / TARGET_EDGES_PER_S:.2f}x the {TARGET_EDGES_PER_S:,} edges/s "
        "target"
    )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, Python {platform.python_version()}, "
        f"peak memory {peak_mb:,.0f} MB"
    )
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
