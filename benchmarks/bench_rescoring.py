"""What the linker's vector search costs with the transformer's rescoring as set, against the
settings before 2026-12-07 (the 10 nearest per label, each node's whole embedded text).

    biokg db start
    python benchmarks/bench_rescoring.py [--rounds 2]

Phrases like those a question leaves over once its names are linked (a description, a
paraphrase, words around a name) are searched with both settings in turn, alternating, in one
process against the running quick-start graph, so load drift falls on both alike. Prints the
seconds each took, their ratio, and for how many phrases the hits and scores were the same.
Nothing is asserted (docs/decisions/0010-fast-first-build.md, addendum).
"""

from __future__ import annotations

import argparse
import os
import time

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent import searchers
from biokg.graph_agent.agent import GraphAgent

PHRASES = (  # lay and descriptive wordings, none a name in the graph as written
    "heart attack",
    "high blood pressure",
    "brittle bones",
    "sugar in the urine",
    "blood thinner",
    "water pill",
    "small eyes",
    "programmed cell death",
    "enzyme that breaks down fat",
    "stomach ulcer",
)
SETTINGS = {
    "before (10 nearest, whole text)": (10, 10**6),
    "now": (searchers.RERANK_POOL, searchers.RERANK_WORDS),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        agent = GraphAgent.connect(store, settings)
        [search] = [s for s in agent.linker.searchers if getattr(s, "reranker", None)]
        search("warm up")
        seconds = dict.fromkeys(SETTINGS, 0.0)
        same = 0
        for _ in range(args.rounds):
            for phrase in PHRASES:
                hits = []
                for name, (pool, words) in SETTINGS.items():
                    searchers.RERANK_POOL, searchers.RERANK_WORDS = pool, words
                    started = time.perf_counter()
                    hits.append(search(phrase))
                    seconds[name] += time.perf_counter() - started
                same += hits[0] == hits[1]
    before, now = seconds.values()
    calls = args.rounds * len(PHRASES)
    print(
        f"vector search of {calls} phrases: "
        + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
    )
    print(f"ratio {before / now:.1f}x; same hits and scores for {same} of {calls}")
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
