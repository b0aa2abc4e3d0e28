"""``biokg eval``: questions generated from the graph itself, gold answers taken from the graph.

* **one-hop**: for each relationship type in the graph (but ``SAME_AS``, the bridge between
  sources' records of one disease, which every answer crosses) and each direction schema/ words a
  question for, sampled seeds, each asked in one wording from ``questions`` in schema/ with
  every name variant it has (as stored, lower case, upper case, one typo, a brand name for
  drugs, a synonym; a brand or synonym only if it names no other node), but seeds of labels
  schema/ marks ``named: false`` (label sections: reached through their label, never asked by
  a name, and kept out of the lexicon, decision 0017); gold = the seed's
  positive neighbours over that type and direction. A name several nodes share is ambiguous by
  itself, so gold is the union over the seed and every node with that exact name (or title,
  for documents).
* **one-hop, held out**: the same seeds and gold, each asked once by its stored name in a
  wording from ``eval_wordings.yaml``, which uses none of the phrases the planner reads: the
  split measures what the agent understands beyond its own vocabulary.
* **two-hop**: a chain of two types (``describe_*`` of the first nested in a question of the
  second: "What are the phenotypes of the diseases associated with TP53?"); gold = the ends.
* **unanswerable**: invented drug-like names, and real entities asked a relationship that no
  path of one or two types in schema/ gives their label; the right answer is "not found in the
  graph".
* **verify**: yes/no questions in each type's ``verify`` wording from schema/: a sampled edge's
  two ends (the verdict must be "yes"), and its subject with another sampled object of the same
  label it holds no such edge to (no verdict: no record either way).

Metrics: Hit@1, Hit@5, MRR, abstention on unanswerable, verdict accuracy on verify (per
expected verdict), citation precision (cited ids in the
evidence graph and on the claim's path), citations in evidence (must be 100%), variant spread
(each variant's Hit@1 minus the stored name's on the same seeds and wording; max - min of those
differences, in points) and graph-work latency p50/p95.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import yaml

from biokg import cypher
from biokg.errors import SchemaError
from biokg.graph_agent.agent import GraphAgent
from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.models import Answer
from biokg.graph_agent.planner import reachable
from biokg.graph_agent.question import Question
from biokg.graph_agent.research import BRIDGE
from biokg.graph_agent.text import mention_key

SAMPLE_EDGES = 3_000
_SYLLABLES = ("zor", "bax", "qui", "mel", "tran", "vex", "dol", "fen", "pra", "lux", "nor")
_ENDINGS = ("inol", "axide", "umab", "otrex", "azine")


@dataclass(frozen=True)
class EvalQuestion:
    kind: str  # one_hop | one_hop_heldout | two_hop | unanswerable | verify
    text: str
    gold: frozenset[str]
    variant: str  # stored | lower | upper | typo | brand | synonym | none
    relation: str
    seed: str = ""  # the one-hop seed node: its variants are compared with each other
    verdict: str | None = None  # verify: the verdict the graph gives ("yes", "none")


@dataclass
class EvalResult:
    question: EvalQuestion
    answer: Answer

    @property
    def rank(self) -> int | None:
        ids = [n.id for n in self.answer.answers]
        return next((i + 1 for i, node in enumerate(ids) if node in self.question.gold), None)


@dataclass
class EvalReport:
    results: list[EvalResult] = field(default_factory=list)

    def metrics(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for kind in ("one_hop", "one_hop_heldout", "two_hop"):
            rows = [r for r in self.results if r.question.kind == kind]
            if rows:
                out[kind] = _ranking(rows)
        one_hop = [r for r in self.results if r.question.kind == "one_hop"]
        variants = _variant_deltas(one_hop)
        if variants:
            out["one_hop"]["variant_spread_points"] = round(
                max(variants.values()) - min(variants.values()), 2
            )
            out["variant_vs_stored_points"] = variants
            # each variant's own Hit@1, over whichever seeds it has (brand: drugs only)
            by_variant: dict[str, list[EvalResult]] = defaultdict(list)
            for r in one_hop:
                by_variant[r.question.variant].append(r)
            out["hit@1_by_variant"] = {v: _ranking(rows)["hit@1"] for v, rows in by_variant.items()}
        rows = [r for r in self.results if r.question.kind == "unanswerable"]
        if rows:
            abstained = sum(r.answer.status == "not_found" for r in rows)
            out["unanswerable"] = {"questions": len(rows), "abstention": abstained / len(rows)}
        rows = [r for r in self.results if r.question.kind == "verify"]
        if rows:
            out["verify"] = {"questions": len(rows)}
            for verdict in ("yes", "none"):
                asked = [r for r in rows if r.question.verdict == verdict]
                right = sum((r.answer.verdict or "none") == verdict for r in asked)
                out["verify"][f"{verdict}_accuracy"] = right / len(asked) if asked else 0.0
        answers = [r.answer for r in self.results]
        graph_ms = sorted(a.timings["graph_ms"] for a in answers)
        out["all"] = {
            "questions": len(answers),
            "citations_in_evidence": _in_evidence(answers),
            "citation_precision": _citation_precision(answers),
            "graph_ms_p50": _percentile(graph_ms, 50),
            "graph_ms_p95": _percentile(graph_ms, 95),
            "total_ms_p50": _percentile(sorted(a.timings["total_ms"] for a in answers), 50),
        }
        return out


def generate(agent: GraphAgent, *, per_relation: int = 8, seed: int = 7) -> list[EvalQuestion]:
    """Questions with gold answers from the graph (see module docstring); deterministic."""
    rng = random.Random(seed)
    agent.refresh()  # names and gold must come from the same graph state
    schema = agent.schema
    questions: list[EvalQuestion] = []
    heldout = heldout_wordings(agent.planner.reader)
    # the bridge between sources' records is crossed inside every answer, not asked about
    edges = {rel: _sample_edges(agent, rel) for rel in sorted(schema.types) if rel != BRIDGE}
    for rel, rows in edges.items():
        wordings = schema.types[rel].questions
        for outgoing, templates in ((True, wordings.forward), (False, wordings.inverse)):
            seeds = _distinct(rows, "subject" if outgoing else "object", rng, per_relation)
            other = heldout[rel]["forward" if outgoing else "inverse"]
            for node, name, label in seeds:
                gold = _gold(agent, node, name, rel, outgoing)
                if not gold:  # only negated edges (GO/HPO NOT): nothing to find
                    continue
                template = rng.choice(templates)  # one wording per seed: only the name varies
                asked = [
                    EvalQuestion("one_hop", template.format(name=text), gold, variant, rel, node)
                    for variant, text in _variants(agent, node, name, label, rng)
                ]
                text = rng.choice(other).format(name=name)  # the stored name, held-out words
                asked.append(EvalQuestion("one_hop_heldout", text, gold, "stored", rel, node))
                # drawn all the same, so the other seeds' questions stay those of earlier runs
                if schema.labels[label].named:
                    questions += asked
    questions += _two_hop(agent, edges, rng, per_relation)
    questions += _unanswerable(agent, edges, rng, per_relation)
    questions += _verification(agent, edges, rng, per_relation)
    return questions


def heldout_wordings(
    reader: QuestionReader, path: Path | None = None
) -> dict[str, dict[str, tuple[str, ...]]]:
    """The held-out wordings (``eval_wordings.yaml``, or ``path``) per type and direction.

    Raises:
        SchemaError: a wording contains a phrase the planner reads (the split would then
            measure the planner's own vocabulary), or the file misses a type of schema/.
    """
    path = path or Path(__file__).with_name("eval_wordings.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    missing = sorted(set(reader.schema.types) - set(data))
    if missing:
        raise SchemaError(f"{path}: no held-out wordings for {missing}")
    for rel, sides in data.items():
        for wording in (*sides["forward"], *sides["inverse"]):
            cued = [
                cue.name
                for cue in reader.understand(Question.parse(wording.format(name="X"))).cues
                if cue.vocabulary in ("relation", "inverse")
            ]
            if cued:
                raise SchemaError(
                    f"{path}: {rel} wording {wording!r} uses the planner's phrases for {cued}; "
                    "held-out wordings must not"
                )
    return {
        rel: {side: tuple(sides[side]) for side in ("forward", "inverse")}
        for rel, sides in data.items()
    }


def run(
    agent: GraphAgent,
    questions: list[EvalQuestion],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> EvalReport:
    report = EvalReport()
    for i, question in enumerate(questions):
        report.results.append(EvalResult(question, agent.ask(question.text)))
        if progress:
            progress(i + 1, len(questions))
    return report


def _sample_edges(agent: GraphAgent, rel: str) -> list[dict]:
    agent.schema.relationship(rel)  # only a type declared in schema/ reaches the query text
    text = cypher.load("eval_sample_edges").replace("__TYPE__", rel)
    return agent.store.read(text, {"limit": SAMPLE_EDGES})


def _distinct(rows: list[dict], end: str, rng: random.Random, k: int) -> list[tuple[str, str, str]]:
    nodes = sorted({(r[end], r[f"{end}_name"], r[f"{end}_label"]) for r in rows})
    return rng.sample(nodes, min(k, len(nodes)))


def _same_name(agent: GraphAgent, node: str, name: str) -> list[str]:
    """The seed and every node named (or, for documents, titled) exactly like it."""
    entries = agent.linker.lexicon.by_key.get(mention_key(name), [])
    return sorted({node} | {e.id for e in entries if e.rule in ("name", "title")})


def _gold(agent: GraphAgent, node: str, name: str, rel: str, outgoing: bool) -> frozenset[str]:
    rows = agent.store.read(
        cypher.load("eval_neighbours"),
        {"ids": _same_name(agent, node, name), "type": rel, "outgoing": outgoing},
    )
    return frozenset(n for r in rows for n in r["neighbours"])


def _variants(
    agent: GraphAgent, node: str, name: str, label: str, rng: random.Random
) -> Iterator[tuple[str, str]]:
    yield "stored", name
    yield "lower", name.lower()
    yield "upper", name.upper()
    if len(name) >= 8:
        yield "typo", _typo(name, rng)
    [other] = agent.store.read(cypher.load("eval_other_names"), {"ids": [node]})
    for variant, names in (("brand", other["brands"]), ("synonym", other["synonyms"])):
        unique = sorted(
            n
            for n in names or []
            if mention_key(n) != mention_key(name) and _links_only_to(agent, n, node)
        )
        if unique:
            yield variant, rng.choice(unique)


def _links_only_to(agent: GraphAgent, text: str, node: str) -> bool:
    return {e.id for e in agent.linker.lexicon.by_key.get(mention_key(text), [])} == {node}


def _typo(name: str, rng: random.Random) -> str:
    """One slip of the keyboard inside a word of the name, never its first letter: two letters
    swapped, one dropped, one doubled or one replaced."""
    spots = [i for i in range(1, len(name) - 1) if name[i : i + 2].isalpha()]
    i = rng.choice(spots) if spots else 1
    slip = rng.choice(("swap", "drop", "double", "replace"))
    if slip == "swap":
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    if slip == "drop":
        return name[:i] + name[i + 1 :]
    if slip == "double":
        return name[:i] + name[i] + name[i:]
    letter = rng.choice([c for c in "aeioulnrst" if c != name[i].lower()])
    return name[:i] + (letter.upper() if name[i].isupper() else letter) + name[i + 1 :]


def _verification(
    agent: GraphAgent, edges: dict[str, list[dict]], rng: random.Random, k: int
) -> list[EvalQuestion]:
    """Yes/no questions in each type's ``verify`` wording: a sampled edge's two ends (the
    verdict "yes"), and its subject with another sampled edge's object of the same label that no
    node of the subject's name holds such an edge to (no verdict: no record either way)."""
    questions = []
    for rel, rows in edges.items():
        named = [
            r
            for r in rows
            if agent.schema.labels[r["subject_label"]].named
            and agent.schema.labels[r["object_label"]].named
        ]
        wording = agent.schema.types[rel].questions.verify
        for row in rng.sample(named, min(k, len(named))):
            held = _gold(agent, row["subject"], row["subject_name"], rel, True)
            ask = partial(wording.format, name=row["subject_name"])
            gold = frozenset({row["object"]})
            questions.append(
                EvalQuestion(
                    "verify", ask(object=row["object_name"]), gold, "stored", rel, verdict="yes"
                )
            )
            other = rng.choice(named)
            namesakes = _same_name(agent, other["object"], other["object_name"])
            if other["object_label"] == row["object_label"] and not held & set(namesakes):
                text = ask(object=other["object_name"])
                questions.append(
                    EvalQuestion("verify", text, frozenset(), "stored", rel, verdict="none")
                )
    return questions


def _two_hop(
    agent: GraphAgent, edges: dict[str, list[dict]], rng: random.Random, k: int
) -> list[EvalQuestion]:
    """Chains first(seed→via) then second(via→end), seeds from the first type's sample."""
    schema = agent.schema
    out = []
    for first, rows in edges.items():
        for second, second_rows in edges.items():
            if first == second or not rows or not second_rows:
                continue
            via_labels = {r["object_label"] for r in rows}
            if not via_labels & {r["subject_label"] for r in second_rows}:
                continue
            describe = schema.types[first].questions.describe_forward
            templates = schema.types[second].questions.forward
            for node, name, _ in _distinct(rows, "subject", rng, max(1, k // 2)):
                via = _gold(agent, node, name, first, True)
                ends = agent.store.read(
                    cypher.load("eval_neighbours"),
                    {"ids": sorted(via), "type": second, "outgoing": True},
                )
                gold = frozenset(n for r in ends for n in r["neighbours"]) - {node}
                if gold:
                    text = rng.choice(templates).format(name=describe.format(name=name))
                    out.append(EvalQuestion("two_hop", text, gold, "stored", f"{first}>{second}"))
    return out


def _unanswerable(
    agent: GraphAgent, edges: dict[str, list[dict]], rng: random.Random, k: int
) -> list[EvalQuestion]:
    schema, lexicon = agent.schema, agent.linker.lexicon
    out = []
    present = [rel for rel, rows in edges.items() if rows]
    for _ in range(k * 2):
        rel = rng.choice(present)
        invented = "".join(rng.choice(_SYLLABLES) for _ in range(2)) + rng.choice(_ENDINGS)
        text = rng.choice(schema.types[rel].questions.forward).format(name=invented.title())
        out.append(EvalQuestion("unanswerable", text, frozenset(), "none", rel))
    for rel in present:
        spec = schema.types[rel]
        answers = set(spec.to_labels)
        # labels within two hops of this type's answer labels, as the planner walks them:
        # answerable (it follows the chain schema/ implies: a drug's GO processes are its
        # targets')
        near = reachable(schema, answers)
        answerable = near | reachable(schema, near)
        other = {
            (r["subject"], r["subject_name"])
            for rows in edges.values()
            for r in rows[:200]
            if len(mention_key(r["subject_name"] or "")) >= 3  # a real name, not "-"
            and not answerable
            & {lexicon.label(e.id) for e in lexicon.by_key.get(mention_key(r["subject_name"]), [])}
        }  # no node of an answerable kind goes by that name ("Humira" the label and the drug)
        for _, name in rng.sample(sorted(other), min(2, len(other))):
            text = rng.choice(spec.questions.forward).format(name=name)
            out.append(EvalQuestion("unanswerable", text, frozenset(), "none", rel))
    return out


def _ranking(rows: list[EvalResult]) -> dict[str, float]:
    ranks = [r.rank for r in rows]
    return {
        "questions": len(rows),
        "hit@1": sum(r == 1 for r in ranks) / len(rows),
        "hit@5": sum(r is not None and r <= 5 for r in ranks) / len(rows),
        "mrr": sum(1 / r for r in ranks if r) / len(rows),
    }


def _variant_deltas(rows: list[EvalResult]) -> dict[str, float]:
    """Per name variant, its Hit@1 minus the stored name's on the same seeds, in points.

    Paired on purpose: brand names exist only for drugs and typos only for long names, so
    comparing each variant's own Hit@1 would measure which seeds it has, not the name.
    A variant asked of fewer than five seeds is left out.
    """
    asked: dict[tuple, dict[str, bool]] = defaultdict(dict)
    for r in rows:
        q = r.question
        asked[(q.relation, q.seed, q.gold)][q.variant] = r.rank == 1
    variants = sorted({v for hits in asked.values() for v in hits} - {"stored"})
    deltas = {"stored": 0.0} if asked else {}
    for variant in variants:
        pairs = [(h[variant], h["stored"]) for h in asked.values() if {variant, "stored"} <= set(h)]
        if len(pairs) >= 5:
            deltas[variant] = round(100 * sum(v - s for v, s in pairs) / len(pairs), 2)
    return deltas


def _in_evidence(answers: list[Answer]) -> float:
    cited = in_graph = 0
    for a in answers:
        nodes = {n.id for n in a.evidence.nodes}
        edges = {e.id for e in a.evidence.edges}
        for claim in a.claims:
            cited += len(claim.node_ids) + len(claim.edge_ids)
            in_graph += sum(i in nodes for i in claim.node_ids)
            in_graph += sum(i in edges for i in claim.edge_ids)
    return in_graph / cited if cited else 1.0


def _citation_precision(answers: list[Answer]) -> float:
    """Cited ids in the evidence graph whose edges join the claim's own nodes (its path)."""
    cited = good = 0
    for a in answers:
        edges = {e.id: e for e in a.evidence.edges}
        for claim in a.claims:
            path = set(claim.node_ids)
            cited += len(claim.node_ids) + len(claim.edge_ids)
            touched = set()
            for edge_id in claim.edge_ids:
                edge = edges.get(edge_id)
                if edge and edge.subject in path and edge.object in path:
                    good += 1
                    touched |= {edge.subject, edge.object}
            good += len(path & touched)
    return good / cited if cited else 1.0


def _percentile(values: list[float], q: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 2)
