"""The deterministic planner: linked mentions + the question's cues → research steps (no LLM).

Everything it knows about the graph comes from schema/: which labels each relationship type
joins (to settle what a cue means for the linked entity's label), and which two-type chains
lead from the entity to the label the question asks for. Steps are tried in order; the
orchestrator stops at the first that finds anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biokg.graph_agent.intent import Intent, QuestionReader
from biokg.graph_agent.models import Mention
from biokg.graph_agent.research import Relation
from biokg.schema import GraphSchema


@dataclass(frozen=True)
class PlanStep:
    """One research call: the strategy name, its request and why it was chosen."""

    strategy: str
    request: dict[str, Any]
    why: str


@dataclass
class Plan:
    intent: Intent
    seeds: list[list[str]]
    steps: list[PlanStep] = field(default_factory=list)
    focus: list[str] = field(default_factory=list)


class DeterministicPlanner:
    """Turns a question and its mentions into a :class:`Plan` (see module docstring)."""

    name = "deterministic"

    def __init__(self, schema: GraphSchema) -> None:
        self.schema = schema
        self.reader = QuestionReader(schema)

    def plan(self, question: str, mentions: list[Mention]) -> Plan:
        intent = self.reader.read(question, entity_spans=[m.text for m in mentions])
        seeds = [self._compatible(m, intent) for m in mentions if m.candidates]
        seeds = [s for s in seeds if s]
        plan = Plan(intent=intent, seeds=seeds)
        if not seeds:
            return plan
        labels = {self._label_of(m, i) for m in mentions for i in seeds[0] if self._label_of(m, i)}
        if intent.kind == "path" and len(seeds) >= 2:
            plan.steps.append(
                PlanStep(
                    "depth",
                    {"seeds": seeds[0], "target": seeds[1][0]},
                    "the question asks how two entities connect",
                )
            )
            return plan
        if intent.kind == "shared" and len(seeds) >= 2:
            relations = self._relations(labels, intent)
            plan.steps.append(
                PlanStep(
                    "shared",
                    {"seeds": seeds[:2], "relations": relations},
                    "the question asks what two entities have in common",
                )
            )
            return plan
        plan.focus = [i for group in seeds[1:] for i in group]
        chain = self._chain(labels, intent)
        relations = self._relations(labels, intent)
        if chain is not None:
            plan.steps.append(
                PlanStep("depth", {"seeds": seeds[0], "chain": chain}, "two cued relationships")
            )
        if relations or not intent.relations:
            why = "one-hop over the cued relationships" if relations else "wide one-hop survey"
            plan.steps.append(PlanStep("breadth", {"seeds": seeds[0], "relations": relations}, why))
        return plan

    def _label_of(self, mention: Mention, node: str) -> str | None:
        return next((c.label for c in mention.candidates if c.id == node), None)

    def _compatible(self, mention: Mention, intent: Intent) -> list[str]:
        """Candidate ids whose label fits a cued relationship (all candidates if none does)."""
        ends = {
            label
            for rel in intent.relations
            for label in (*self.schema.types[rel].from_labels, *self.schema.types[rel].to_labels)
        }
        fitting = [c.id for c in mention.candidates if c.label in ends]
        return fitting or [c.id for c in mention.candidates]

    def _relations(self, labels: set[str], intent: Intent) -> list[Relation]:
        """One-hop relations from the seed labels that the question cues or asks for."""
        targets = set(intent.target_labels)
        out = []
        types = (intent.relations or tuple(self.schema.types)) if targets else intent.relations
        for rel in types:
            spec = self.schema.types[rel]
            for outgoing, here, there in (
                (True, spec.from_labels, spec.to_labels),
                (False, spec.to_labels, spec.from_labels),
            ):
                if not labels & set(here):
                    continue
                wanted = tuple(sorted(set(there) & targets)) if targets & set(there) else ()
                if targets and not wanted and not intent.relations:
                    continue
                out.append(Relation(rel, outgoing, wanted or tuple(sorted(there))))
        return _undirected_when_symmetric(out)

    def _chain(self, labels: set[str], intent: Intent) -> tuple[str, str, str, str] | None:
        """The two-type chain using two cued types that ends at the first asked-for label."""
        if len(intent.relations) < 2 or not intent.target_labels:
            return None
        target = intent.target_labels[0]
        best: tuple[int, tuple[str, str, str, str]] | None = None
        for first in intent.relations:
            for via in _other_ends(self.schema, first, labels):
                for second in intent.relations:
                    if second == first or target not in _other_ends(self.schema, second, {via}):
                        continue
                    score = (via in intent.target_labels) * 2 + 1
                    if best is None or score > best[0]:
                        best = (score, (first, via, second, target))
        return best[1] if best else None


def _other_ends(schema: GraphSchema, rel: str, labels: set[str]) -> set[str]:
    spec = schema.types[rel]
    out: set[str] = set()
    if labels & set(spec.from_labels):
        out |= set(spec.to_labels)
    if labels & set(spec.to_labels):
        out |= set(spec.from_labels)
    return out


def _undirected_when_symmetric(relations: list[Relation]) -> list[Relation]:
    """A type that joins a label to itself in both directions is asked as one undirected group."""
    seen: dict[tuple[str, tuple[str, ...]], Relation] = {}
    for r in relations:
        key = (r.type, r.labels)
        seen[key] = Relation(r.type, None, r.labels) if key in seen else r
    return list(seen.values())
