"""Benchmark: what a differential diagnosis costs, step by step, on the graph the environment
points at (``BIOKG_HOME`` or ``BIOKG_NEO4J_URI``; HPO built, engine running).

Prints, each timed on its own: the index's rows (from the graph home's Parquet cache, read from
the graph first if missing), building the index from them, the likelihood ratio's calibration
computed and then read back from the cache, the ranking of one case in process (p50 of
``--cases`` cases from ``--file``), and ``--runs`` whole ``biokg diagnose`` processes for one
case (what a user waits for on the command line).

    python benchmarks/bench_diagnose.py [--file ../shared/eval/diagnosis_dev.jsonl]
        [--cases 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.diagnosis.index import build_index
from biokg.graph_agent.diagnosis.load import TABLES, load_key, phenotype_index
from biokg.graph_agent.diagnosis.ranker import DiagnosisRanker
from biokg.graph_agent.diagnosis.scoring import LikelihoodRatio

MARFAN = ["HP:0001166", "HP:0001083", "HP:0002616"]


def seconds(work) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=Path("../shared/eval/diagnosis_dev.jsonl"))
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        took, _ = seconds(lambda: phenotype_index(store, settings.cache_dir))
        folder = settings.cache_dir / "diagnosis" / load_key(store)
    print(f"index as a process's first call gets it (rows cached or read): {took:.2f} s")
    took, rows = seconds(lambda: {t: pl.read_parquet(folder / f"{t}.parquet") for t in TABLES})
    annotations = rows["diagnosis_annotations"].height
    print(f"rows from the cache: {annotations:,} annotations in {took:.2f} s ({folder})")
    took, index = seconds(lambda: build_index(*rows.values()))
    print(f"index build: {took:.2f} s ({annotations / took:,.0f} annotations/s)")
    with tempfile.TemporaryDirectory() as scratch:
        index.folder = Path(scratch)
        took, _ = seconds(lambda: LikelihoodRatio().expected(index))
        print(f"calibration computed: {took:.2f} s")
        again = build_index(*rows.values())
        again.folder = Path(scratch)
        took, _ = seconds(lambda: LikelihoodRatio().expected(again))
        print(f"calibration read back: {took:.3f} s")
    ranker = DiagnosisRanker(index, LikelihoodRatio())
    cases = [json.loads(line) for line in args.file.read_text().splitlines() if line.strip()]
    times = [
        seconds(lambda c=c: ranker.rank(c["observed"], c.get("excluded", [])))[0]
        for c in cases[: args.cases]
    ]
    print(f"one case in process: p50 {statistics.median(times) * 1000:.1f} ms ({len(times)} cases)")
    command = [str(Path(sys.executable).parent / "biokg"), "diagnose", *MARFAN, "--top", "3"]
    walls = [
        seconds(lambda: subprocess.run(command, check=True, capture_output=True))[0]
        for _ in range(args.runs)
    ]
    print("biokg diagnose, whole process: " + ", ".join(f"{w:.2f} s" for w in walls))


if __name__ == "__main__":
    main()
