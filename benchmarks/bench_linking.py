"""Linking calibration: the agent's linker against ``benchmarks/data/linking_calibration.jsonl``.

The set is written by hand for this measurement and kept apart from the development set
(``../shared/eval/``). Each item is a question or a bare span with one entity slot, the node ids
that slot means (``expected``; several when one name is carried by several nodes, e.g. a
phenotype and a disease) or ``null`` when the graph does not hold it, a category and a split:
``fit`` (for fitting a scorer) or ``held-out`` (for reporting). Expected ids are the nodes whose
name, synonym, symbol or brand/generic name is the item's name (or, for a typo or a lower-case
symbol, the name it stands for; for a description in other words, category ``description``,
the GO terms it describes) in the quick-start graph built from the offline data.

Run against a running quick-start graph, found the way ``biokg ask`` finds it (``biokg db
start``, or a server this process starts; ``BIOKG_HOME`` / ``BIOKG_NEO4J_URI``)::

    biokg db start
    python benchmarks/bench_linking.py [--split held-out] [--errors] [--output json]

What is counted, per item, from ``EntityLinker.mentions`` (the linking step of ``biokg ask``):
the ids of every mention's candidates (weak mentions included; alternatives not). An item with
expected ids is a *hit* when those ids meet them, a *wrong link* when ids were linked but none
is expected, a *miss* when nothing was linked; an item with ``null`` is a *correct abstention*
when nothing was linked, else a *false link*.

* precision: hits / (hits + wrong links + false links): of the items the linker linked, how many
  it linked right;
* recall of real names: hits / items with expected ids;
* not-in-graph accuracy: correct abstentions / items with ``null``.

Nothing here asserts; the issue's targets (held-out: not-in-graph accuracy >= 0.95 with recall
>= 0.95) are printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from biokg.core.settings import Settings
from biokg.core.store import GraphStore
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.question import Question

DATA = Path(__file__).resolve().parent / "data" / "linking_calibration.jsonl"
SPLITS = ("fit", "held-out")
TARGET_RECALL = 0.95
TARGET_ABSTENTION = 0.95


@dataclass(frozen=True)
class Outcome:
    """One item's result: what was linked and how it counts."""

    item: dict[str, Any]
    linked: tuple[str, ...]
    verdict: str  # hit, wrong, miss, abstain, false-link
    ms: float


def load_items(path: Path = DATA) -> list[dict[str, Any]]:
    """The calibration items, one JSON object a line."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def verdict(expected: list[str] | None, linked: Iterable[str]) -> str:
    """How one item counts (see module docstring).

    >>> verdict(["HP:0001250"], ["HP:0001250", "OMIM:1"]), verdict(None, [])
    ('hit', 'abstain')
    """
    found = set(linked)
    if expected is None:
        return "false-link" if found else "abstain"
    if not found:
        return "miss"
    return "hit" if found & set(expected) else "wrong"


def run(agent: GraphAgent, items: list[dict[str, Any]]) -> list[Outcome]:
    """Link every item as ``biokg ask`` links a question."""
    out = []
    for item in items:
        started = time.perf_counter()
        reading = agent.planner.reader.understand(Question.parse(item["text"]))
        mentions = agent.linker.mentions(reading.question, reading)
        ms = (time.perf_counter() - started) * 1000
        linked = tuple(sorted({c.id for m in mentions for c in m.candidates}))
        out.append(Outcome(item, linked, verdict(item["expected"], linked), ms))
    return out


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    """Counts and the three rates of a group of outcomes (None where a rate has no items)."""
    counts = defaultdict(int)
    for outcome in outcomes:
        counts[outcome.verdict] += 1
    linked = counts["hit"] + counts["wrong"] + counts["false-link"]
    real = counts["hit"] + counts["wrong"] + counts["miss"]
    absent = counts["abstain"] + counts["false-link"]
    return {
        "items": len(outcomes),
        **{k: counts[k] for k in ("hit", "wrong", "miss", "abstain", "false-link")},
        "precision": counts["hit"] / linked if linked else None,
        "recall": counts["hit"] / real if real else None,
        "not_in_graph_accuracy": counts["abstain"] / absent if absent else None,
    }


def missing_ids(store: GraphStore, items: list[dict[str, Any]]) -> list[str]:
    """Expected ids the graph does not hold (the set was made for another build)."""
    ids = sorted({i for item in items for i in item["expected"] or ()})
    rows = store.read("MATCH (n:Entity) WHERE n.id IN $ids RETURN n.id AS id", {"ids": ids})
    return sorted(set(ids) - {row["id"] for row in rows})


def _rate(value: float | None) -> str:
    return "    -" if value is None else f"{value:5.3f}"


def write_unanswerable(items: list[dict[str, Any]], path: Path) -> int:
    """The items that are questions about names the graph lacks, as ``score.py`` questions to
    abstain on (the agent end to end, not only its linker); returns how many."""
    asked = [i for i in items if i["kind"] == "question" and i["expected"] is None]
    with path.open("w", encoding="utf-8") as out:
        for item in asked:
            question = {"id": item["id"], "category": item["category"], "question": item["text"]}
            question |= {"gold": [], "gold_names": [], "match": "abstain"}
            out.write(json.dumps(question) + "\n")
    return len(asked)


def report(outcomes: list[Outcome], show_errors: bool) -> None:
    """Print the figures per split, per split and category, and optionally every error."""
    header = f"{'group':34} {'n':>4} {'hit':>4} {'wrong':>5} {'miss':>4} {'abst':>4} {'false':>5}"
    print(f"{header}  precision recall not-in-graph")
    for split in SPLITS:
        in_split = [o for o in outcomes if o.item["split"] == split]
        groups = [(split, in_split)]
        categories = sorted({o.item["category"] for o in in_split})
        groups += [(f"  {c}", [o for o in in_split if o.item["category"] == c]) for c in categories]
        for name, group in groups:
            f = figures(group)
            print(
                f"{name:34} {f['items']:4} {f['hit']:4} {f['wrong']:5} {f['miss']:4} "
                f"{f['abstain']:4} {f['false-link']:5}  {_rate(f['precision'])}     "
                f"{_rate(f['recall'])}  {_rate(f['not_in_graph_accuracy'])}"
            )
    held = figures([o for o in outcomes if o.item["split"] == "held-out"])
    print(
        f"\nheld-out targets (issue 24): recall >= {TARGET_RECALL} (now {_rate(held['recall'])}), "
        f"not-in-graph accuracy >= {TARGET_ABSTENTION} "
        f"(now {_rate(held['not_in_graph_accuracy'])})"
    )
    times = [o.ms for o in outcomes]
    print(
        f"{len(outcomes)} items in {sum(times) / 1000:.1f} s; linking p50 "
        f"{statistics.median(times):.1f} ms, max {max(times):.0f} ms; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    if show_errors:
        print("\nerrors (verdict, split, category, text -> linked / expected):")
        for o in outcomes:
            if o.verdict not in ("hit", "abstain"):
                print(
                    f"  {o.verdict:10} {o.item['split']:8} {o.item['category']:16} "
                    f"{o.item['text']!r} -> {list(o.linked)} / {o.item['expected']}"
                )


def main() -> None:
    """Link the calibration set on the running graph and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--split", choices=SPLITS, help="only this split")
    parser.add_argument("--errors", action="store_true", help="list every miss and wrong link")
    parser.add_argument("--output", choices=("table", "json"), default="table")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--linking",
        choices=("guesses", "scored"),
        help="the linker to measure, as BIOKG_LINKING (default: its value; decision 0018)",
    )
    parser.add_argument(
        "--unanswerable",
        type=Path,
        metavar="FILE",
        help="write the questions about names the graph lacks for score.py, and stop",
    )
    args = parser.parse_args()
    items = [i for i in load_items(args.data) if args.split in (None, i["split"])]
    if args.unanswerable:
        print(f"{write_unanswerable(items, args.unanswerable)} questions in {args.unanswerable}")
        return
    settings = Settings.from_env()
    with GraphStore.connect(settings) as store:
        missing = missing_ids(store, items)
        if missing:
            print(f"warning: {len(missing)} expected ids are not in this graph: {missing[:10]}")
        linking = args.linking or settings.linking
        agent = GraphAgent.connect(store, replace(settings, linking=linking))
        agent.linker.mentions(Question.parse("warm up the lexicon and the indexes"))
        outcomes = run(agent, items)
    if args.output == "json":
        per = {
            f"{split}/{category}": figures(
                [o for o in outcomes if (o.item["split"], o.item["category"]) == (split, category)]
            )
            for split, category in sorted({(o.item["split"], o.item["category"]) for o in outcomes})
        }
        per |= {s: figures([o for o in outcomes if o.item["split"] == s]) for s in SPLITS}
        print(json.dumps(per, indent=1))
        return
    report(outcomes, args.errors)


if __name__ == "__main__":
    main()
