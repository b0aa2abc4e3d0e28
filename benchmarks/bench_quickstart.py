"""Benchmark: the quick start's build, phase by phase, to the moment vector search works.

A fresh ``BIOKG_HOME`` (nothing fetched, no database, no vector cache, no distilled model; the
virtualenv is the one this runs in), every default source, the same library calls as
``biokg build``: fetch, parse + normalize + validate, identity resolution + load, embedding
(distilling the static model included), then one vector search per embedded label. Prints each
phase's wall time, load edges/s, embedded nodes/s, the total beside the 24 min 23 s a new user
measured before (issue 10), and peak memory of this process and of the engine's.

    python benchmarks/bench_quickstart.py [--embedder static|transformer]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from bench_build import _peak_rss_mb

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.search import vector_search
from biokg.core.embedding.static import node_embedder
from biokg.core.embedding.texts import embedded_labels
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store import embedded as engine
from biokg.core.store.embedded import free_port
from biokg.ingest.build import (
    DEFAULT_SOURCES,
    build_order,
    fetch_source,
    prepare_records,
    resolve_identities,
)
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.ingest.identity import known_drugs
from biokg.ingest.writer import GraphWriter
from biokg.schema import load_schema

BEFORE_S = 24 * 60 + 23


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", choices=("static", "transformer"), default="static")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="biokg-quickstart-"))
    env = {
        **os.environ,
        "BIOKG_HOME": str(home),
        "BIOKG_BOLT_PORT": str(free_port()),
        "BIOKG_HTTP_PORT": str(free_port()),
        "BIOKG_EMBEDDER": args.embedder,
    }
    settings = Settings.from_env(env)
    print(f"{os.cpu_count()} cores, fresh BIOKG_HOME {home}, embedder {args.embedder}")
    phases: dict[str, float] = {}
    started = clock = time.perf_counter()

    def phase(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        phases[name] = now - clock
        clock = now
        print(f"  {name}: {phases[name]:.1f} s", flush=True)

    store = GraphStore.connect(settings)
    schema = load_schema()
    store.apply_schema(schema)
    phase("engine start + schema")
    planned = [fetch_source(name, settings) for name in build_order(DEFAULT_SOURCES)]
    phase("fetch (offline packages, GO corpus, ChEMBL SQLite)")
    prepared = [(plan, prepare_records(plan)) for plan in planned]
    phase("parse + normalize + validate")
    writer = GraphWriter(store, schema, batch_size=settings.batch_size, bulk=settings.bulk_load)
    edges = 0
    for plan, records, identity in resolve_identities(prepared, known_drugs(store)):
        edges += writer.load(records, plan.release, identity=identity.as_dict()).edges_written
    phase("identity + load")
    embedder = node_embedder(settings)
    embedder.embed(["warm-up"])
    phase("embedding model ready (static: distilled once)")
    embedded = 0
    with VectorCache.default(settings) as cache:
        for label in embedded_labels(schema):
            report = embed_graph(store, embedder, cache=cache, labels=[label])
            embedded += report.written
            rate = report.written / report.seconds if report.seconds else 0.0
            print(f"    {label}: {report.written:,} nodes in {report.seconds:.1f} s, {rate:,.0f}/s")
    phase("embed + write vectors")
    OnnxEmbedder(settings.cache_dir).prepare()
    phase("question model exported (ONNX, as biokg build does)")
    for label in embedded_labels(schema):
        [probe] = embedder.embed([label])
        vector_search(store, label, probe, 3)
    phase("one vector search per embedded label")
    total = time.perf_counter() - started
    print(f"load: {edges:,} edges, {edges / phases['identity + load']:,.0f} edges/s")
    embed_s = phases["embed + write vectors"]
    print(f"embed: {embedded:,} nodes, {embedded / embed_s:,.0f} nodes/s")
    print(f"total to vector search live: {total:.0f} s ({total / 60:.1f} min; before: 24 min 23 s,")
    print(f"  {BEFORE_S / total:.1f}x faster)")
    python_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    engine_mb = _peak_rss_mb(engine.running_server(settings).pid)
    print(f"peak memory: Python {python_mb:,.0f} MB, engine process {engine_mb:,.0f} MB")
    store.close()


if __name__ == "__main__":
    main()
