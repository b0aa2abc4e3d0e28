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
from biokg.graph_agent.research import Chain, Relation
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
        found = (*mention.candidates, *mention.alternatives)
        return next((c.label for c in found if c.id == node), None)

    def _compatible(self, mention: Mention, intent: Intent) -> list[str]:
        """Candidate ids whose label fits the question (all candidates if none does).

        Best fit: a cued relationship joins the label to the kind the question asks for first
        ("Which drug ..."). When no candidate fits so, an exactly named lower-ranked node may:
        "Which drug is Cephalexin the label of?" means the label titled Cephalexin, not the
        drug, which HAS_LABEL cannot join to a drug. Next best: a cued relationship touches
        the label.
        """
        asked_first = set(intent.target_labels[:1])
        fitting = [c for c in mention.candidates if self._fits(c.label, intent, asked_first)]
        fitting = fitting or [
            c for c in mention.alternatives if self._fits(c.label, intent, asked_first)
        ]
        fitting = fitting or [c for c in mention.candidates if self._fits(c.label, intent, set())]
        fitting = fitting or mention.candidates
        # a tie between kinds: the asked-for kind is the answer, not the entity asked about
        # ("Which drug is Phosphorus the label of?": Phosphorus the Label, not the Drug)
        asked = [c for c in fitting if c.label not in intent.target_labels]
        return [c.id for c in asked or fitting]

    def _fits(self, label: str, intent: Intent, targets: set[str]) -> bool:
        """A cued relationship joins ``label`` to one of ``targets`` (to anything if empty)."""
        for rel in intent.relations:
            spec = self.schema.types[rel]
            ends = ((spec.from_labels, spec.to_labels), (spec.to_labels, spec.from_labels))
            if any(label in here and (not targets or targets & set(there)) for here, there in ends):
                return True
        return False

    def _relations(self, labels: set[str], intent: Intent) -> list[Relation]:
        """One-hop relations from the seed labels that the question cues or asks for.

        Cued types that cannot touch the seed's label give way to every type that joins the
        seed's label to an asked-for label ("Which label is <section> from?").
        """
        cued = self._typed(labels, intent, intent.relations)
        if cued or not intent.target_labels:
            return cued
        return self._typed(labels, intent, tuple(self.schema.types), targets_only=True)

    def _typed(
        self,
        labels: set[str],
        intent: Intent,
        types: tuple[str, ...],
        *,
        targets_only: bool = False,
    ) -> list[Relation]:
        targets = set(intent.target_labels)
        out = []
        for rel in types:
            spec = self.schema.types[rel]
            ends = (
                (True, spec.from_labels, spec.to_labels),
                (False, spec.to_labels, spec.from_labels),
            )
            for outgoing, here, there in ends:
                if not labels & set(here):
                    continue
                wanted = tuple(sorted(set(there) & targets))
                if targets_only and not wanted:
                    continue
                out.append(Relation(rel, outgoing, wanted or tuple(sorted(there))))
        if any(set(r.labels) & targets for r in out):  # the asked-for kind of answer first
            out = [r for r in out if set(r.labels) & targets]
        return self._directed(out, intent)

    def _directed(self, relations: list[Relation], intent: Intent) -> list[Relation]:
        """Both directions of a label-to-itself type: one group, or the asked direction.

        A type with ``inverse_phrases`` in schema/ is directed: its inverse phrases ask for the
        subjects (``subtypes of X``), anything else for the objects (``X is a kind of``).
        """
        out: dict[tuple[str, tuple[str, ...]], Relation] = {}
        for r in relations:
            key = (r.type, r.labels)
            if key not in out:
                out[key] = r
                continue
            if self.schema.types[r.type].inverse_phrases:
                out[key] = Relation(r.type, r.type not in intent.inverse, r.labels)
            else:
                out[key] = Relation(r.type, None, r.labels)
        return list(out.values())

    def _chain(self, labels: set[str], intent: Intent) -> Chain | None:
        """The best two-hop chain over two different cued types, scored by asked-for labels.

        When the question names kinds of entities, the chain's middle must be one of them (``the
        phenotypes of the diseases associated with TP53``) and an end it names scores higher;
        a question that names no kind of end accepts every kind the second type reaches.
        Without two cued types there is no chain.
        """
        if len(intent.relations) < 2:
            return None
        targets = intent.target_labels
        best: tuple[int, Chain] | None = None
        for first in intent.relations:
            for first_out, via in self._hops(first, labels, intent):
                if targets and via not in targets:
                    continue  # a chain needs its middle named, or no names at all
                for second in intent.relations:
                    if second == first:
                        continue
                    ends: dict[bool | None, list[str]] = {}
                    for second_out, end in self._hops(second, {via}, intent):
                        ends.setdefault(second_out, []).append(end)
                    for second_out, reached in ends.items():
                        # the asked-for kinds of end if it reaches any, else every kind it can
                        asked = [end for end in reached if end in targets]
                        score = 1 + 2 * bool(asked) + (bool(targets) and targets[0] in asked)
                        chain = Chain(
                            first, first_out, via, second, second_out, tuple(asked or reached)
                        )
                        if best is None or score > best[0]:
                            best = (score, chain)
        return best[1] if best else None

    def _hops(self, rel: str, labels: set[str], intent: Intent) -> list[tuple[bool | None, str]]:
        """(direction, far label) for each way ``rel`` leaves ``labels``."""
        spec = self.schema.types[rel]
        out: dict[str, set[bool]] = {}
        for outgoing, here, there in (
            (True, spec.from_labels, spec.to_labels),
            (False, spec.to_labels, spec.from_labels),
        ):
            if labels & set(here):
                for label in there:
                    out.setdefault(label, set()).add(outgoing)
        hops = []
        for label, directions in sorted(out.items()):
            if len(directions) == 1:
                hops.append((directions.pop(), label))
            elif spec.inverse_phrases:
                hops.append((rel not in intent.inverse, label))
            else:
                hops.append((None, label))
        return hops
