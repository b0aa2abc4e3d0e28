"""Benchmark: RDF export of the whole graph (``biokg export rdf``), in quads per second.

Exports the graph the environment points at (``BIOKG_HOME`` or ``BIOKG_NEO4J_URI``, as the CLI
does; build it first, e.g. ``biokg build``) to N-Quads in a temporary folder, and prints nodes,
edges, quads, seconds and quads/s, against a baseline: streaming the same node and edge rows from
the engine without making RDF (what the export cannot go below), and the ratio to the rdflib
export it replaced (12,404 quads/s on the HPO + ChEMBL + openFDA graph).

    python benchmarks/bench_rdf.py [--format trig]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.export.rdf import export_file
from biokg.schema import load_schema

#: The rdflib export's rate on the same graph (docs/benchmarks.md, 2026-11-24: 8,489,412 quads
#: in 684 s).
RDFLIB_QUADS_PER_S = 12_404


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", default="nquads", choices=["nquads", "trig"])
    args = parser.parse_args()
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        started = time.perf_counter()
        rows = sum(1 for _ in store.stream(cypher.load("rdf_nodes")))
        rows += sum(1 for _ in store.stream(cypher.load("rdf_edges"), {"sources": None}))
        baseline = time.perf_counter() - started
        out = Path(tempfile.mkdtemp(prefix="biokg-bench-rdf-")) / f"graph.{args.format}"
        started = time.perf_counter()
        report = export_file(store, load_schema(), out, fmt=args.format)
        elapsed = time.perf_counter() - started
    size_mb = out.stat().st_size / 1e6
    print(f"graph: {report.nodes:,} nodes, {report.edges:,} edges, {report.graphs} release graphs")
    print(f"baseline, rows streamed without RDF: {rows:,} rows in {baseline:.1f} s")
    print(
        f"export ({args.format}): {report.quads:,} quads in {elapsed:.1f} s = "
        f"{report.quads / elapsed:,.0f} quads/s ({report.edges / elapsed:,.0f} edges/s), "
        f"{size_mb:,.0f} MB; {elapsed / baseline:.1f}x the baseline's time; "
        f"{report.quads / elapsed / RDFLIB_QUADS_PER_S:.1f}x the rdflib export's "
        f"{RDFLIB_QUADS_PER_S:,} quads/s"
    )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, peak memory {peak_mb:,.0f} MB"
    )
    out.unlink()


if __name__ == "__main__":
    main()
