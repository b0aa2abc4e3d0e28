"""``biokg ask`` for a patient described in words: "a child with seizures, hypotonia and
microcephaly but no fever: which diseases fit?".

:func:`~biokg.graph_agent.described.read_phenotype_list` recognises the question (its reading
is a ``diagnosis`` request) and splits the description into observed and excluded phrases.
:class:`DiagnosisAnswer` links each phrase to an HPO term (the linker's best ``Phenotype``
candidate; the others stay in the mention as alternatives), ranks diseases with
:mod:`.ranker`, reads the cited annotation edges and nodes back through the question's
:class:`~biokg.graph_agent.runner.QueryRunner` (logged, within budget), and answers with one
claim per disease citing its HPO terms, its annotation edges and their source records. Its
events are the agent's (linking, plan, query, partial, answer).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from biokg.core.embedding.search import Reader
from biokg.core.store import GraphStore
from biokg.graph_agent import models
from biokg.graph_agent.answer import compose, elapsed_ms
from biokg.graph_agent.described import PhenotypeList
from biokg.graph_agent.diagnosis.ranker import Diagnosis, Evidence, RankedDisease
from biokg.graph_agent.diagnosis.service import ranker
from biokg.graph_agent.evidence import EvidenceGraph
from biokg.graph_agent.linking import EntityLinker
from biokg.graph_agent.models import Claim, Mention, PlanView, QueryRecord, StepEvent
from biokg.graph_agent.question import Question
from biokg.graph_agent.runner import Budget, QueryRunner

#: How many ranked diseases the answer names (the ranking is longer: API and CLI).
ANSWERED = 10
#: How many of a disease's best-scoring observed terms its claim names.
NAMED_TERMS = 4
_LABEL = "Phenotype"


class DiagnosisAnswer:
    """Answers a :class:`PhenotypeList` question with the diagnosis ranker (module docstring)."""

    name = "diagnosis"

    def __init__(self, store: GraphStore, linker: EntityLinker, cache_dir: Path | None) -> None:
        self.store, self.linker, self.cache_dir = store, linker, cache_dir

    def stream(
        self, question: str, asked: PhenotypeList, budget: Budget, versions: list[dict]
    ) -> Iterator[StepEvent]:
        """The agent's events for this question, the last one the answer.

        Raises:
            StoreError: the graph could not be read.
        """
        started = time.perf_counter()
        # the index first: its one-off build (per graph load) is not the question's graph time
        ranks = ranker(self.store, self.cache_dir)
        queued: list[QueryRecord] = []
        runner = QueryRunner(self.store, budget, on_query=queued.append)
        read = runner.reader("link:search")
        seen = [self._mention(p, read) for p in asked.observed]
        absent = [self._mention(p, read) for p in asked.excluded]
        mentions = seen + absent
        link_ms = elapsed_ms(started)
        yield models.LinkingEvent(data=models.Linked(mentions=mentions, ms=link_ms))
        observed, excluded = _terms(seen), _terms(absent)
        yield models.PlanEvent(data=_plan(observed, excluded))
        diagnosis = None
        if observed:
            diagnosis = ranks.rank(observed, excluded, top=ANSWERED)
            self._read_evidence(runner, diagnosis)
        yield from (models.QueryEvent(data=q) for q in queued)
        if diagnosis and diagnosis.ranking:
            yield models.PartialEvent(data=models.Progress(found=len(diagnosis.ranking)))
        claims = _claims(runner.evidence, diagnosis) if diagnosis else []
        answer = compose(
            question,
            runner,
            planner=self.name,
            mentions=mentions,
            claims=claims,
            answers=[runner.evidence.nodes[c.node_ids[0]] for c in claims],
            summary=_summary(runner.evidence, mentions, diagnosis, len(claims)),
            timing=(started, link_ms),
            versions=versions,
        )
        yield models.AnswerEvent(data=answer)

    def _mention(self, phrase: str, read: Reader) -> Mention:
        """The phrase linked to phenotypes as any question's names are, the scorer judging its
        guesses (an index hit that shares one word, "small eyes" for *Small scrotum*, is no
        term): the best first, other phenotypes as alternatives."""
        linked = self.linker.mentions(Question.parse(phrase), read=read)
        found = [c for m in linked for c in (*m.candidates, *m.alternatives) if c.label == _LABEL]
        found = list({c.id: c for c in found}.values())
        return Mention(text=phrase, candidates=found[:1], alternatives=found[1:4])

    def _read_evidence(self, runner: QueryRunner, diagnosis: Diagnosis) -> None:
        """The cited annotation and bridge edges, and every node the claims name, read back
        from the graph into the question's evidence."""
        pairs = [
            {"subject": e.disease, "object": e.disease_term, "id": e.edge}
            for entry in diagnosis.ranking
            for e in entry.evidence
            if e.edge
        ]
        pairs += [
            {"subject": b["subject"], "object": b["object"], "id": b["edge"]}
            for entry in diagnosis.ranking
            for b in entry.bridge
        ]
        ids = {entry.id for entry in diagnosis.ranking}
        ids |= {e.term for entry in diagnosis.ranking for e in entry.evidence}
        runner.template("diagnosis_cited_edges", {"pairs": pairs}, step="diagnosis:edges")
        runner.template("agent_nodes", {"ids": sorted(ids)}, step="diagnosis:nodes")


def _terms(mentions: list[Mention]) -> list[str]:
    return list(dict.fromkeys(m.candidates[0].id for m in mentions if m.candidates))


def _plan(observed: list[str], excluded: list[str]) -> PlanView:
    why = f"rank diseases for {len(observed)} observed and {len(excluded)} excluded HPO terms"
    return PlanView(
        planner="diagnosis",
        request="diagnosis",
        kind="diagnosis",
        polar=False,
        relations=["HAS_PHENOTYPE"],
        target_labels=["Disease"],
        kinds=[],
        seeds=[[term] for term in observed + excluded],
        stop=None if observed else "no observed feature links to an HPO term",
        steps=[models.PlannedStep(strategy="DiagnosisRanker", why=why)],
    )


def _claims(evidence: EvidenceGraph, diagnosis: Diagnosis) -> list[Claim]:
    """One claim per ranked disease: its best-scoring terms and the edges stating them."""
    claims = []
    for entry in diagnosis.ranking:
        cited = [e for e in entry.evidence if e.edge and e.edge in evidence.edges]
        if entry.id not in evidence.nodes or not cited:
            continue
        best = sorted((e for e in cited if not e.excluded), key=lambda e: -e.contribution)
        against = [e for e in cited if e.excluded]
        text = f"{entry.rank}. {entry.name or entry.id} ({', '.join(entry.ids)}) fits " + (
            "; ".join(_met(e) for e in best[:NAMED_TERMS]) or "none of the observed terms"
        )
        if against:
            text += "; against it: " + "; ".join(
                f"{e.term_name or e.term} ({e.term}) excluded, annotated {_share(e.frequency)}"
                for e in against
            )
        bridge = [b["edge"] for b in entry.bridge if b["edge"] in evidence.edges]
        nodes = [entry.id, *(e.term for e in best[:NAMED_TERMS] + against)]
        edges = [e.edge for e in best[:NAMED_TERMS] + against] + bridge
        claims.append(
            evidence.cite(
                text + f" (score {entry.score:.2f}, of which prior {entry.prior:.2f})",
                [n for n in nodes if n in evidence.nodes],
                [e for e in edges if e is not None],
            )
        )
    return claims


def _met(e: Evidence) -> str:
    """How one observed term met the disease, e.g. "Seizure (HP:0001250) as annotated"."""
    term = f"{e.term_name or e.term} ({e.term})"
    if e.disease_term == e.term:
        return f"{term} as annotated ({_share(e.frequency)})"
    if e.ancestor == e.term:
        return f"{term} through {e.disease_term_name} ({e.disease_term})"
    return f"{term} through the common ancestor {e.ancestor_name} ({e.ancestor})"


def _share(frequency: float | None) -> str:
    return "frequency unknown" if frequency in (None, 0.5) else f"in {frequency:.0%}"


def _summary(
    evidence: EvidenceGraph, mentions: list[Mention], diagnosis: Diagnosis | None, n: int
) -> str:
    unlinked = [m.text for m in mentions if not m.candidates]
    note = f" No HPO term found for: {', '.join(unlinked)}." if unlinked else ""
    if not diagnosis or not n:
        return "No disease could be ranked: no described feature links to an HPO term." + note
    terms = ", ".join(f"{t}" for t in diagnosis.observed)
    against = f", not {', '.join(diagnosis.excluded)}" if diagnosis.excluded else ""
    first: RankedDisease = diagnosis.ranking[0]
    return (
        f"{n} diseases ranked for {terms}{against} ({diagnosis.method}); best: "
        f"{first.name or first.id} ({first.id}).{note}"
    )
