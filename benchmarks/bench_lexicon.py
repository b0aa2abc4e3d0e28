"""Benchmark: the agent's lexicon built whole, from an earlier lexicon after 1% of the nodes'
names changed, and for a state whose names are all the same (graph_agent/lexicon_build.py).

Reads the running graph's lexicon rows once (``biokg db start``, or ``BIOKG_NEO4J_URI``), then
writes three lexicon files in a temporary folder and prints each one's seconds and the ratio to
the whole build. Nothing is asserted.

    python benchmarks/bench_lexicon.py [--changed 0.01]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import tempfile
import time
from pathlib import Path

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.lexicon_build import file_name, read_graph, write_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changed", type=float, default=0.01, help="share of nodes renamed")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with GraphStore.connect(Settings.from_env()) as store:
        started = time.perf_counter()
        rows, present = read_graph(store)
        read = time.perf_counter() - started
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    print(f"machine: {machine}; {len(rows):,} rows read in {read:.1f} s")
    rng = random.Random(args.seed)
    renamed = set(rng.sample(range(len(rows)), int(len(rows) * args.changed)))
    later = [
        {**row, "synonyms": [*(row.get("synonyms") or []), f"benchmark name {i}"]}
        if i in renamed
        else row
        for i, row in enumerate(rows)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        timed, written = {}, []
        for step, state, name in [
            ("whole", rows, "a"),
            (f"from the earlier, {len(renamed):,} nodes renamed", later, "b"),
            ("same names as the earlier", later, "c"),
        ]:
            started = time.perf_counter()
            written.append(write_file(state, present, Path(tmp) / file_name(name)))
            timed[step] = time.perf_counter() - started
        # the third file is the second's, taken as it is (the steps measured what they say)
        reused = written[2].read_bytes() == written[1].read_bytes()
    whole = timed["whole"]
    for step, seconds in timed.items():
        print(f"  {step:40} {seconds:7.2f} s  {seconds / whole:5.2f} x the whole build")
    print(f"  the same names' file is the earlier one: {reused}")


if __name__ == "__main__":
    main()
