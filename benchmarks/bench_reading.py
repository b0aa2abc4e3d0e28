"""The understanding stage's cost: ``QuestionReader.understand`` and one ``intent`` per question.

Over the questions of ``benchmarks/data/linking_calibration.jsonl`` (no engine, no lexicon: the
reader needs schema/ only). Prints the milliseconds per question; nothing asserts.

Usage: ``python benchmarks/bench_reading.py [--rounds 5]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.question import Question
from biokg.schema import load_schema

DATA = Path(__file__).parent / "data" / "linking_calibration.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reader = QuestionReader(load_schema())
    lines = DATA.read_text(encoding="utf-8").splitlines()
    questions = [Question.parse(json.loads(line)["text"]) for line in lines if line.strip()]
    reader.intent(reader.understand(questions[0]), ())  # lemmatiser and tables loaded
    started = time.perf_counter()
    for _ in range(args.rounds):
        for question in questions:
            reader.intent(reader.understand(question), ())
    per_question = (time.perf_counter() - started) * 1000 / (args.rounds * len(questions))
    print(f"{len(questions)} questions x {args.rounds} rounds: {per_question:.3f} ms a question")


if __name__ == "__main__":
    main()
