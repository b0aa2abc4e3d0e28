"""Calibrate the relationship paraphrase matcher (graph_agent/paraphrase.py) on its own set.

    python benchmarks/bench_paraphrase.py [--cache-dir DIR]

Reads benchmarks/data/relation_paraphrases.yaml (questions that use no schema/ phrase, each with
the relationship it means or `none`), scores every question once with the real model (ONNX), then
prints, for a grid of (MIN_SIMILARITY, MIN_MARGIN): how many questions the matcher answers,
how many it gets right first, how many only among the near-tied types tried after the first
(`later`: right when the first finds nothing in the graph), how many wrong (the right type not
tried at all, or a `none` question answered), and right + later / 2 - 2 x wrong (a wrong
relationship answers a different question: it costs more than silence). The operating point in
paraphrase.py is the best of that grid. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import yaml

from biokg.core.embedding.onnx import OnnxEmbedder
from biokg.core.settings import Settings
from biokg.graph_agent.paraphrase import MIN_MARGIN, MIN_SIMILARITY, RelationMatcher
from biokg.schema import load_schema

DATA = Path(__file__).with_name("data") / "relation_paraphrases.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=Settings.from_env().cache_dir)
    args = parser.parse_args()
    items = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    embedder = OnnxEmbedder(args.cache_dir)
    schema = load_schema()
    started = time.perf_counter()
    rows = []
    grid = itertools.product((0.5, 0.55, 0.6, 0.65, 0.7, 0.75), (0.0, 0.02, 0.03, 0.05, 0.08))
    for sim, margin in grid:
        matcher = RelationMatcher(schema, embedder, min_similarity=sim, min_margin=margin)
        right = later = wrong = answered = 0
        for item in items:
            tried = [(r.type, r.outgoing) for r in matcher.match(item["q"], {item["label"]})]
            if not tried:
                continue
            answered += 1
            expected = (item["type"], item.get("forward"))
            if tried[0] == expected:
                right += 1
            elif expected in tried:
                later += 1
            else:
                wrong += 1
        rows.append((right + later / 2 - 2 * wrong, sim, margin, answered, right, later, wrong))

    seconds = time.perf_counter() - started
    print(
        f"{len(items)} questions ({sum(i['type'] == 'none' for i in items)} none), "
        f"grid scored in {seconds:.1f} s"
    )
    print(
        f"{'min_sim':>8}{'margin':>8}{'answered':>10}{'right':>7}{'later':>7}{'wrong':>7}"
        f"{'score':>7}"
    )
    for score, sim, margin, answered, right, later, wrong in sorted(rows, key=lambda r: r[1:3]):
        mark = "  <- in use" if (sim, margin) == (MIN_SIMILARITY, MIN_MARGIN) else ""
        print(
            f"{sim:>8.2f}{margin:>8.2f}{answered:>10}{right:>7}{later:>7}{wrong:>7}{score:>7}{mark}"
        )
    best = max(rows)
    print(f"best: min_similarity {best[1]}, min_margin {best[2]} (score {best[0]})")


if __name__ == "__main__":
    main()
