"""The orchestrator: link → plan → research (breadth/depth) within budget → cited answer.

:meth:`GraphAgent.stream` yields a :class:`StepEvent` per step as it happens (linking, the plan,
each query, partial findings, the answer), so the CLI prints and the API streams the same
events; :meth:`GraphAgent.ask` returns only the final :class:`Answer`. Research stops at the
first step that finds anything (sufficiency) or when the budget is spent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from biokg import cypher
from biokg.errors import AgentInputError, BudgetExceededError
from biokg.graph_agent.answer import answer_nodes, build_claims, summarise
from biokg.graph_agent.intent import QuestionReader
from biokg.graph_agent.lexicon import Lexicon, graph_digest
from biokg.graph_agent.linking import EntityLinker, Searcher
from biokg.graph_agent.llm import LLMResearcher
from biokg.graph_agent.models import Answer, Mention, QueryRecord, StepEvent
from biokg.graph_agent.planner import DeterministicPlanner, Plan, PlanStep
from biokg.graph_agent.research import BreadthSearch, DepthSearch, Finding
from biokg.graph_agent.runner import Budget, QueryRunner
from biokg.graph_agent.searchers import index_searchers
from biokg.ingest.embed import SentenceTransformerEmbedder
from biokg.schema import GraphSchema, load_schema
from biokg.settings import Settings
from biokg.store import GraphStore

log = logging.getLogger(__name__)
MAX_QUESTION_CHARS = 2_000


class Researcher(Protocol):
    """An LLM planner: researches a question with the agent's tools on the question's runner."""

    name: str

    def research(
        self, question: str, mentions: list[Mention], runner: QueryRunner, agent: GraphAgent
    ) -> list[Finding]: ...


class GraphAgent:
    """Answers questions from the graph with citations (see module docstring)."""

    def __init__(
        self,
        store: GraphStore,
        linker: EntityLinker,
        *,
        schema: GraphSchema | None = None,
        budget: Budget | None = None,
        researcher: Researcher | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.store = store
        self.cache_dir = cache_dir  # where the lexicon is cached; None: it never reloads
        self.schema = schema or load_schema()
        self.linker = linker
        self.budget = budget or Budget()
        self.planner = DeterministicPlanner(self.schema)
        self.researcher = researcher
        self.breadth = BreadthSearch()
        self.depth = DepthSearch()

    @classmethod
    def connect(
        cls,
        store: GraphStore,
        settings: Settings,
        *,
        searchers: tuple[Searcher, ...] | None = None,
        budget: Budget | None = None,
    ) -> GraphAgent:
        """The agent the CLI and the API use, over the graph as it is now.

        Reads or reuses the cached lexicon. ``searchers`` default to the engine's full-text and
        vector indexes (the model loads for the first text only they can place). Plans with the
        LLM when ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``BIOKG_LLM_MODEL`` are set,
        deterministically otherwise.
        """
        schema = load_schema()
        lexicon = Lexicon.load(store, settings.cache_dir)
        if searchers is None:
            searchers = index_searchers(store, schema, SentenceTransformerEmbedder())
        linker = EntityLinker(
            lexicon, cue_words=QuestionReader(schema).cue_words, searchers=searchers
        )
        researcher = LLMResearcher.from_settings(settings)
        return cls(
            store,
            linker,
            schema=schema,
            budget=budget,
            researcher=researcher,
            cache_dir=settings.cache_dir,
        )

    def refresh(self) -> list[dict]:
        """Follow the graph: reload the lexicon if a build changed it; returns data versions."""
        versions = self.store.read(cypher.load("agent_data_versions"))
        if self.cache_dir is not None and graph_digest(versions) != self.linker.lexicon.digest:
            self.linker.lexicon = Lexicon.load(self.store, self.cache_dir)
        return versions

    def ask(self, question: str, *, budget: Budget | None = None) -> Answer:
        """The final answer to ``question`` (see :meth:`stream` for the steps)."""
        *_, last = self.stream(question, budget=budget)
        return Answer.model_validate(last.data)

    def stream(self, question: str, *, budget: Budget | None = None) -> Iterator[StepEvent]:
        """Answer ``question``, yielding each step as it happens; the last event is the answer.

        ``budget`` replaces the agent's own for this question (the API lowers it per request).

        Raises:
            AgentInputError: the question is empty or longer than MAX_QUESTION_CHARS.
        """
        question = _checked(question)
        started = time.perf_counter()
        versions = self.refresh()
        queued: list[QueryRecord] = []  # streamed after the linking and plan events
        runner = QueryRunner(self.store, budget or self.budget, on_query=queued.append)
        mentions = self.linker.mentions(question, read=runner.reader("link:search"))
        link_ms = _ms(started)
        yield StepEvent(
            kind="linking", data={"mentions": [m.model_dump() for m in mentions], "ms": link_ms}
        )
        plan = self.planner.plan(question, mentions)
        yield StepEvent(kind="plan", data=_describe(plan, self.researcher))
        findings: list[Finding] = []
        why_empty = _why_empty(mentions, plan)
        try:
            for batch in self._research(question, mentions, plan, runner):
                yield from (StepEvent(kind="query", data=q.model_dump()) for q in queued)
                queued.clear()
                findings = batch
                if findings:
                    yield StepEvent(kind="partial", data={"found": len(findings)})
                    break
        except BudgetExceededError as err:
            why_empty = f"{why_empty} ({err})"
        yield from (StepEvent(kind="query", data=q.model_dump()) for q in queued)
        if plan.focus and any(f.node in plan.focus for f in findings):
            findings = [f for f in findings if f.node in plan.focus]
        answer = Answer(
            question=question,
            status="answered" if answer_nodes(runner.evidence, findings) else "not_found",
            summary=summarise(runner.evidence, findings, mentions, why_empty),
            planner=self.researcher.name if self.researcher else self.planner.name,
            claims=build_claims(runner.evidence, findings),
            answers=answer_nodes(runner.evidence, findings),
            mentions=mentions,
            evidence=runner.evidence.view(),
            queries=runner.log,
            timings={
                "link_ms": link_ms,
                "graph_ms": round(runner.graph_ms, 2),
                "total_ms": _ms(started),
            },
            data_versions=versions,
        )
        yield StepEvent(kind="answer", data=answer.model_dump())

    def _research(
        self, question: str, mentions: list[Mention], plan: Plan, runner: QueryRunner
    ) -> Iterator[list[Finding]]:
        """Findings of each step in turn (the caller stops at the first non-empty one)."""
        if self.researcher is not None:
            yield self.researcher.research(question, mentions, runner, self)
            return
        for step in plan.steps:
            yield self.run_step(step, runner)
        # nothing from the linked nodes: their alternatives next (lower-ranked exact matches,
        # namesakes of another kind), planned the same way
        promoted = [
            m.model_copy(update={"candidates": m.alternatives, "alternatives": []})
            for m in mentions
            if m.alternatives
        ]
        fallback = self.planner.plan(question, promoted) if promoted else None
        if fallback is not None and fallback.seeds != plan.seeds:  # not what already ran
            for step in fallback.steps:
                yield self.run_step(step, runner)

    def run_step(self, step: PlanStep, runner: QueryRunner) -> list[Finding]:
        """Run one planned step (also the LLM planner's breadth/depth tools)."""
        if step.strategy == "breadth":
            return self.breadth.run(runner, **step.request).findings
        if step.strategy == "depth":
            return self.depth.run(runner, **step.request).findings
        if step.strategy == "shared":
            return self._shared(runner, **step.request)
        raise ValueError(f"unknown research strategy {step.strategy!r}")

    def _shared(self, runner: QueryRunner, *, seeds: list[list[str]], relations) -> list[Finding]:
        """Neighbours both seed groups reach: breadth from each side, intersected."""
        left = self.breadth.run(runner, seeds=seeds[0], relations=relations).findings
        right = self.breadth.run(runner, seeds=seeds[1], relations=relations).findings
        right_by_node = {f.node: f for f in right if not f.negated}
        return [
            Finding(
                node=f.node,
                seed=f.seed,
                relation=f"{f.relation}>{right_by_node[f.node].relation}",
                edge_ids=[*f.edge_ids[:1], *right_by_node[f.node].edge_ids[:1]],
                via=[],
            )
            for f in left
            if not f.negated and f.node in right_by_node
        ]


def _checked(question: str) -> str:
    question = (question or "").strip()
    if not question:
        raise AgentInputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise AgentInputError(
            f"the question has {len(question)} characters; at most {MAX_QUESTION_CHARS} are taken"
        )
    return question


def _why_empty(mentions: list[Mention], plan: Plan) -> str:
    if not any(m.candidates for m in mentions):
        return "no entity in the question matches a node (names, synonyms, ids, typos checked)."
    relations = ", ".join(plan.intent.relations) or "any relationship"
    names = ", ".join(c.name for m in mentions for c in m.candidates[:3])
    return f"no {relations} edges of the asked kind were found for {names}."


def _describe(plan: Plan, researcher: Researcher | None) -> dict:
    return {
        "planner": researcher.name if researcher else "deterministic",
        "kind": plan.intent.kind,
        "relations": list(plan.intent.relations),
        "target_labels": list(plan.intent.target_labels),
        "seeds": plan.seeds,
        "steps": [{"strategy": s.strategy, "why": s.why} for s in plan.steps],
    }


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
