"""Benchmark: parse, normalize and load the full offline HPO + GO corpus into the embedded engine.

Prints, per source: parse and normalize seconds, input rows/s, load edges/s and nodes/s over
Bolt, and the whole build's wall time and peak memory of this process and of the engine's.
Baselines: the aim of 25,000 edges/s (issue 10; 8,268-9,825/s before the bulk road) and a
180 s full build; the engine's own ~41,000 raw relationship MERGEs/s (DESIGN §3). ``--cypher``
loads every edge with UNWIND CREATE over Bolt instead of the engine's batch loader, to compare.

    python benchmarks/bench_build.py [--sources hpo,go] [--batch-size 10000] [--cypher]

Uses a fresh temporary BIOKG_HOME (the Debian packages are cached in ~/.cache/biokg/bench).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

from biokg.core.settings import Settings
from biokg.core.store import GraphStore, embedded
from biokg.core.store.embedded import free_port
from biokg.ingest.build import fetch_source, source_module
from biokg.ingest.records import validate
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema

EDGE_BASELINE = 25_000
BUILD_BASELINE_S = 180.0


def _peak_rss_mb(pid: int) -> float:
    """Peak resident memory of another process (Linux /proc), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", default="hpo,go")
    parser.add_argument("--batch-size", type=int, default=10_000)
    parser.add_argument("--cypher", action="store_true", help="no bulk road: Cypher only")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="biokg-bench-"))
    cache = Path.home() / ".cache" / "biokg" / "bench"
    cache.mkdir(parents=True, exist_ok=True)
    (home / "cache").symlink_to(cache)
    ports = {"BIOKG_BOLT_PORT": str(free_port()), "BIOKG_HTTP_PORT": str(free_port())}
    settings = Settings.from_env(
        {**os.environ, **ports, "BIOKG_HOME": str(home), "BIOKG_BATCH_SIZE": str(args.batch_size)}
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    road = "Cypher (UNWIND CREATE over Bolt)" if args.cypher else "bulk (engine batch loader)"
    print(f"batch size {args.batch_size}, new edges by {road}, BIOKG_HOME {home}")
    started = time.perf_counter()
    store = GraphStore.connect(settings)
    print(f"engine start + connect: {time.perf_counter() - started:.1f} s")
    schema = load_schema()
    store.apply_schema(schema)
    total_edges = 0
    total_load_s = 0.0
    for name in args.sources.split(","):
        planned = fetch_source(name, settings)
        module = source_module(name)
        t0 = time.perf_counter()
        frames = module.parse(planned.fetched)
        t1 = time.perf_counter()
        records = module.normalize(frames, release=planned.release)
        validate(records, schema, source=planned.release.source)
        t2 = time.perf_counter()
        rows = sum(f.height for f in frames.values())
        print(
            f"{name}: parse {t1 - t0:.1f} s ({rows / (t1 - t0):,.0f} rows/s), "
            f"normalize+validate {t2 - t1:.1f} s; records {records.counts()}"
        )
        writer = GraphWriter(store, schema, batch_size=args.batch_size, bulk=not args.cypher)
        result = writer.load(records, planned.release)
        t3 = time.perf_counter()
        nodes = sum(f.height for f in records.nodes.values())
        edges = result.edges_written
        total_edges += edges
        load_s = t3 - t2
        total_load_s += load_s
        print(
            f"{name}: load {load_s:.1f} s: {edges:,} edges + {nodes:,} nodes, "
            f"{edges / load_s:,.0f} edges/s overall (x{edges / load_s / EDGE_BASELINE:.2f} "
            f"of the {EDGE_BASELINE:,}/s aim)"
        )
    wall = time.perf_counter() - started
    python_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    engine_mb = _peak_rss_mb(embedded.running_server(settings).pid)
    aim = f"{wall / BUILD_BASELINE_S:.2f} of the {BUILD_BASELINE_S:.0f} s aim"
    print(f"full build: {wall:.1f} s wall ({aim}), {total_edges:,} edges")
    rate = total_edges / total_load_s
    print(
        f"all loads: {total_edges:,} edges in {total_load_s:.1f} s of loading, nodes included: "
        f"{rate:,.0f} edges/s (x{rate / EDGE_BASELINE:.2f} of the {EDGE_BASELINE:,}/s aim)"
    )
    print(f"peak memory: Python {python_mb:,.0f} MB, engine process {engine_mb:,.0f} MB")
    store.close()


if __name__ == "__main__":
    main()
