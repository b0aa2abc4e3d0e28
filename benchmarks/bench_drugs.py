"""Benchmark: ChEMBL + openFDA offline load, drug identity, and name-resolution latency.

Prints load times per source, the merge report (drug records and FAERS drug names), and the
p50/p95 latency of resolving the brand and generic names of the 500 real openFDA harmonized
products against the graph: in-memory lookups after one index read; the per-name path that
reads every Drug node each time (what `biokg resolve` does without a cache); and the per-name
path with the index cached on disk (``graph_drug_index(store, cache_dir=...)``: one small read
of the graph's current loads, then the cached file).

    python benchmarks/bench_drugs.py
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port
from biokg.ingest.build import build
from biokg.ingest.identity import graph_drug_index
from biokg.ingest.sources import openfda


def product_names(path: Path) -> list[str]:
    """Brand and generic names of every harmonized product line, as users would type them."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        names += [n for n in (record.get("brand_name"), record.get("generic_name")) if n]
    return names


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


def main() -> None:
    settings = Settings.from_env(
        {
            "BIOKG_HOME": tempfile.mkdtemp(prefix="biokg-bench-drugs-"),
            "BIOKG_BOLT_PORT": str(free_port()),
            "BIOKG_HTTP_PORT": str(free_port()),
        }
    )
    with GraphStore.connect(settings) as store:
        started = time.perf_counter()
        results = build(store, settings, ("chembl", "openfda"))
        elapsed = time.perf_counter() - started
        for r in results:
            print(f"{r.source}: {r.nodes_created:,} nodes created, {r.edges_written:,} edges")
            if r.identity and r.identity["drugs"]:
                ident = r.identity
                print(
                    f"  identity: {ident['drugs']} drugs, merged {ident['merged']}, "
                    f"{ident['unmatched']} unmatched, {len(ident['conflicts'])} ambiguous"
                )
            if r.identity and r.identity["names"]["mentions"]:
                named = r.identity["names"]
                print(
                    f"  drug names in FAERS reports: {named['mentions']} mentions, resolved "
                    f"{named['resolved']}, {named['unresolved']} unresolved, "
                    f"{named['ambiguous']} ambiguous -> {named['edges']} edges"
                )
        print(f"fetch + parse + normalize + identity + load, both sources: {elapsed:.1f} s")
        sample = openfda.SOURCE.fetch_options(settings)["shared"][openfda.SAMPLE_FOLDER]
        names = product_names(sample / openfda.PRODUCTS_FILE)
        t0 = time.perf_counter()
        index = graph_drug_index(store)
        index_ms = (time.perf_counter() - t0) * 1000
        lookups, found = [], 0
        for name in names:
            t = time.perf_counter()
            found += bool(index.lookup(name))
            lookups.append((time.perf_counter() - t) * 1000)
        full = []
        for name in names[:100]:
            t = time.perf_counter()
            graph_drug_index(store).lookup(name)
            full.append((time.perf_counter() - t) * 1000)
        cache = settings.cache_dir
        t = time.perf_counter()
        graph_drug_index(store, cache_dir=cache)  # first call writes the cache file
        first_ms = (time.perf_counter() - t) * 1000
        cached = []
        for name in names:
            t = time.perf_counter()
            graph_drug_index(store, cache_dir=cache).lookup(name)
            cached.append((time.perf_counter() - t) * 1000)
    print(f"{len(names)} product names, {found} resolved to at least one Drug node")
    print(f"index read from the graph: {index_ms:.0f} ms")
    print(
        f"lookup with the index in memory: p50 {percentile(lookups, 50):.3f} ms, "
        f"p95 {percentile(lookups, 95):.3f} ms"
    )
    print(
        f"per-name graph read + lookup (`biokg resolve` without a cache), first 100 names: "
        f"p50 {percentile(full, 50):.0f} ms, p95 {percentile(full, 95):.0f} ms"
    )
    print(
        f"per-name with the cached index: first call (writes the cache) {first_ms:.0f} ms, "
        f"then p50 {percentile(cached, 50):.1f} ms, p95 {percentile(cached, 95):.1f} ms"
    )


if __name__ == "__main__":
    main()
