"""Seconds per question from the CLI: ``biokg ask`` as a user runs it, against a running engine.

    biokg db start                       # the engine once, shared (else each ask starts one)
    python benchmarks/bench_ask.py [--questions FILE] [--limit N] [--repeat R]

Each question is one ``biokg ask "<question>" --json`` process, timed from start to exit:
Python start-up, imports, opening the lexicon, linking (and, for questions that need it,
loading the ONNX question embedder), the graph queries and the JSON. The questions are this
file's own (one per class of question), or the ``question`` fields of a JSON-lines file (e.g.
../shared/eval/dev_questions.jsonl, read in place). Prints p50, p95 and max wall seconds, the
agent's own graph time p50, the share of questions that needed the embedder and the time of
the read of the current loads every question starts with. Nothing is asserted.

With ``BIOKG_API_URL`` set (a ``biokg serve`` running), each command sends its question to that
server instead (decision 0039); the first line printed says which. Run it both ways to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUESTIONS = [
    "What does Viagra target?",
    "Which genes are associated with Marfan syndrome?",
    "What is caused by loss-of-function variants in FBN1?",
    "What are the phenotypes of Noonan syndrome?",
    "Is Marfan syndrome an autosomal dominant disease?",
    "What is the UNII of sildenafil?",
    "What are the side effects of Humira?",
    "Which genes have both arachnodactyly and ectopia lentis?",
    "What problems do patients with Behcet syndrome have?",
    "Which genes are associated with brittle bones breaking easily?",
    "What is the market share of Viagra?",
    "Where are pannexins localized?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, help="JSON-lines file with a question field")
    parser.add_argument("--limit", type=int, default=0, help="first N questions (0: all)")
    parser.add_argument("--repeat", type=int, default=1, help="ask each question R times")
    args = parser.parse_args()
    questions = QUESTIONS
    if args.questions:
        lines = args.questions.read_text(encoding="utf-8").splitlines()
        questions = [json.loads(line)["question"] for line in lines if line.strip()]
    if args.limit:
        questions = questions[: args.limit]
    biokg = shutil.which("biokg") or str(Path(sys.executable).with_name("biokg"))
    walls, graph, embedded = [], [], 0
    for question in questions * args.repeat:
        started = time.perf_counter()
        done = subprocess.run([biokg, "ask", question, "--json"], capture_output=True, text=True)
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            print(f"failed ({done.returncode}): {question}: {done.stderr.strip()[-200:]}")
            continue
        answer = json.loads(done.stdout)
        graph.append(answer["timings"]["graph_ms"])
        embedded += any(q["step"] == "link:search" for q in answer["queries"])
    walls.sort()
    p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
    served = os.environ.get("BIOKG_API_URL")
    print(
        f"{len(walls)} questions, {platform.processor() or platform.machine()}, "
        f"{sys.version.split()[0]}, "
        + (f"through the API at {served}" if served else "an agent in each command's process")
    )
    print(
        f"wall s per question: p50 {statistics.median(walls):.2f}, p95 {p95:.2f}, "
        f"max {walls[-1]:.2f}"
    )
    if graph:
        print(f"graph ms per question: p50 {statistics.median(graph):.1f}")
    print(f"questions that ran an index search while linking: {embedded}/{len(walls)}")
    print(f"reading the current loads (every question does, twice from the CLI): {_loads_ms()}")


def _loads_ms(times: int = 20) -> str:
    """p50 and max ms of ``agent_data_versions``, the read every question starts with."""
    from biokg import cypher
    from biokg.core.settings import Settings
    from biokg.core.store import GraphStore

    spent = []
    with GraphStore.connect(Settings.from_env()) as store:
        for _ in range(times):
            started = time.perf_counter()
            store.read(cypher.load("agent_data_versions"))
            spent.append((time.perf_counter() - started) * 1000)
    return f"p50 {statistics.median(spent):.1f} ms, max {max(spent):.1f} ms over {times} reads"


if __name__ == "__main__":
    main()
