"""Benchmark: the whole-graph reads that every build, ``biokg status`` and the tests' graph
comparisons make, over Cypher (Bolt) and over the embedded engine's SQL, on the same graph.

* counts per label and per relationship type and source (``biokg status``;
  :meth:`GraphStore.label_counts`, :meth:`GraphStore.relationship_counts`): the Cypher
  statements ``cypher/status_labels.cypher`` and ``status_relationships.cypher`` against one SQL
  ``GROUP BY`` per type;
* every Disease node's id and xrefs, which every build reads for the disease bridge's load key
  (:func:`biokg.ingest.bridge.graph_diseases`): ``cypher/bridge_diseases.cypher`` against
  :meth:`GraphStore.scan_nodes`;
* with ``--dump``, every entity node's and edge's properties (what the order-independence test
  compares): ``properties(n)`` and ``properties(e)`` over Bolt against the whole-record scans
  (``scan_nodes``/``scan_edges`` with ``columns=None``). Minutes on the quick-start graph.

Each read runs ``--repeat`` times both ways, alternated; the rows are checked equal (counts
exactly, records by count). Prints the seconds of each and the ratio.

    biokg db start
    python benchmarks/bench_graph_reads.py [--repeat 3] [--dump]

Runs against the embedded graph the environment points at (``BIOKG_HOME``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from biokg import cypher
from biokg.core.settings import Settings
from biokg.core.store import GraphStore


def timed(read: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    out = read()
    return time.perf_counter() - started, out


def reads(store: GraphStore, dump: bool) -> dict[str, tuple[Callable, Callable]]:
    """Each read as (Cypher, SQL), both returning comparable values."""

    def cypher_labels() -> dict:
        return {r["label"]: r["count"] for r in store.read(cypher.load("status_labels"))}

    def cypher_edges() -> list:
        return store.read(cypher.load("status_relationships"), timeout_s=3600)

    def cypher_diseases() -> list:
        return sorted(
            (r["id"], tuple(r["xrefs"] or ()))
            for r in store.read(cypher.load("bridge_diseases"), timeout_s=3600)
        )

    def sql_diseases() -> list:
        rows = store.scan_nodes("Disease", ["id", "xrefs"])
        return sorted((r["id"], tuple(r["xrefs"] or ())) for r in rows)

    out = {
        "label counts": (cypher_labels, store.label_counts),
        "edge counts per type and source": (cypher_edges, store.relationship_counts),
        "Disease ids and xrefs (bridge key)": (cypher_diseases, sql_diseases),
    }
    if dump:

        def bolt_dump() -> int:
            nodes = store.read("MATCH (n:Entity) RETURN properties(n) AS p", timeout_s=3600)
            edges = store.read("MATCH ()-[e]->() RETURN properties(e) AS p", timeout_s=3600)
            return len(nodes) + len(edges)

        def scan_dump() -> int:
            nodes = sum(1 for _ in store.scan_nodes("Entity", None))
            types = store.relationship_types()
            return nodes + sum(1 for t in types for _ in store.scan_edges(t, None))

        out["every node's and edge's properties (records)"] = (bolt_dump, scan_dump)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dump", action="store_true", help="also read every record both ways")
    args = parser.parse_args()
    with GraphStore.connect(Settings.from_env()) as store:
        if not store.http_api:
            raise SystemExit("the SQL road needs the embedded engine (BIOKG_NEO4J_URI is set)")
        print(f"{'read':45} {'Cypher s':>9} {'SQL s':>7} {'ratio':>6}")
        for name, (by_cypher, by_sql) in reads(store, args.dump).items():
            slow, fast = [], []
            for _ in range(args.repeat):
                t1, a = timed(by_cypher)
                t2, b = timed(by_sql)
                if a != b:
                    raise SystemExit(f"{name}: the two roads read different rows")
                slow.append(t1)
                fast.append(t2)
            c, s = statistics.median(slow), statistics.median(fast)
            print(f"{name:45} {c:9.2f} {s:7.2f} {c / s:6.1f}")
        print(f"medians of {args.repeat} alternated runs")


if __name__ == "__main__":
    main()
